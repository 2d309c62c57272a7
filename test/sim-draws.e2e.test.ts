import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, makeProject, runInProcess } from './helpers.js';

/**
 * The simulator's draws are a run's own: two runs of one profile draw independently (each a fresh seed, kept in
 * run.json), and only runs given the same `--draw-seed` share their draws trial for trial (common random numbers).
 * Through the real CLI: the seed must reach the simulator with each trial's identity.
 */
const TRIALS = 16;

describe('simulator draws across runs', () => {
  const project = makeProject({
    ...baseProject(),
    'cases/main.yaml': '- id: c\n  prompt: "please create an alpha record"\n  expect: { skill: alpha }\n',
    // Through Codex, the real CLI that starts cheapest (about a third of Claude Code's CPU a trial); every Claude Code
    // run pinned with --draw-seed (the demo's) carries its trials' identity the same way.
    'skillprobe.config.yaml': 'agent: codex\n',
    'sim.yaml':
      'seed: 3\nrules:\n  - case: c\n    do:\n      - { p: 0.5, skill: alpha, args: "create" }\n      - { p: 0.5, answer: "no" }\n',
  });
  afterAll(() => cleanup(project));

  let n = 0;
  /** One run of the coin case, TRIALS trials: each trial's outcome in order, and what run.json says of its draws. */
  async function run(extra: string[] = []) {
    const out = `runs-${++n}`;
    const r = await runInProcess(
      [
        'run',
        '--sim',
        'sim.yaml',
        '--arms',
        'skill',
        '--trials',
        String(TRIALS),
        '--concurrency',
        '4',
        '--no-gate',
        '--transcripts',
        out,
        ...extra,
      ],
      { cwd: project },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const dir = join(project, out, readdirSync(join(project, out))[0]!);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunManifest;
    const passes = [...results.outcomes].sort((a, b) => a.n - b.n).map((o) => o.passed);
    expect(passes).toHaveLength(TRIALS);
    return { passes, draws: manifest.simulator!.draws!, stderr: r.stderr };
  }

  it('two runs of a profile draw independently; each keeps its fresh seed in run.json', async () => {
    const [a, b] = [await run(), await run()];
    expect(a.draws.given).toBe(false);
    expect(b.draws.given).toBe(false);
    expect(a.draws.seed).not.toBe(b.draws.seed);
    // Identical by chance with probability 2^-16 at most (each trial a fair coin, independently).
    expect(a.passes).not.toEqual(b.passes);
  }, 240_000);

  it('runs given the same --draw-seed share their draws trial for trial, and say so', async () => {
    const [a, b] = [await run(['--draw-seed', '11']), await run(['--draw-seed', '11'])];
    expect(a.draws).toEqual({ seed: 11, given: true });
    expect(a.passes).toEqual(b.passes);
    expect(a.stderr).toMatch(/draws seeded 11 \(--draw-seed: runs given the same seed share their draws trial for trial\)/);
  }, 240_000);

  it('--draw-seed without the simulator is refused', async () => {
    const r = await runInProcess(['run', '--draw-seed', '1'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--draw-seed: seeds the model simulator's draws, and this run has no simulator — add --sim <profile>/);
  });
});
