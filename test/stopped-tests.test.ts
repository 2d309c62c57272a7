import { describe, expect, it } from 'vitest';
import { buildDesign, caseDesign } from '../src/stats/case-design.js';
import { truncatedProduct } from '../src/stats/combine-p-values.js';
import { designOperating, stateAt, type SequentialDesign } from '../src/stats/sequential-design.js';
import { fixedTrialsDesign, logEndProbability, stoppedEnds } from '../src/stats/stopped-binomial.js';
import { stoppedTwoSampleTest } from '../src/stats/stopped-two-sample.js';
import { waldDesign } from '../src/stats/sprt.js';
import { stratifiedDifference } from '../src/stats/stratified-difference.js';
import { suiteCanaryPower } from '../src/stats/suite-power.js';

const logChoose = (n: number, k: number) => {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log((n - k + i) / i);
  return s;
};

/** The demo's default design (p0 0.9, δ 0.25, minimum 6) and its vague-tag design (p0 0.5, δ 0.3). */
const design = (threshold: number, delta: number): SequentialDesign => {
  const built = buildDesign({ threshold, delta, alpha: 0.05, beta: 0.2, minTrials: 6 }, 'sequential');
  return caseDesign({ decision: built.params, design: built.design });
};
const DEMO = design(0.9, 0.25);
const VAGUE = design(0.5, 0.3);

/** Every pass/fail order through `d`, counted where it stops: the brute force the path counts must equal. */
function enumeratePaths(d: SequentialDesign): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (n: number, k: number) => {
    if (n === d.maxTrials || (n > 0 && stateAt(d, n, k) !== 'continue')) {
      counts.set(`${n}/${k}`, (counts.get(`${n}/${k}`) ?? 0) + 1);
      return;
    }
    walk(n + 1, k + 1);
    walk(n + 1, k);
  };
  walk(0, 0);
  return counts;
}

describe('stoppedEnds: where a run under a design can end, and by how many paths', () => {
  it.each([1, 6, 12, 40])('a fixed %i trials: every pass count, C(n, k) paths each', (n) => {
    const ends = stoppedEnds(fixedTrialsDesign(n));
    expect(ends.map((e) => e.passes)).toEqual(Array.from({ length: n + 1 }, (_, k) => k));
    for (const e of ends) expect(e.logPaths).toBeCloseTo(logChoose(n, e.passes), 10);
  });

  it.each([
    ['the demo design', DEMO],
    ['the vague-tag design', VAGUE],
  ])('%s: the path counts equal a brute-force walk of every pass/fail order', (_, d) => {
    const brute = enumeratePaths(d);
    const ends = stoppedEnds(d);
    expect(ends).toHaveLength(brute.size);
    for (const e of ends) expect(Math.exp(e.logPaths)).toBeCloseTo(brute.get(`${e.trials}/${e.passes}`)!, 6);
  });

  it.each([0.05, 0.3, 0.65, 0.843, 0.9, 0.99])(
    'at p %f the ends carry all the mass, and accept and reject match the exact operating characteristics',
    (p) => {
      const ends = stoppedEnds(DEMO);
      const [lp, lq] = [Math.log(p), Math.log1p(-p)];
      const mass = (keep: (n: number, k: number) => boolean) =>
        ends.filter((e) => keep(e.trials, e.passes)).reduce((s, e) => s + Math.exp(logEndProbability(e, lp, lq)), 0);
      const oc = designOperating(DEMO, p);
      expect(mass(() => true)).toBeCloseTo(1, 12);
      expect(mass((n, k) => stateAt(DEMO, n, k) === 'accept')).toBeCloseTo(oc.accept, 12);
      expect(mass((n, k) => stateAt(DEMO, n, k) === 'reject')).toBeCloseTo(oc.reject, 12);
    },
  );

  it('thousands of trials neither overflow nor underflow', () => {
    const ends = stoppedEnds(fixedTrialsDesign(3000));
    expect(ends).toHaveLength(3001);
    expect(ends[1500]!.logPaths).toBeCloseTo(logChoose(3000, 1500), 6);
    expect(ends[0]!.logPaths).toBeCloseTo(0, 9);
  });
});

/** The same test by brute force: every pair of ends, the region by the rates' difference, the supremum on a fine grid of π. */
function bruteLower(b: SequentialDesign, bObs: [number, number], c: SequentialDesign, cObs: [number, number]): number {
  const [eb, ec] = [stoppedEnds(b), stoppedEnds(c)];
  const difference = (bp: number, bn: number, cp: number, cn: number) => cp / cn - bp / bn;
  const d0 = difference(bObs[1], bObs[0], cObs[1], cObs[0]);
  let best = 0;
  // The supremum can sit at a limit (both runs failing every trial as π → 0): the grid reaches almost to it.
  for (const p of [1e-12, ...Array.from({ length: 999 }, (_, i) => (i + 1) / 1000), 1 - 1e-12]) {
    const [lp, lq] = [Math.log(p), Math.log1p(-p)];
    let mass = 0;
    for (const x of eb)
      for (const y of ec)
        if (difference(x.passes, x.trials, y.passes, y.trials) <= d0 + 1e-9)
          mass += Math.exp(logEndProbability(x, lp, lq) + logEndProbability(y, lp, lq));
    best = Math.max(best, mass);
  }
  return best;
}

describe('stoppedTwoSampleTest: equal rates, each run stopped by its own known rule', () => {
  it.each<[string, SequentialDesign, [number, number], SequentialDesign, [number, number]]>([
    ['demo 6/6 against demo 1/6', DEMO, [6, 6], DEMO, [6, 1]],
    ['demo 6/6 against demo 3/6', DEMO, [6, 6], DEMO, [6, 3]],
    ['demo 6/6 against demo 6/6', DEMO, [6, 6], DEMO, [6, 6]],
    ['fixed 10/10 against the demo design 3/6', fixedTrialsDesign(10), [10, 10], DEMO, [6, 3]],
    ['fixed 8: 7 against 2', fixedTrialsDesign(8), [8, 7], fixedTrialsDesign(8), [8, 2]],
    ['vague design against the demo design', VAGUE, [6, 0], DEMO, [6, 6]],
  ])('%s: the one-sided p-value equals a brute-force supremum over pairs of ends', (_, b, bObs, c, cObs) => {
    const t = stoppedTwoSampleTest({ design: b, trials: bObs[0], passes: bObs[1] }, { design: c, trials: cObs[0], passes: cObs[1] });
    const brute = bruteLower(b, bObs, c, cObs);
    // The grid of 1,000 rates can only undershoot the supremum (by ~1e-12 at the limits).
    expect(t.lower).toBeGreaterThanOrEqual(brute * (1 - 1e-9) - 1e-10);
    expect(t.lower).toBeLessThanOrEqual(brute * (1 + 1e-4) + 1e-12);
  });

  it('exact size at α 0.01, 0.05 and 0.1: under both demo designs it rejects at most α at every common rate, one- and two-sided', () => {
    const ends = stoppedEnds(DEMO);
    const p = ends.map((x) => ends.map((y) => stoppedTwoSampleTest({ design: DEMO, ...x }, { design: DEMO, ...y })));
    for (const alpha of [0.01, 0.05, 0.1]) {
      for (let i = 1; i < 100; i++) {
        const pi = i / 100;
        const [lp, lq] = [Math.log(pi), Math.log1p(-pi)];
        let [lower, twoSided] = [0, 0];
        ends.forEach((x, a) =>
          ends.forEach((y, b) => {
            const mass = Math.exp(logEndProbability(x, lp, lq) + logEndProbability(y, lp, lq));
            if (p[a]![b]!.lower <= alpha) lower += mass;
            if (p[a]![b]!.twoSided <= alpha) twoSided += mass;
          }),
        );
        expect(lower).toBeLessThanOrEqual(alpha * (1 + 1e-9));
        expect(twoSided).toBeLessThanOrEqual(alpha * (1 + 1e-9));
      }
    }
  });

  it('swapping the runs swaps the two one-sided p-values', () => {
    const a = stoppedTwoSampleTest({ design: DEMO, trials: 6, passes: 6 }, { design: VAGUE, trials: 6, passes: 0 });
    const b = stoppedTwoSampleTest({ design: VAGUE, trials: 6, passes: 0 }, { design: DEMO, trials: 6, passes: 6 });
    expect(b.lower).toBeCloseTo(a.upper, 12);
    expect(b.upper).toBeCloseTo(a.lower, 12);
    expect(a.lower).toBeLessThan(0.01);
    expect(a.upper).toBe(1);
  });

  it('gives every value its p-value can take: ascending, ending at 1, the observed one among them, at most the allowance over the refined p-value', () => {
    const t = stoppedTwoSampleTest({ design: DEMO, trials: 6, passes: 6 }, { design: DEMO, trials: 6, passes: 3 });
    for (const [p, { values, observed }] of [
      [t.lower, t.lowerNull],
      [t.upper, t.upperNull],
    ] as const) {
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]!);
      expect(values[values.length - 1]).toBe(1);
      expect(values).toContain(observed);
      // The null's value covers the refined p-value, by at most the grid's allowance.
      expect(observed).toBeGreaterThanOrEqual(p);
      expect(observed).toBeLessThanOrEqual(p * 1.002 + 1e-12);
    }
  });

  it('a Wald design of 200 stages against one of 200: hundreds of ends each, their 160,000 pairs ordered and weighed', () => {
    const wald = waldDesign({ threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 200 });
    const t = stoppedTwoSampleTest({ design: wald, trials: 14, passes: 14 }, { design: wald, trials: 4, passes: 0 });
    expect(t.lower).toBeLessThan(0.01);
    expect(stoppedEnds(wald).length).toBeGreaterThan(150);
  }, 120_000);

  it('refuses an end its design cannot stop at, naming the run', () => {
    expect(() => stoppedTwoSampleTest({ design: DEMO, trials: 6, passes: 6 }, { design: DEMO, trials: 6, passes: 5 })).toThrow(
      /the candidate run's 5 of 6 is not where its design stops/,
    );
    expect(() => stoppedTwoSampleTest({ design: DEMO, trials: 3, passes: 3 }, { design: DEMO, trials: 6, passes: 6 })).toThrow(
      /the base run's 3 of 3/,
    );
  });
});

/** χ² survival with 2k degrees of freedom at x, in closed form. */
const chiSquareSurvival = (x: number, k: number) => {
  let [term, total] = [Math.exp(-x / 2), Math.exp(-x / 2)];
  for (let i = 1; i < k; i++) total += term *= x / 2 / i;
  return total;
};

describe("truncatedProduct: Fisher's method, p-values above τ left out, against each p-value's own null", () => {
  it.each([[[0.05]], [[0.01, 0.2]], [[0.3, 0.3, 0.3, 0.3]], [[0.001, 0.5, 0.9, 1, 0.04]]])(
    'τ = 1 (Fisher), uniform p-values %j: the χ² tail, over- and never understated, by at most the binning',
    (ps) => {
      const x = -2 * ps.reduce((s, p) => s + Math.log(p), 0);
      const exact = chiSquareSurvival(x, ps.length);
      const got = truncatedProduct(
        ps.map((p) => ({ p })),
        1,
      );
      expect(got).toBeGreaterThanOrEqual(exact * (1 - 1e-9));
      expect(got).toBeLessThanOrEqual(chiSquareSurvival(x * (1 - ps.length / 2000), ps.length) + 1e-12);
    },
  );

  it.each([1, 0.2])(
    'staircase nulls, τ %f: the exact tail over every combination of their values, and well under the uniform one',
    (tau) => {
      const nulls = [
        [0.01, 0.2, 1],
        [0.05, 0.5, 1],
        [0.002, 0.03, 0.4, 1],
      ];
      const observed = [0.01, 0.05, 0.03];
      const term = (u: number) => (u <= tau ? -2 * Math.log(u) : 0);
      const x = observed.reduce((s, p) => s + term(p), 0);
      // Brute force: each value with its step's mass.
      let exact = 0;
      const walk = (i: number, sum: number, mass: number) => {
        if (i === nulls.length) {
          if (sum >= x - 1e-12) exact += mass;
          return;
        }
        nulls[i]!.forEach((u, j) => walk(i + 1, sum + term(u), mass * (u - (j ? nulls[i]![j - 1]! : 0))));
      };
      walk(0, 0, 1);
      const got = truncatedProduct(
        observed.map((p, i) => ({ p, nullValues: nulls[i]! })),
        tau,
      );
      expect(got).toBeGreaterThanOrEqual(exact * (1 - 1e-9));
      expect(got).toBeLessThanOrEqual(exact + 0.002);
      expect(got).toBeLessThan(
        truncatedProduct(
          observed.map((p) => ({ p })),
          tau,
        ) / 2,
      );
    },
  );

  it.each([
    [0.05, 0.2, 0.05],
    [0.19, 0.2, 0.19],
    [0.5, 0.2, 1],
  ])('one uniform p-value %f truncated at %f: its own p-value, or 1 above τ', (p, tau, expected) => {
    expect(truncatedProduct([{ p }], tau)).toBeCloseTo(expected, 2);
    expect(truncatedProduct([{ p }], tau)).toBeGreaterThanOrEqual(expected * (1 - 1e-9));
  });

  it('p-values of 1 add nothing; none at all, or all at 1, combine to 1; a zero to 0', () => {
    expect(truncatedProduct([], 1)).toBe(1);
    expect(truncatedProduct([{ p: 1 }, { p: 1, nullValues: [0.2, 1] }], 1)).toBe(1);
    expect(truncatedProduct([{ p: 0 }, { p: 0.5 }], 1)).toBe(0);
    expect(
      truncatedProduct(
        [
          { p: 0.04, nullValues: [0.04, 1] },
          { p: 1, nullValues: [0.3, 1] },
        ],
        1,
      ),
    ).toBeCloseTo(0.04, 2);
  });
});

describe('stratifiedDifference: a rate across the suite, each case weighing the same', () => {
  const s = (bs: number, bn: number, cs: number, cn: number) => ({ base: { successes: bs, n: bn }, candidate: { successes: cs, n: cn } });
  it.each<[string, ReturnType<typeof s>[], number]>([
    ['one case', [s(6, 6, 3, 6)], -0.5],
    ['cases weigh the same, whatever their trials', [s(6, 6, 3, 6), s(100, 100, 100, 100)], -0.25],
    ['a case missing from one run is left out', [s(6, 6, 3, 6), s(0, 0, 5, 5)], -0.5],
    ['no change', [s(5, 6, 5, 6), s(3, 10, 3, 10)], 0],
  ])('%s', (_, strata, diff) => {
    const d = stratifiedDifference(strata);
    expect(d.diff).toBeCloseTo(diff, 12);
    expect(d.lo).toBeLessThanOrEqual(d.diff);
    expect(d.hi).toBeGreaterThanOrEqual(d.diff);
    expect(d.lo).toBeGreaterThanOrEqual(-1);
    expect(d.hi).toBeLessThanOrEqual(1);
  });

  it('narrows as the cases and their trials grow, and is NaN over [−1, 1] with nothing to compare', () => {
    const width = (x: ReturnType<typeof stratifiedDifference>) => x.hi - x.lo;
    const few = stratifiedDifference([s(5, 6, 4, 6)]);
    const many = stratifiedDifference(Array.from({ length: 8 }, () => s(50, 60, 40, 60)));
    expect(width(many)).toBeLessThan(width(few) / 4);
    expect(stratifiedDifference([])).toMatchObject({ diff: Number.NaN, lo: -1, hi: 1, cases: 0 });
  });
});

describe("suiteCanaryPower: the suite-level test's exact power before any trial", () => {
  /** One seeded run of a case under `d` at rate p: where it stops. */
  function seededEnd(d: SequentialDesign, p: number, next: () => number): { trials: number; passes: number } {
    let passes = 0;
    for (let n = 1; n <= d.maxTrials; n++) {
      if (next() < p) passes++;
      if (n === d.maxTrials || stateAt(d, n, passes) !== 'continue') return { trials: n, passes };
    }
    throw new Error('unreachable');
  }

  it('matches a seeded simulation of the test it plans for, within sampling error', () => {
    const cases = [
      { base: DEMO, candidate: DEMO, from: 0.95, to: 0.55 },
      { base: DEMO, candidate: DEMO, from: 0.9, to: 0.6 },
      { base: VAGUE, candidate: VAGUE, from: 0.5, to: 0.5 },
    ];
    const exact = suiteCanaryPower(cases, 0.05, 0.2);
    let seed = 7;
    const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const reps = 200;
    let flagged = 0;
    for (let r = 0; r < reps; r++) {
      const evidence = cases.map((c) => {
        const t = stoppedTwoSampleTest(
          { design: c.base, ...seededEnd(c.base, c.from, next) },
          { design: c.candidate, ...seededEnd(c.candidate, c.to, next) },
        );
        return { p: t.lowerNull.observed, nullValues: t.lowerNull.values };
      });
      if (truncatedProduct(evidence, 0.2) <= 0.05) flagged++;
    }
    const se = Math.sqrt((exact * (1 - exact)) / reps);
    expect(Math.abs(flagged / reps - exact)).toBeLessThan(4 * se + 0.01);
    expect(exact).toBeGreaterThan(0.3);
  });

  it.each([0.3, 0.65, 0.9, 0.99])('no drop, every case at %f: at most α', (p) => {
    expect(
      suiteCanaryPower(
        [
          { base: DEMO, candidate: DEMO, from: p, to: p },
          { base: VAGUE, candidate: DEMO, from: p, to: p },
        ],
        0.05,
        0.2,
      ),
    ).toBeLessThanOrEqual(0.05);
  });

  it('grows with the drop and with the cases that drop', () => {
    const power = (to: number, dropping: number) =>
      suiteCanaryPower(
        Array.from({ length: 6 }, (_, i) => ({ base: DEMO, candidate: DEMO, from: 0.9, to: i < dropping ? to : 0.9 })),
        0.05,
        0.2,
      );
    expect(power(0.5, 6)).toBeGreaterThan(power(0.7, 6));
    expect(power(0.5, 6)).toBeGreaterThan(power(0.5, 2));
  });
});
