import { cp, mkdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { dir as tmpDir } from 'tmp-promise';
import type { Skill } from '../load/skills.js';

export interface SealedWorkspace {
  /** The agent's working directory: a fresh git root holding only the family (skill arm) or nothing (ablation). */
  dir: string;
  /** A fresh HOME, so no user-level skills, settings or usage counters leak in. */
  home: string;
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

/** Checks the workspace root once per run; a leak there would contaminate every trial. */
export async function checkWorkspaceRoot(root: string | undefined, names: readonly string[]): Promise<void> {
  const where = root ?? tmpdir();
  const leaks = await leakingAncestors(where, names);
  if (leaks.length) {
    throw new WorkspaceRootError(
      `the workspace root ${where} has ${leaks.join(', ')} above it, which the agent would load into every trial — set --workdir (or TMPDIR) to a folder with no ${names.join(' or ')} above it`,
    );
  }
}

export async function createSealedWorkspace(opts: { root?: string; skills: Skill[]; skillsFolder: string }): Promise<SealedWorkspace> {
  const t = await tmpDir({ prefix: 'skillprobe-', tmpdir: opts.root, unsafeCleanup: true });
  try {
    const dir = join(t.path, 'ws');
    const home = join(t.path, 'home');
    await mkdir(dir);
    await mkdir(home);
    await initGitRoot(dir);
    for (const s of opts.skills) {
      await cp(s.path, join(dir, opts.skillsFolder, s.dir), { recursive: true });
    }
    return { dir, home, root: t.path, cleanup: () => t.cleanup() };
  } catch (e) {
    await t.cleanup();
    throw e;
  }
}
