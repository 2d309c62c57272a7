import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { costBreakdown } from '../src/report/cost.js';
import { REPORTERS } from '../src/report/registry.js';
import { syntheticRun } from './run-fixtures.js';

// a: 18 of 20 pass (INCONCLUSIVE at p0 0.9 with 20 fixed trials), b: 2 of 10 (FAIL), c: 30 of 30 (PASS); each trial $0.01, 500 ms.
const run = syntheticRun({ a: { passes: 18, n: 20 }, b: { passes: 2, n: 10 }, c: { passes: 30, n: 30 } });
const input = { manifest: run.manifest, results: run.results, runDir: 'runs/r1' };

describe('cost: in all, per case, per verdict', () => {
  it('sums the reported costs and the trials\' own wall times', () => {
    const cost = costBreakdown(run.results);
    expect(cost.total).toEqual({ trials: 60, costUsd: expect.closeTo(0.6, 10), wallMs: 30_000 });
    expect(cost.byCase.map((k) => [k.caseId, k.trials, k.verdict])).toEqual([
      ['a', 20, run.results.verdicts[0]!.verdict],
      ['b', 10, 'FAIL'],
      ['c', 30, 'PASS'],
    ]);
    // In the verdicts' own order, each verdict once.
    const verdicts = cost.byVerdict.map((v) => v.verdict);
    expect(verdicts).toEqual([...new Set(verdicts)]);
    expect(cost.byVerdict.reduce((s, v) => s + v.trials, 0)).toBe(60);
    expect(cost.byVerdict.find((v) => v.verdict === 'FAIL')?.costUsd).toBeCloseTo(0.1, 10);
  });

  it('is absent when the CLI reported no cost', () => {
    const free = { ...run.results, outcomes: run.results.outcomes.map(({ costUsd: _cost, ...o }) => o) };
    expect(costBreakdown(free).total.costUsd).toBeUndefined();
    expect(REPORTERS.terminal({ colour: false }).render({ ...input, results: free })).not.toContain('COST');
    expect(REPORTERS.markdown({ colour: false }).render({ ...input, results: free })).not.toContain('Cost:');
  });

  it('every report for people shows it: terminal, markdown and html', () => {
    const terminal = stripVTControlCharacters(REPORTERS.terminal({ colour: false }).render(input));
    expect(terminal).toMatch(/COST · \$0\.600 reported by the CLI for 60 trials · 30 s of trial time/);
    expect(terminal).toMatch(/FAIL cases\s+10\s+\$0\.100/);
    const markdown = REPORTERS.markdown({ colour: false }).render(input);
    expect(markdown).toContain('<summary>Cost: $0.600 for 60 trials, 30 s of trial time</summary>');
    expect(markdown).toMatch(/\| c \| 30 \| \$0\.300 \| 15 s \|/);
    const page = REPORTERS.html({ colour: false }).render(input);
    expect(page).toMatch(/id="cost"[^]*\$0\.600 for 60 trials/);
  });
});
