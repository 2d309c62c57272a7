import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, makeProject, runCli, testEnv } from './helpers.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));
const env = testEnv();
const read = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const onlyRun = (dir: string) => join(dir, readdirSync(dir)[0]!);

/** One case the simulated model always gets right: a base at its default design ends after a handful of trials. */
function project(): string {
  const dir = makeProject({
    ...baseProject(),
    'cases/main.yaml': ['- id: pos-alpha', '  prompt: "please create an alpha record"', '  expect: { skill: alpha }', ''].join('\n'),
    'sim.yaml': ['seed: 7', 'rules:', '  - case: pos-alpha', '    do: [{ skill: alpha, args: "create" }]', ''].join('\n'),
    // Through Codex, the real CLI that starts cheapest (about a third of Claude Code's CPU a trial): topping up is the
    // harness's own; the demo's canary goes through Claude Code.
    'skillprobe.config.yaml': 'agent: codex\n',
  });
  dirs.push(dir);
  return dir;
}

const RUN = ['run', '--sim', 'sim.yaml', '--arms', 'skill'];

describe('run --baseline --top-up-baseline through the real CLI and the simulator', () => {
  it('tops a default-design base up to the size --for-baseline prescribes, in its own folder, then the canary decides against it', async () => {
    const dir = project();
    // One trial at a time: every trial the base stored is one its design counted.
    const made = await runCli([...RUN, '--concurrency', '1', '--draw-seed', '7', '--transcripts', 'base'], {
      cwd: dir,
      env,
      timeoutMs: 240_000,
    });
    expect(made.exitCode).toBe(0);
    const baseDir = onlyRun(join(dir, 'base'));
    const before = read<Results>(join(baseDir, 'results.json')).outcomes.length;
    // A drop of 0.5 in one case: --for-baseline would run 24 trials, more than the design's handful.
    expect(before).toBeLessThan(24);

    const canary = await runCli(
      [...RUN, '--concurrency', '2', '--transcripts', 'canary', '--baseline', baseDir, '--margin', '0.5', '--top-up-baseline'],
      {
        cwd: dir,
        env,
        timeoutMs: 480_000,
      },
    );
    expect(canary.stderr).not.toMatch(/internal error|input error/);
    expect(canary.stderr).toContain(
      `topping up the base first (--top-up-baseline): it lacks trials of the 24 per case a canary needs (pos-alpha ${24 - before}); it takes ${24 - before} more in its one case`,
    );
    // The base grew in its own folder, by the trials it lacked, after its design stopped it.
    const base = read<RunManifest>(join(baseDir, 'run.json'));
    expect(base).toMatchObject({ status: 'completed', topUps: [24 - before] });
    expect(read<Results>(join(baseDir, 'results.json')).outcomes).toHaveLength(24);
    // The canary was drawn against the larger base, no longer bounded by it, and decided.
    const candidate = read<RunManifest>(join(onlyRun(join(dir, 'canary')), 'run.json'));
    expect(candidate.canary?.cases[0]).toMatchObject({ caseId: 'pos-alpha', base: { trials: 24, passes: 24 }, baseAdded: 24 - before });
    expect(canary.stderr).not.toMatch(/the base's trials bound/);
    expect(canary.stdout).toMatch(/pos-alpha\s+24\/24\s+\d+\/\d+\s+.*canary\s+UNCHANGED/);
    expect(canary.exitCode).toBe(0);
  }, 900_000);
});
