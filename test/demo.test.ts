import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ROOT, runCli } from './helpers.js';
import type { Results } from '../src/run/schema.js';

/**
 * `npm run demo` as a newcomer runs it (without the build): the repo's example suite through the real CLI against
 * the simulator. Its report must show every kind of finding the product makes, so the demo stays worth watching.
 */
describe('the demo', () => {
  const out = mkdtempSync(join(tmpdir(), 'sp-demo-'));
  let results: Results;
  let stdout: string;
  let exitCode: number | undefined;

  beforeAll(async () => {
    const r = await runCli(['run', '--sim', 'sim/demo.profile.yaml', '--no-gate', '--transcripts', out], { cwd: ROOT, timeoutMs: 600_000 });
    exitCode = r.exitCode;
    stdout = r.stdout;
    results = JSON.parse(readFileSync(join(out, readdirSync(out)[0]!, 'results.json'), 'utf8')) as Results;
  }, 600_000);

  afterAll(() => cleanup(out));

  it('exits 0 (gate off) and says what the gate would have said', () => {
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/gate off \(--no-gate\): the verdicts' exit code would be 1/);
  });

  it('stays small: about a hundred trials', () => {
    expect(results.outcomes.length).toBeLessThanOrEqual(130);
  });

  it('decides every case by its sequential design, PASS and FAIL, none left INCONCLUSIVE, each with its adjusted rate', () => {
    const verdicts = results.verdicts.map((v) => v.verdict);
    expect(verdicts).toContain('PASS');
    expect(verdicts).toContain('FAIL');
    expect(verdicts.filter((v) => v === 'INCONCLUSIVE')).toHaveLength(0);
    for (const v of results.verdicts) {
      expect(v.mode).toBe('sequential');
      expect(v.decidedAt).toBeLessThanOrEqual(v.design!.maxTrials);
      expect(v.design!.alpha).toBeLessThanOrEqual(v.params.alpha);
      expect(v.design!.beta).toBeLessThanOrEqual(v.params.beta);
      expect(v.estimate!.lower).toBeLessThanOrEqual(v.estimate!.rate);
      expect(v.estimate!.rate).toBeLessThanOrEqual(v.estimate!.upper);
    }
  });

  it('shows a sibling stealing a case, in the confusion matrix', () => {
    const m = results.summary.confusion;
    const notMembers = ['none', 'multiple', 'other'];
    const stolen = m.rows.filter((row) => row !== 'none').flatMap((row) => m.columns.filter((col) => col !== row && !notMembers.includes(col) && m.cells[row]![col]!.successes > 0));
    expect(stolen.length).toBeGreaterThan(0);
  });

  it('shows a plan failure: the expected skill fired, the plan was wrong', () => {
    expect(results.outcomes.some((o) => o.arm === 'skill' && o.fired === 'expected' && o.plan?.pass === false)).toBe(true);
  });

  it('shows an ablation difference that McNemar’s test calls significant', () => {
    expect(results.summary.ablation.some((a) => a.difference.diff > 0 && a.pValue < 0.05)).toBe(true);
  });
});
