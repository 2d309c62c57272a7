import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * What is at `path`: its stats; undefined for nothing (or a file where a folder should be above it); or, as
 * "<path> …", why it cannot be looked at.
 */
function entryAt(path: string, shown = path): Stats | undefined | string {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `${shown} cannot be reached (${code ?? String(e)})`;
  }
}

/**
 * Where the user's `path` is: a relative one is taken from `cwd`, their working folder (a command's `io.cwd`), never
 * from this process's; an absolute one needs no `cwd`.
 */
export const fromFolder = (cwd: string | undefined, path: string): string => (cwd === undefined ? path : resolve(cwd, path));

/** `path` as the user would name it from `cwd`, their working folder: what messages show (whole, with no `cwd`). */
export const shownFrom = (cwd: string | undefined, path: string): string => (cwd === undefined ? path : relative(cwd, path) || path);

/**
 * `path` (absolute, at or below a folder the user named `given`) as they would name it: relative to `cwd`, their
 * working folder, when they named `given` relative to it; whole when they named it absolute. What run folders record
 * and messages show.
 */
export const namedAs = (given: string, cwd: string, path: string): string => (isAbsolute(given) ? path : shownFrom(cwd, path));

/** Why `path` (taken from `cwd`) is not an existing entry of `kind`, as "<path> …" with the path as given, or undefined. */
export function wrongEntry(path: string, kind: 'file' | 'folder', cwd?: string): string | undefined {
  const entry = entryAt(fromFolder(cwd, path), path);
  if (typeof entry === 'string') return entry;
  if (!entry) return `${path} does not exist`;
  if (kind === 'folder' && !entry.isDirectory()) return `${path} is not a folder`;
  if (kind === 'file' && entry.isDirectory()) return `${path} is a folder, not a file`;
  return undefined;
}

/**
 * Why nothing can be written in the folder `path`, as "<path> …", or undefined. Creates nothing: a folder that may be
 * created later (unless `mustExist`) is judged by its nearest existing ancestor, the folder it would be created in.
 */
export function unwritableFolder(path: string, opts: { mustExist: boolean; cwd?: string }): string | undefined {
  const target = fromFolder(opts.cwd, path);
  let at = target;
  let entry = entryAt(at);
  if (entry === undefined && opts.mustExist) return `${path} does not exist`;
  while (entry === undefined) {
    at = dirname(at);
    entry = entryAt(at);
  }
  if (typeof entry === 'string') return entry;
  const named = at === target ? path : `${at} (where ${path} would be created)`;
  if (!entry.isDirectory()) return `${named} is not a folder`;
  try {
    accessSync(at, constants.W_OK | constants.X_OK);
  } catch {
    return `${named} is not writable`;
  }
  return undefined;
}

/** Why the file at the absolute `path` is not executable, as "<path> …", or undefined. */
export function notExecutable(path: string): string | undefined {
  const wrong = wrongEntry(path, 'file');
  if (wrong) return wrong;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return `${path} is not executable`;
  }
  return undefined;
}

/** The first executable file named `command` in the folders of `searchPath` (a PATH value), as a shell would find it. */
export function onSearchPath(command: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, command);
    if (!notExecutable(path)) return path;
  }
  return undefined;
}

/** Whether `path` is `folder` or inside it. */
export const isWithin = (path: string, folder: string): boolean => !/^\.\.(?:[\\/]|$)/.test(relative(folder, path));

/** A run folder as the user would name it from `cwd`, their working folder. */
export function describeRunDir(run: { dir: string }, cwd: string): string {
  return shownFrom(cwd, fromFolder(cwd, run.dir));
}
