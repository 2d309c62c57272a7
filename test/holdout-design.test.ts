import { describe, expect, it } from 'vitest';
import { holdoutSchedule } from '../src/tune/holdout-look.js';
import type { TuneRecord } from '../src/run/tune-schema.js';
import {
  dropPower,
  holdoutBoundaries,
  holdoutOutcome,
  HOLDOUT_DESIGN_DEFAULTS,
  improvedChanceAtLooks,
  lookRounds,
  plannedPower,
  powerAt,
  settling,
  type HoldoutDesign,
} from '../src/tune/holdout-design.js';
import { sequentialVerdict, type RoleComparison } from '../src/tune/holdout.js';

const DESIGN: HoldoutDesign = { alpha: 0.05, ...HOLDOUT_DESIGN_DEFAULTS };

describe('holdoutBoundaries: exact error, never above what the design spends', () => {
  it.each([
    [0.05, 0.2, 0.25, 8],
    [0.05, 0.2, 0.5, 4],
    [0.01, 0.1, 0.25, 8],
    [0.1, 0.2, 0.1, 16],
  ])('α %f, β %f, gain %f, half spent at %i: α and β within their totals at 400 pairs', (alpha, beta, gain, halfSpentAt) => {
    const b = holdoutBoundaries({ alpha, beta, gain, halfSpentAt }, 400);
    expect(b.alpha).toBeLessThanOrEqual(alpha);
    expect(b.beta).toBeLessThanOrEqual(beta);
    // Most of it is spent: the boundaries are not needlessly strict.
    expect(b.alpha).toBeGreaterThan(0.8 * alpha * (400 / (400 + halfSpentAt)) - 0.01);
  });

  it('the crossing chances it states are those of every path, enumerated (14 pairs)', () => {
    const d = { alpha: 0.2, beta: 0.3, gain: 0.4, halfSpentAt: 2 };
    const b = holdoutBoundaries(d, 14);
    // Each path counted once, at the prefix where it first crosses, with that prefix's chance.
    const crossing = (side: 'upper' | 'lower', theta: number) => {
      let total = 0;
      const seen = new Set<string>();
      for (let mask = 0; mask < 2 ** 14; mask++) {
        let [w, p] = [0, 1];
        for (let k = 1; k <= 14; k++) {
          const up = (mask >> (k - 1)) & 1;
          w += up;
          p *= up ? theta : 1 - theta;
          if (side === 'upper' ? w >= b.improveAt[k]! : w <= b.ruledOutAt[k]!) {
            const prefix = `${k}:${mask & ((1 << k) - 1)}`;
            if (!seen.has(prefix)) total += p;
            seen.add(prefix);
            break;
          }
        }
      }
      return total;
    };
    expect(crossing('upper', 0.5)).toBeCloseTo(b.alpha, 12);
    expect(crossing('lower', 0.7)).toBeCloseTo(b.beta, 12);
  });

  it('IMPROVED needs more of the discordant pairs than half, and ruling out needs fewer than (1 + gain)/2', () => {
    const b = holdoutBoundaries(DESIGN, 200);
    for (let d = 1; d <= 200; d++) {
      expect(b.improveAt[d]!).toBeGreaterThan(d / 2);
      if (b.ruledOutAt[d]! >= 0) expect(b.ruledOutAt[d]!).toBeLessThan((d * (1 + DESIGN.gain)) / 2);
    }
  });
});

describe('holdoutOutcome', () => {
  const b = holdoutBoundaries(DESIGN, 40);
  it.each([
    [40, b.improveAt[40]!, 'improved'],
    [40, b.improveAt[40]! - 1, 'continue'],
    [40, b.ruledOutAt[40]!, 'ruled-out'],
    [6, 6, 'improved'],
    [0, 0, 'continue'],
  ] as const)('%i discordant, %i for the winner → %s', (d, w, want) => {
    expect(holdoutOutcome(DESIGN, d, w)).toBe(want);
  });
});

describe('improvedChanceAtLooks: exact, and never above α when the winner is no better', () => {
  it('matches every outcome of two cases over three rounds, enumerated', () => {
    const d = { alpha: 0.3, beta: 0.3, gain: 0.5, halfSpentAt: 1 };
    const cases = [
      { original: 0.2, winner: 0.9 },
      { original: 0.6, winner: 0.5 },
    ];
    // A round: each case's pair is winner-only, original-only or concordant.
    const pair = (c: (typeof cases)[number]) => [
      { d: 1, w: 1, p: c.winner * (1 - c.original) },
      { d: 1, w: 0, p: c.original * (1 - c.winner) },
      { d: 0, w: 0, p: 1 - c.winner * (1 - c.original) - c.original * (1 - c.winner) },
    ];
    let improved = 0;
    const walk = (round: number, dd: number, ww: number, p: number) => {
      if (round > 3) return;
      for (const a of pair(cases[0]!))
        for (const x of pair(cases[1]!)) {
          const [d2, w2, p2] = [dd + a.d + x.d, ww + a.w + x.w, p * a.p * x.p];
          const outcome = holdoutOutcome(d, d2, w2);
          if (outcome === 'improved') improved += p2;
          else if (outcome === 'continue') walk(round + 1, d2, w2, p2);
        }
    };
    walk(1, 0, 0, 1);
    expect(improvedChanceAtLooks(cases, d, 3, () => true)).toBeCloseTo(improved, 12);
  });

  it.each([
    [[0.5, 0.5, 0.5, 0.5], 20],
    [[0.1, 0.9, 0.5], 40],
    [[0.95, 0.95, 0.2, 0.05, 0.6, 0.5], 20],
    [[0.5], 60],
  ])('A/A at rates %o over %i rounds: P(IMPROVED) ≤ α', (rates, rounds) => {
    const cases = rates.map((r) => ({ original: r, winner: r }));
    expect(improvedChanceAtLooks(cases, DESIGN, rounds, () => true)).toBeLessThanOrEqual(DESIGN.alpha);
    expect(powerAt(cases, DESIGN, rounds)).toBeLessThanOrEqual(DESIGN.alpha);
  });

  it('power grows with the cap and with the gain', () => {
    const at = (gain: number) => [
      { original: 0.4, winner: 0.4 + gain },
      { original: 0.4, winner: 0.4 + gain },
      { original: 0.4, winner: 0.4 + gain },
    ];
    expect(powerAt(at(0.25), DESIGN, 20)).toBeGreaterThan(powerAt(at(0.25), DESIGN, 8));
    expect(powerAt(at(0.5), DESIGN, 8)).toBeGreaterThan(powerAt(at(0.25), DESIGN, 8));
  });
});

describe('what an undecided holdout had and would need', () => {
  it('settling: the power at the rounds run, and the fewest rounds that give 1 − β', () => {
    const s = settling([0.3, 0.4, 0.5], DESIGN, 6, 60);
    const cases = [0.3, 0.4, 0.5].map((o) => ({ original: o, winner: o + DESIGN.gain }));
    expect(s.power).toBeCloseTo(powerAt(cases, DESIGN, 6), 12);
    expect(s.rounds).toBeDefined();
    expect(powerAt(cases, DESIGN, s.rounds!)).toBeGreaterThanOrEqual(0.8);
    expect(powerAt(cases, DESIGN, s.rounds! - 2)).toBeLessThan(0.8);
    expect(settling([0.3], DESIGN, 2, 4).rounds).toBeUndefined();
  });

  it('plannedPower: every positive around 50% and every positive from 0%', () => {
    const p = plannedPower(4, DESIGN, 20);
    expect(p.spread).toBeCloseTo(
      powerAt(
        Array.from({ length: 4 }, () => ({ original: 0.375, winner: 0.625 })),
        DESIGN,
        20,
      ),
      12,
    );
    expect(p.oneWay).toBeCloseTo(
      powerAt(
        Array.from({ length: 4 }, () => ({ original: 0, winner: 0.25 })),
        DESIGN,
        20,
      ),
      12,
    );
  });

  it.each([
    [5, 0.25, 0.05, 0],
    [6, 1, 0.05, 1],
    [20, 0.25, 0.05, 1 - [0, 1, 2, 3, 4, 5].reduce((s, k) => s + binom(20, k) * 0.25 ** k * 0.75 ** (20 - k), 0)],
  ])('dropPower: %i pairs, a drop of %f at α %f → %f', (pairs, drop, alpha, want) => {
    expect(dropPower(pairs, drop, alpha)).toBeCloseTo(want, 10);
  });
});

function binom(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

describe('where the holdout looks', () => {
  const options = (holdoutTrials: number, holdoutCapsBefore?: number[]) =>
    ({ seed: 1, iterations: 1, holdoutTrials, alpha: 0.05, ...(holdoutCapsBefore ? { holdoutCapsBefore } : {}) }) as TuneRecord['options'];
  it.each([
    [options(1), [1]],
    [options(4), [2, 4]],
    [options(5), [2, 4, 5]],
    [options(9, [5]), [2, 4, 5, 7, 9]],
    [options(12, [3, 8]), [2, 3, 5, 7, 8, 10, 12]],
  ])('%o → %o', (o, want) => {
    expect(holdoutSchedule(o)).toEqual(want);
  });
  it('lookRounds from a round on', () => expect(lookRounds(6, 3)).toEqual([5, 6]));
});

describe('sequentialVerdict', () => {
  const role = (diff: number, pValue: number): RoleComparison => ({
    original: 0.5,
    winner: 0.5 + diff,
    diff,
    lo: diff - 0.1,
    hi: diff + 0.1,
    pValue,
    pairs: 20,
    discordant: 8,
  });
  const fine = role(0, 1);
  it.each([
    ['recall crossed, constraints fine', { recall: role(0.3, 0.01), siblings: fine, negatives: fine }, true, 'IMPROVED'],
    [
      'recall crossed, negatives significantly lower',
      { recall: role(0.3, 0.01), siblings: fine, negatives: role(-0.3, 0.01) },
      true,
      'WORSE',
    ],
    [
      'recall not crossed though McNemar says lower p',
      { recall: role(0.2, 0.04), siblings: fine, negatives: fine },
      false,
      'NO SIGNIFICANT CHANGE',
    ],
    ['recall significantly lower', { recall: role(-0.3, 0.01), siblings: fine, negatives: fine }, false, 'WORSE'],
  ] as const)('%s → %s', (_, c, improved, want) => {
    expect(sequentialVerdict(c, improved, 0.05)).toBe(want);
  });
});
