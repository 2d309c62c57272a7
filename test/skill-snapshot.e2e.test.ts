import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { RunManifest, TrialMeta } from '../src/run/schema.js';
import { baseProject, Captured, projectsRemovedAfterAll, runInProcess, testEnv } from './helpers.js';

const EDIT = '\nEDITED MID-RUN: a later trial must never see this line.\n';

describe('the skills a run tests are the bytes it started with, through a real run', () => {
  const project = projectsRemovedAfterAll(() => ({
    ...baseProject(),
    'sim.yaml': 'seed: 3\nrules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: alpha, args: "create" }\n',
  }));

  it('a SKILL.md edited mid-run: later trials get the starting bytes, every trial records their hash, the edit is named, resume refuses it', async () => {
    const dir = project();
    const skillFile = join(dir, 'skills/alpha/SKILL.md');
    const original = readFileSync(skillFile, 'utf8');
    mkdirSync(join(dir, 'work'));
    // The edit lands when the first trial is reported done, while the rest are still to run (one at a time).
    class EditingOnFirstTrial extends Captured {
      override _write(chunk: Buffer | string, encoding: BufferEncoding, done: () => void): void {
        if (!this.text.includes(EDIT) && /pos-alpha/.test(chunk.toString()) && /\d\/\d/.test(chunk.toString())) {
          appendFileSync(skillFile, EDIT);
          this.text += `${EDIT}`;
        }
        super._write(chunk, encoding, done);
      }
    }
    const [stdout, stderr] = [new Captured(), new EditingOnFirstTrial()];
    const args = ['run', '--sim', 'sim.yaml', '--grep', 'pos-alpha', '--arms', 'skill', '--trials', '4', '--concurrency', '1'];
    const exitCode = await main([...args, '--keep-workspaces', '--workdir', 'work', '--transcripts', 'runs'], {
      stdout,
      stderr,
      env: testEnv(),
      cwd: dir,
    });
    expect(stderr.text).toContain(EDIT);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunManifest;
    const trials = join(runDir, 'trials/pos-alpha/skill');
    const metas = readdirSync(trials)
      .filter((f) => /^\d+\.meta\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(trials, f), 'utf8')) as TrialMeta);
    expect(metas, stderr.text).toHaveLength(4);
    for (const meta of metas) {
      expect(meta.skillsHash).toBe(manifest.skillsHash);
      expect(readFileSync(join(meta.workspace!, '.claude/skills/alpha/SKILL.md'), 'utf8')).toBe(original);
    }
    expect(readFileSync(join(runDir, 'skills/alpha/SKILL.md'), 'utf8')).toBe(original);
    expect(manifest.skillsChangedDuringRun?.map((c) => c.dir)).toEqual(['alpha']);
    expect(stderr.text).toMatch(/skills edited during the run: alpha — every trial got them as they were at its start/);
    expect([0, 1, 3]).toContain(exitCode);

    const report = await runInProcess(['report', runDir], { cwd: dir });
    expect(report.stdout).toMatch(/skills edited during the run: alpha/);
    const resumed = await runInProcess(['run', '--resume', runDir, ...args.slice(1), '--add-trials', '1'], { cwd: dir });
    expect(resumed.exitCode, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(/changed since this run started: skills \(alpha:/);
  }, 120_000);
});
