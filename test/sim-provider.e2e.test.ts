import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { RunningSimulator } from '../src/sim/server.js';
import { baseProject, cleanup, makeProject, runInProcess } from './helpers.js';
import { of, resultsOf, storedTrial } from './e2e-scenarios.js';

/** Every simulator a run in this process starts, so the test can read its counters after the run stopped it. */
const started = vi.hoisted(() => [] as RunningSimulator[]);
vi.mock('../src/sim/server.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/sim/server.js')>();
  return {
    ...real,
    startSimulator: async (...args: Parameters<typeof real.startSimulator>) => {
      const sim = await real.startSimulator(...args);
      started.push(sim);
      return sim;
    },
  };
});

describe('end to end: the real Claude Code CLI over a concurrency cap of 1', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('429s with Retry-After over the cap: Claude Code retries them (api_retry), every trial ends ok, the simulator counted them', async () => {
    const dir = makeProject({
      ...baseProject(),
      'skillprobe.config.yaml': 'retries:\n  cli: 2\n',
      'sim.yaml': [
        'seed: 11',
        'rules:',
        '  - case: pos-alpha',
        '    do: [{ skill: alpha, args: create }]',
        'provider:',
        '  concurrency: 1',
        // A second long enough that CLIs started a moment apart on a loaded machine still overlap, and short enough
        // that Retry-After (the seconds until the slot frees) stays 1.
        '  latency: { medianMs: 1000 }',
        '',
      ].join('\n'),
    });
    dirs.push(dir);
    started.length = 0;
    const r = await runInProcess(
      ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--trials', '2', '--concurrency', '3', '--transcripts', 'runs'],
      {
        cwd: dir,
      },
    );
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const refs = ['pos-alpha', 'neg-weather'].flatMap((c) => [1, 2].map((n) => join(runDir, 'trials', c, 'skill', `${n}.jsonl`)));
    const trials = ['pos-alpha', 'neg-weather'].flatMap((c) => [1, 2].map((n) => storedTrial(parseClaudeStream, runDir, c, 'skill', n)));
    // Every trial ended as the CLI's own success, and its case passed.
    expect(trials.map((t) => t.meta.exitCode)).toEqual([0, 0, 0, 0]);
    expect(resultsOf(runDir).outcomes.map((o) => o.passed)).toEqual([true, true, true, true]);
    const retries = trials.flatMap((t) => of(t.t, 'error').filter((e) => e.retrying));
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((e) => e.errorKind === 'rate_limit' && e.httpStatus === 429)).toBe(true);
    // Claude Code waits what Retry-After says (here 1 s) plus up to 25% jitter (2.1.332; 2.1.197 waited exactly 1 s), or
    // its own backoff when that is longer (at most 1.25 s on a second attempt): never less, never more.
    const raw = refs.flatMap((f) => readFileSync(f, 'utf8').split('\n'));
    const waits = raw
      .filter((l) => l.includes('"api_retry"'))
      .map((l) => JSON.parse(l) as { retry_delay_ms: number; error_status: number });
    expect(waits.length).toBe(retries.length);
    expect(waits.every((w) => w.error_status === 429 && w.retry_delay_ms >= 1000 && w.retry_delay_ms <= 1250)).toBe(true);
    // Each api_retry answers one 429; a trial whose CLI spent its retries was re-run by the harness (retries.infra), and
    // only its last attempt is stored, so the simulator may have counted more.
    const [sim] = started;
    expect(sim!.stats).toMatchObject({ overloaded: 0, maxInFlight: 1 });
    expect(sim!.stats.rateLimited).toBeGreaterThanOrEqual(retries.length);
    // The run completed (exit 3: two trials per case decide nothing, which is not what this test is about).
    expect(JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'))).toMatchObject({ status: 'completed', trials: { finished: 4 } });
    expect(r.exitCode).toBe(3);
  }, 60_000);
});
