import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removedAfterFile, runInProcess, testEnv } from './helpers.js';
import { judgedRunFolder } from './judged-run-fixture.js';

/** A fresh judged run folder, damaged by `damage`; the project root it is in, and the run folder. */
export async function damagedRun(damage: (run: { root: string; dir: string; step: string }) => void, reply?: () => string) {
  // Judged run folders written by hand, as if simulated, for rejudge's tests.
  const root = removedAfterFile(mkdtempSync(join(tmpdir(), 'sp-rejudge-')));
  const run = await judgedRunFolder(root, reply ? { reply } : {});
  damage({ root, ...run });
  return { root, dir: run.dir };
}

export const rejudge = (root: string, dir: string, ...more: string[]) =>
  runInProcess(['rejudge', dir, '--sim', 'sim.yaml', ...more], { cwd: root, env: testEnv() });
