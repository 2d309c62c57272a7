import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { cleanup, runInProcess, testEnv } from './helpers.js';
import { judgedRunFolder } from './judged-run-fixture.js';

/** Judged run folders written by hand, as if simulated, for rejudge's tests; removed after the file that made them. */
const roots: string[] = [];
afterAll(() => cleanup(...roots));

/** A fresh judged run folder, damaged by `damage`; the project root it is in, and the run folder. */
export async function damagedRun(damage: (run: { root: string; dir: string; step: string }) => void, reply?: () => string) {
  const root = mkdtempSync(join(tmpdir(), 'sp-rejudge-'));
  roots.push(root);
  const run = await judgedRunFolder(root, reply ? { reply } : {});
  damage({ root, ...run });
  return { root, dir: run.dir };
}

export const rejudge = (root: string, dir: string, ...more: string[]) =>
  runInProcess(['rejudge', dir, '--sim', 'sim.yaml', ...more], { cwd: root, env: testEnv() });
