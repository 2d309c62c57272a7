import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, makeProject, runInProcess, testEnv } from './helpers.js';

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
    // Through Codex, the real CLI that starts cheapest (about a third of Claude Code's CPU a trial), and skillprobe in
    // this process: topping up is the harness's own; the demo's canary goes through Claude Code.
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
    const made = await runInProcess([...RUN, '--concurrency', '1', '--draw-seed', '7', '--transcripts', 'base'], { cwd: dir, env });
    expect(made.exitCode).toBe(0);
    const baseDir = onlyRun(join(dir, 'base'));
    const before = read<Results>(join(baseDir, 'results.json')).outcomes.length;
    // A drop of 0.65 in one case: --for-baseline would run 14 trials, more than the design's handful (7 straight passes),
    // and a base of that handful bounds the canary's cap.
    const prescribed = 14;
    expect(before).toBeLessThan(prescribed);

    const canary = await runInProcess(
      [...RUN, '--concurrency', '2', '--transcripts', 'canary', '--baseline', baseDir, '--margin', '0.65', '--top-up-baseline'],
      { cwd: dir, env },
    );
    expect(canary.stderr).not.toMatch(/internal error|input error/);
    expect(canary.stderr).toContain(
      `topping up the base first (--top-up-baseline): it lacks trials of the ${prescribed} per case a canary needs (pos-alpha ${prescribed - before}); it takes ${prescribed - before} more in its one case`,
    );
    // The base grew in its own folder, by the trials it lacked, after its design stopped it.
    const base = read<RunManifest>(join(baseDir, 'run.json'));
    expect(base).toMatchObject({ status: 'completed', topUps: [prescribed - before] });
    expect(read<Results>(join(baseDir, 'results.json')).outcomes).toHaveLength(prescribed);
    // The canary was drawn against the larger base, no longer bounded by it, and decided.
    const candidate = read<RunManifest>(join(onlyRun(join(dir, 'canary')), 'run.json'));
    expect(candidate.canary?.cases[0]).toMatchObject({
      caseId: 'pos-alpha',
      base: { trials: prescribed, passes: prescribed },
      baseAdded: prescribed - before,
    });
    expect(canary.stderr).not.toMatch(/the base's trials bound/);
    expect(canary.stdout).toMatch(new RegExp(`pos-alpha\\s+${prescribed}/${prescribed}\\s+\\d+/\\d+\\s+.*canary\\s+UNCHANGED`));
    expect(canary.exitCode).toBe(0);
  }, 900_000);
});
