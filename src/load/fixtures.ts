import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import type { InputProblem, ProblemList } from '../util/input-error.js';
import { valueHash } from '../util/json.js';
import { isWithin, wrongEntry } from '../util/paths.js';
import { scanCopiedFolder, type CopiedFolder, type FolderScan } from './skills.js';

/**
 * The user's files (fixtures): what a trial's workspace holds beside the skills, in both arms: the suite's
 * `workspace`, a case's `files` over it, and the project's instruction file (`instructions`), which each adapter
 * writes under its CLI's own name. Read and hashed when the suite loads; the run copies exactly these bytes.
 */

/**
 * What one trial may be handed in all (its files and instruction file), 10 MB: far above what a prompt names (a PDF,
 * a CSV, a package.json, a few sources), and small enough that copying it into every workspace stays a few
 * milliseconds of a trial that takes seconds; a folder past it is most often a `node_modules` or a build named by mistake.
 */
const FIXTURE_CAP_BYTES = 10 * 1024 * 1024;

/** Where a fixture's bytes are: a file (absolute path), or text written inline. */
export type FixtureSource = { file: string } | { text: string };

/** Where a fixture was declared: the config's or a case file's line. */
export type Declared = Pick<InputProblem, 'file' | 'line' | 'col'>;

export interface FixtureContent {
  from: FixtureSource;
  /** The one mode bit a copy keeps: a script stays runnable, nothing else is. */
  executable: boolean;
  bytes: number;
  sha256: string;
  declared: Declared;
}

export interface FixtureFile extends FixtureContent {
  /** Where it lands, relative to the workspace root, `/`-separated. */
  path: string;
}

export interface Fixtures {
  files: FixtureFile[];
  /** The project's instruction file, written at the workspace root as the CLI's own (CLAUDE.md, AGENTS.md, GEMINI.md). */
  instructions?: FixtureContent;
}

/** A case's fixtures: the suite's with the case's over them, and their hash (paths, bytes, modes). */
export interface CaseFixtures extends Fixtures {
  hash: string;
}

/** Where a declaration was written, and what its relative paths are relative to. */
export interface DeclarationPlace {
  /** The folder of the file that names them, absolute. */
  base: string;
  /** The folders the named files must stay in, absolute: the project's (the working folder, and the config file's). */
  roots: readonly string[];
  /** The user's working folder: problems name paths from it. */
  cwd: string;
  /** The line of the declaration's key, or of one entry of it (a path of an inline map). */
  locate(entry?: string): Declared;
  seal: FixtureSeal;
}

/** What no fixture may be named (`sealProblem`): every CLI's skills and settings folders, every instruction file's name. */
export interface FixtureSeal {
  folders: readonly string[];
  instructionFiles: readonly string[];
}

/** The suite's own fixtures (config `workspace` and `instructions`) and how a case's are read: what `loadCases` takes. */
export interface SuiteFixtures {
  suite: Fixtures;
  roots: readonly string[];
  cwd: string;
  seal: FixtureSeal;
}

const FIXTURE_FOLDER: CopiedFolder = { name: 'fixture folder', needs: 'a trial needs' };

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The hash a fixture's bytes are known by (and its copy in the run folder named by). */
export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The declared path as a file on disk, or the problem with it: absolute, outside the project, missing, of the wrong kind. */
function sourcePath(given: string, kind: 'file' | 'folder', place: DeclarationPlace, problems: ProblemList): string | undefined {
  const at = place.locate();
  const refuse = (what: string, todo: string) => void problems.add({ ...at, what, todo });
  if (isAbsolute(given)) return refuse(`${given} is an absolute path`, `name the ${kind} relative to ${at.file}, inside the project`);
  const path = resolve(place.base, given);
  const { roots } = place;
  if (!roots.some((r) => isWithin(path, r)))
    return refuse(
      `${given} leads outside the project (to ${path})`,
      `keep the ${kind} inside the project, and name it relative to ${at.file}`,
    );
  // Named as the user wrote it, not as resolved.
  const wrong = wrongEntry(given, kind, place.base);
  if (wrong) return refuse(wrong, `create the ${kind}, or fix the path`);
  // A folder or file that is itself a link out of the project would hand what it names to every trial.
  const real = realpathSync(path);
  if (!roots.some((r) => isWithin(real, realpathSync(r))))
    return refuse(`${given} is a symlink leading outside the project (to ${real})`, `copy the ${kind} into the project, or fix the path`);
  return path;
}

/** An inline map's key as a workspace path, or why it cannot be one: it must stay inside the trial's workspace. */
function destination(key: string): { path: string } | { what: string; todo: string } {
  const todo = 'name the file by a path relative to the workspace root, like `data/report.csv`';
  if (key.includes('\0')) return { what: `"${key}" holds a NUL character`, todo };
  if (posix.isAbsolute(key) || /^[A-Za-z]:[\\/]/.test(key)) return { what: `"${key}" is an absolute path`, todo };
  const parts = key.split(/[\\/]/);
  if (parts.includes('..')) return { what: `"${key}" leads outside the trial's workspace`, todo };
  const path = parts.filter((p) => p !== '' && p !== '.').join('/');
  if (path === '' || key.endsWith('/')) return { what: `"${key}" names a folder, not a file`, todo };
  return { path };
}

/** Every file of a fixture folder, hashed, each path relative to the folder; nothing past the cap is read. */
function folderFiles(folder: string, declared: Declared, cwd: string, problems: ProblemList): FixtureFile[] {
  const scan: FolderScan = { cwd, paths: [], problems: [], links: [] };
  scanCopiedFolder(folder, [realpathSync(folder)], scan, FIXTURE_FOLDER);
  scan.problems.forEach((p) => problems.add(p));
  const files = scan.paths.map((p) => ({ p, stats: statSync(p) })).filter(({ stats }) => stats.isFile());
  const total = files.reduce((sum, f) => sum + f.stats.size, 0);
  if (total > FIXTURE_CAP_BYTES) {
    problems.add({
      ...declared,
      what: `the fixture folder holds ${megabytes(total)}, over the ${megabytes(FIXTURE_CAP_BYTES)} a trial may be handed`,
      todo: 'keep only the files the prompts need',
    });
    return [];
  }
  return files.map(({ p, stats }) => ({
    path: relative(folder, p).split(sep).join('/'),
    from: { file: p },
    executable: (stats.mode & 0o111) !== 0,
    bytes: stats.size,
    sha256: sha256(readFileSync(p)),
    declared,
  }));
}

const inline = (text: string, declared: Declared): FixtureContent => {
  const bytes = Buffer.from(text, 'utf8');
  return { from: { text }, executable: false, bytes: bytes.length, sha256: sha256(bytes), declared };
};

/** A `workspace:` or `files:` declaration's files: a folder's, a list of files', or an inline map's; each problem added to `problems`. */
export function readFixtureFiles(
  decl: string | readonly string[] | Record<string, string>,
  place: DeclarationPlace,
  problems: ProblemList,
): FixtureFile[] {
  const files =
    typeof decl === 'string'
      ? folderOf(decl, place, problems)
      : Array.isArray(decl)
        ? listedFiles(decl, place, problems)
        : inlineFiles(decl as Record<string, string>, place, problems);
  return files.filter((f) => {
    const broken = sealProblem(f.path, place.seal);
    if (broken)
      problems.add({
        ...f.declared,
        what: broken,
        todo: 'rename or move it (the instruction file is `instructions:`, the skills are the family)',
      });
    return !broken;
  });
}

function folderOf(decl: string, place: DeclarationPlace, problems: ProblemList): FixtureFile[] {
  const folder = sourcePath(decl, 'folder', place, problems);
  return folder === undefined ? [] : folderFiles(folder, place.locate(), place.cwd, problems);
}

/** A file's content as a fixture, or undefined (a problem added) past the cap a trial may be handed. */
function fileContent(file: string, given: string, declared: Declared, problems: ProblemList, todo: string): FixtureContent | undefined {
  const stats = statSync(file);
  if (stats.size > FIXTURE_CAP_BYTES) {
    problems.add({
      ...declared,
      what: `${given} is ${megabytes(stats.size)}, over the ${megabytes(FIXTURE_CAP_BYTES)} a trial may be handed`,
      todo,
    });
    return undefined;
  }
  return { from: { file }, executable: (stats.mode & 0o111) !== 0, bytes: stats.size, sha256: sha256(readFileSync(file)), declared };
}

/** A list of files (each relative to the file naming it), each landing at the workspace root under its own name. */
function listedFiles(decl: readonly string[], place: DeclarationPlace, problems: ProblemList): FixtureFile[] {
  const byName = new Map<string, string>();
  return decl.flatMap((given, i) => {
    const at = { ...place, locate: () => place.locate(String(i)) };
    const file = sourcePath(given, 'file', at, problems);
    if (file === undefined) return [];
    const path = basename(file);
    const first = byName.get(path);
    if (first !== undefined) {
      problems.add({ ...at.locate(), what: `${given} and ${first} would both land at ${path}`, todo: 'rename one of them, or list one' });
      return [];
    }
    byName.set(path, given);
    const content = fileContent(file, given, at.locate(), problems, 'list a smaller file');
    return content ? [{ path, ...content }] : [];
  });
}

function inlineFiles(decl: Record<string, string>, place: DeclarationPlace, problems: ProblemList): FixtureFile[] {
  return Object.entries(decl).flatMap(([key, text]) => {
    const to = destination(key);
    if ('what' in to) {
      problems.add({ ...place.locate(key), ...to });
      return [];
    }
    return [{ path: to.path, ...inline(text, place.locate(key)) }];
  });
}

/** An `instructions:` declaration's content: a file's bytes, or the text given; undefined (a problem added) when unreadable. */
export function readInstructions(
  decl: string | { text: string },
  place: DeclarationPlace,
  problems: ProblemList,
): FixtureContent | undefined {
  if (typeof decl !== 'string') return inline(decl.text, place.locate());
  const file = sourcePath(decl, 'file', place, problems);
  const content = file === undefined ? undefined : fileContent(file, decl, place.locate(), problems, 'shorten it');
  // An instruction file is read, never run: its mode bit is not kept.
  return content && { ...content, executable: false };
}

/** The hash of a case's fixtures: each file's path, mode bit and bytes' hash in path order, then the instruction file's. */
const fixturesHash = (f: Fixtures): string =>
  valueHash({
    files: [...f.files]
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((file) => [file.path, file.executable, file.sha256]),
    instructions: f.instructions?.sha256,
  });

/**
 * A case's fixtures: the suite's files with the case's over them (a case's file of a suite file's path replaces it),
 * the case's instruction file in place of the suite's. Refused: a path that is a file in one and a folder in the
 * other, and a total past the cap. Undefined when the case has none.
 */
export function caseFixtures(suite: Fixtures, own: Fixtures, where: Declared, problems: ProblemList): CaseFixtures | undefined {
  const byPath = new Map<string, FixtureFile>();
  for (const f of [...suite.files, ...own.files]) byPath.set(f.path, f);
  const files = [...byPath.values()];
  const instructions = own.instructions ?? suite.instructions;
  if (!files.length && !instructions) return undefined;
  let ok = true;
  for (const f of files) {
    const parts = f.path.split('/');
    const folder = parts
      .slice(1)
      .map((_, i) => parts.slice(0, i + 1).join('/'))
      .find((p) => byPath.has(p));
    if (folder === undefined) continue;
    ok = false;
    problems.add({
      ...f.declared,
      what: `${f.path} needs ${folder} to be a folder, but ${folder} is a file of the fixtures too`,
      todo: 'rename one of them',
    });
  }
  const total = files.reduce((sum, f) => sum + f.bytes, 0) + (instructions?.bytes ?? 0);
  if (total > FIXTURE_CAP_BYTES) {
    ok = false;
    problems.add({
      ...where,
      what: `this case's fixtures (the suite's workspace, its own files and the instruction file) come to ${megabytes(total)}, over the ${megabytes(FIXTURE_CAP_BYTES)} a trial may be handed`,
      todo: 'keep only the files its prompt needs',
    });
  }
  if (!ok) return undefined;
  const fixtures = { files, ...(instructions ? { instructions } : {}) };
  return { ...fixtures, hash: fixturesHash(fixtures) };
}

/** The hash of a suite's fixtures, over every case that has any (by id); undefined for a suite without fixtures. */
export function suiteFixturesHash(cases: readonly { id: string; fixtures?: { hash: string } }[]): string | undefined {
  const withFixtures = cases.filter((c) => c.fixtures).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (!withFixtures.length) return undefined;
  return valueHash(withFixtures.map((c) => [c.id, c.fixtures!.hash]));
}

/**
 * Why a fixture's path would break the trial's seal, or undefined: a path through a folder a CLI reads skills,
 * settings or hooks from (a skill outside the family, a permission opened), or an instruction file under any name a
 * CLI reads (only `instructions:` writes one, under the CLI's own name). Compared ignoring case, as on macOS.
 */
export function sealProblem(path: string, reserved: FixtureSeal): string | undefined {
  const parts = path.toLowerCase().split('/');
  const folder = reserved.folders.find((f) => parts.includes(f.toLowerCase()));
  if (folder) return `${path} lands in ${folder}, a folder an agent CLI reads skills or settings from`;
  const instructions = reserved.instructionFiles.find((f) => parts.includes(f.toLowerCase()));
  if (instructions) return `${path} is named like ${instructions}, an instruction file an agent CLI reads`;
  return undefined;
}
