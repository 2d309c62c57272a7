import { expect } from 'vitest';
import type { ArmCostMetric, Results, TrialOutcome } from '../src/run/schema.js';

/**
 * results.json's per-arm table recalculated from its own trials, with none of the code that made it: the means by
 * hand, Welch's standard error and degrees of freedom by their formulas, and the t quantile bracketed by a printed
 * table of Student's t. Every case's arms and differences, and every skill's line, must agree.
 */

// The 97.5% points of Student's t by whole df (1–30, 40, 60, 120), from any printed table; ∞: the normal's.
const T_975: [number, number][] = [
  [1, 12.706],
  [2, 4.303],
  [3, 3.182],
  [4, 2.776],
  [5, 2.571],
  [6, 2.447],
  [7, 2.365],
  [8, 2.306],
  [9, 2.262],
  [10, 2.228],
  [11, 2.201],
  [12, 2.179],
  [13, 2.16],
  [14, 2.145],
  [15, 2.131],
  [16, 2.12],
  [17, 2.11],
  [18, 2.101],
  [19, 2.093],
  [20, 2.086],
  [21, 2.08],
  [22, 2.074],
  [23, 2.069],
  [24, 2.064],
  [25, 2.06],
  [26, 2.056],
  [27, 2.052],
  [28, 2.048],
  [29, 2.045],
  [30, 2.042],
  [40, 2.021],
  [60, 2.0],
  [120, 1.98],
  [Infinity, 1.96],
];

/** The t quantile at `df` lies between the table's entries on either side (t falls as df grows). */
function tBracket(df: number): [number, number] {
  const above = T_975.find(([d]) => d >= df)!;
  const below = T_975.findLast(([d]) => d <= df) ?? T_975[0]!;
  return [above[1] - 0.001, below[1] + 0.001];
}

const NO_EVIDENCE = new Set(['infra_error', 'isolation_error', 'agent_error', 'killed', 'output_too_large']);

const valueOf: Record<ArmCostMetric, (o: TrialOutcome) => number | undefined> = {
  input: (o) => o.usage?.input,
  cached: (o) => o.usage?.cached,
  output: (o) => o.usage?.output,
  costUsd: (o) => o.costUsd,
  wallMs: (o) => o.wallMs,
  requests: (o) => o.requests,
};

function values(results: Results, caseId: string, arm: string, metric: ArmCostMetric): number[] {
  return results.outcomes
    .filter((o) => o.caseId === caseId && o.arm === arm && !NO_EVIDENCE.has(o.status))
    .flatMap((o) => {
      const x = valueOf[metric](o);
      return x === undefined ? [] : [x];
    });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** s²/n: the variance of a sample's mean. */
const varianceOfMean = (xs: number[]) => xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length;

/** A difference's interval checked against Welch's formulas over `parts` (each arm's sample, with its weight). */
function expectWelch(d: { diff: number; lo: number; hi: number }, parts: { weight: number; xs: number[] }[]) {
  const estimate = parts.reduce((a, p) => a + p.weight * mean(p.xs), 0);
  expect(d.diff).toBeCloseTo(estimate, 6);
  const v = parts.map((p) => ({ v: p.weight ** 2 * varianceOfMean(p.xs), df: p.xs.length - 1 }));
  const se = Math.sqrt(v.reduce((a, p) => a + p.v, 0));
  if (se === 0) {
    expect([d.lo, d.hi]).toEqual([d.diff, d.diff]);
    return;
  }
  const df = se ** 4 / v.reduce((a, p) => a + p.v ** 2 / p.df, 0);
  const [lo, hi] = tBracket(df);
  expect((d.hi - d.lo) / 2 / se).toBeGreaterThanOrEqual(lo);
  expect((d.hi - d.lo) / 2 / se).toBeLessThanOrEqual(hi);
  expect((d.hi + d.lo) / 2).toBeCloseTo(d.diff, 6);
}

/** Checks results.json's `armCosts` against its trials; returns how many numbers it checked. */
export function expectArmCostsRecalculated(results: Results): number {
  const costs = results.armCosts!;
  expect(costs.confidence).toBe(0.95);
  let checked = 0;
  for (const row of costs.cases) {
    for (const a of row.arms) {
      for (const [metric, m] of Object.entries(a.metrics) as [ArmCostMetric, { n: number; mean: number }][]) {
        const xs = values(results, row.caseId, a.arm, metric);
        expect([metric, m.n]).toEqual([metric, xs.length]);
        expect(m.mean).toBeCloseTo(mean(xs), 6);
        checked++;
      }
    }
    for (const [metric, d] of Object.entries(row.difference) as [ArmCostMetric, { diff: number; lo: number; hi: number }][]) {
      expectWelch(d, [
        { weight: 1, xs: values(results, row.caseId, 'skill', metric) },
        { weight: -1, xs: values(results, row.caseId, 'ablation', metric) },
      ]);
      checked++;
    }
  }
  for (const s of costs.skills) {
    const d = s.difference.input;
    if (!d) continue;
    const w = 1 / s.cases.length;
    expectWelch(
      d,
      s.cases.flatMap((caseId) => [
        { weight: w, xs: values(results, caseId, 'skill', 'input') },
        { weight: -w, xs: values(results, caseId, 'ablation', 'input') },
      ]),
    );
    checked++;
  }
  return checked;
}
