import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsSchema } from '../src/run/schema.js';
import { baseProject, projectsRemovedAfterAll, runCli } from './helpers.js';

/**
 * `concurrency: auto` through the real Claude Code CLI against a simulator that limits like a provider: one request
 * in flight per key, HTTP 429 with Retry-After beyond it. The limit starts at a trial per core, grows while the pool is used, is cut on
 * the 429s the CLI met, records why, and no trial is scored from a rate-limited attempt that gave up.
 */
describe('concurrency: auto against a rate-limited provider', () => {
  const project = projectsRemovedAfterAll(() => ({
    ...baseProject(),
    'sim.yaml': 'seed: 3\nprovider:\n  concurrency: 1\n  retryAfterSeconds: 1\n  latency: { medianMs: 600, p95Ms: 1200 }\n',
    'skillprobe.config.yaml': 'retries:\n  cli: 3\n',
  }));

  it('cuts the limit on HTTP 429, says so once per change, records the trace, and scores no rate-limited attempt', async () => {
    const dir = project();
    const r = await runCli(
      ['run', '--sim', 'sim.yaml', '--concurrency', 'auto', '--trials', '4', '--arms', 'skill', '--transcripts', 'runs'],
      {
        cwd: dir,
        timeoutMs: 240_000,
      },
    );
    expect([0, 1, 3, 4], r.stderr).toContain(r.exitCode);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const results = resultsSchema.parse(JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')));
    const trace = results.run.concurrency?.trace ?? [];
    expect(trace.length, r.stderr).toBeGreaterThanOrEqual(1);
    const cuts = trace.filter((c) => /^HTTP 429/.test(c.why));
    expect(cuts.length, r.stderr).toBeGreaterThanOrEqual(1);
    for (const cut of cuts) expect(cut.to).toBeLessThan(cut.from);
    for (const change of trace) expect(r.stderr).toContain(`concurrency ${change.from} → ${change.to}: ${change.why}`);
    // A trial whose CLI gave up on 429s carries no evidence: never a pass or a miss.
    for (const o of results.outcomes) if (o.status !== 'ok') expect(o.passed).toBeNull();
    expect(results.outcomes.filter((o) => o.status === 'ok').length).toBeGreaterThan(0);
  }, 240_000);
});
