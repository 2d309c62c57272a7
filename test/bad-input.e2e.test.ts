import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runCli, testEnv, type Files } from './helpers.js';

/** What needs no temp folder, shown on a run that starts the real agent CLI (the rest is in bad-input.test.ts). */
describe('input checks across stages, and what needs no temp folder', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  function project(change: (f: Files) => void): string {
    const files = baseProject();
    change(files);
    const dir = makeProject(files);
    dirs.push(dir);
    return dir;
  }

  it('with TMPDIR missing: run works given --workdir, and --version, report and grade need no temp folder', async () => {
    const dir = project((f) => {
      f['sim.yaml'] = 'seed: 1\nrules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: alpha, args: "create" }\n';
      f['work/.keep'] = '';
    });
    const env = testEnv({ TMPDIR: join(dir, 'no-such-tmp') });
    const run = await runCli(
      ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--trials', '1', '--workdir', 'work', '--transcripts', 'runs'],
      { cwd: dir, env },
    );
    expect([0, 1, 3], run.stderr).toContain(run.exitCode);
    const runDir = join('runs', readdirSync(join(dir, 'runs'))[0]!);
    for (const argv of [['--version'], ['report', runDir], ['grade', runDir]]) {
      const r = await runCli(argv, { cwd: dir, env });
      expect([0, 1, 3], `${argv.join(' ')}: ${r.stderr}`).toContain(r.exitCode);
      expect(r.stderr).not.toMatch(/TMPDIR|ENOENT|internal error/);
    }
  }, 180_000);
});
