import { cp, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../util/input-error.js';
import { isWithin, unwritableFolder } from '../util/paths.js';
import { familyHash, type Skill } from '../load/skills.js';
import { createOwnedFolder } from './owner.js';

export interface SealedWorkspace {
  /** The agent's working directory: a fresh git root holding the family (skill arm only) and the declared neighbours. */
  dir: string;
  /** A fresh HOME, so no user-level skills, settings or usage counters leak in. */
  home: string;
  /** A fresh TMPDIR, so nothing the CLI leaves in temp outlives the trial or meets another trial's. */
  tmp: string;
  /** The harness's own files for this trial (the CLI's config, policy), beside the workspace, not inside it. */
  harnessDir: string;
  /** The hash of the skills copied in (the family's, as `familyHash` takes it), none in a workspace without skills. */
  skillsHash?: string;
  root: string;
  cleanup(): Promise<void>;
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** Ancestors of `start` (itself included) holding any of `names`: what the agent CLI would load into a trial. */
export async function leakingAncestors(start: string, names: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  let d = resolve(start);
  for (;;) {
    for (const name of names) {
      const p = join(d, name);
      if (await exists(p)) found.push(p);
    }
    const up = dirname(d);
    if (up === d) return found;
    d = up;
  }
}

export class WorkspaceRootError extends Error {}

/**
 * Makes `dir` the root of an empty git repository, which stops the CLI's upward walk for skills. Written directly
 * (HEAD, objects/, refs/: what git itself needs to recognise a repository) because spawning `git init` per trial
 * costs a process start on the trial's critical path; `git rev-parse` accepts the result (tested).
 */
export async function initGitRoot(dir: string): Promise<void> {
  const git = join(dir, '.git');
  await mkdir(join(git, 'objects'), { recursive: true });
  await mkdir(join(git, 'refs', 'heads'), { recursive: true });
  await writeFile(join(git, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(git, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
}

/**
 * The workspace root must be an existing, writable folder: `--workdir` when given, else the system temp folder
 * (TMPDIR), which Node reports as set even when the folder is missing.
 */
function checkRootFolder(root: string | undefined, where: string): void {
  const unusable = unwritableFolder(where, { mustExist: true });
  if (!unusable) return;
  throw new InputError(
    root
      ? { file: '--workdir', what: unusable, todo: 'pass an existing folder you can write to' }
      : {
          file: process.env.TMPDIR ? 'TMPDIR' : 'the system temp folder',
          what: unusable,
          todo: 'create it, point TMPDIR at a folder you can write to, or pass --workdir DIR',
        },
  );
}

/** Checks the workspace root once per run, before anything is created; a leak there would contaminate every trial. */
export async function checkWorkspaceRoot(root: string | undefined, names: readonly string[]): Promise<void> {
  const where = root ?? tmpdir();
  checkRootFolder(root, where);
  const leaks = await leakingAncestors(where, names);
  if (leaks.length) {
    throw new WorkspaceRootError(
      `the workspace root ${where} has ${leaks.join(', ')} above it, which the agent would load into every trial — set --workdir (or TMPDIR) to a folder with no ${names.join(' or ')} above it`,
    );
  }
}

/**
 * Copies a skill folder to `to` as a trial gets it. dereference: a symlink in a skill becomes a regular copy, never a
 * live link to the user's original. Loading refused links out of the folder; one made since then is not followed either.
 */
export async function copySkill(s: Pick<Skill, 'path'>, to: string): Promise<void> {
  const skillRoot = await realpath(s.path);
  const staysIn = async (src: string) => isWithin(await realpath(src), skillRoot);
  await cp(s.path, to, { recursive: true, dereference: true, filter: staysIn });
}

export async function createSealedWorkspace(opts: {
  root?: string;
  skills: Skill[];
  /** The user's other skills, installed beside the family (the loaders keep their names apart). */
  neighbours?: Skill[];
  skillsFolder: string;
}): Promise<SealedWorkspace> {
  const root = await createOwnedFolder(opts.root ?? tmpdir());
  const cleanup = () => rm(root, { recursive: true, force: true });
  try {
    const dir = join(root, 'ws');
    const home = join(root, 'home');
    const tmp = join(root, 'tmp');
    const harnessDir = join(root, 'harness');
    for (const d of [dir, home, tmp, harnessDir]) await mkdir(d);
    await initGitRoot(dir);
    for (const s of [...opts.skills, ...(opts.neighbours ?? [])]) await copySkill(s, join(dir, opts.skillsFolder, s.dir));
    return { dir, home, tmp, harnessDir, root, cleanup, ...(opts.skills.length ? { skillsHash: familyHash(opts.skills) } : {}) };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
