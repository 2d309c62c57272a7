/**
 * The sequential designs behind `mode: sequential` and `mode: sprt`: Wald's boundaries, the exact operating
 * characteristics, the optimal truncated design, the two line designs it is compared with, truncation at a user's
 * cap, and the stagewise interval and estimate. Reference values are computed here independently (brute-force path
 * enumeration, a seeded simulation, Clopper–Pearson by bisection on the binomial cdf), never copied from src.
 */
import { describe, expect, it } from 'vitest';
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import { fixedNEquivalent } from '../src/stats/binomial-test.js';
import { calibrate } from '../src/stats/calibrate.js';
import { linesDesign, triangularDesign, twoSprtDesign } from '../src/stats/linear-designs.js';
import { costPoints, inducedDesign, optimalDesign, type DesignGoal } from '../src/stats/optimal-design.js';
import {
  alwaysDecides,
  decideSequential,
  designOperating,
  exactErrors,
  stateAt,
  truncateDesign,
  worstExpectedTrials,
  type SequentialDesign,
  type SequentialState,
} from '../src/stats/sequential-design.js';
import { boundaries, llrAt, waldDesign } from '../src/stats/sprt.js';
import { stagewiseEstimate, type SequentialEstimate } from '../src/stats/stagewise.js';
import type { SprtParams } from '../src/run/schema.js';

// ---------------------------------------------------------------------------------------------------------------
// Independent helpers
// ---------------------------------------------------------------------------------------------------------------

const seq = (s: string) => [...s].map((ch) => ch === 'P');

/** A 32-bit linear congruential generator (Numerical Recipes constants), uniform on [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `length` Bernoulli(p) outcomes from the generator. */
const draw = (rnd: () => number, p: number, length: number) => Array.from({ length }, () => rnd() < p);

interface Summary {
  paths: number;
  meanTrials: number;
  sdTrials: number;
  accept: number;
  reject: number;
  undecided: number;
}

/** Simulates `paths` runs of the design at rate p through decideSequential, after a fixed open prefix. */
function simulate(d: SequentialDesign, p: number, paths: number, seed: number, prefix: readonly boolean[] = []): Summary {
  const rnd = lcg(seed);
  let [sum, sumSq, accept, reject, undecided] = [0, 0, 0, 0, 0];
  for (let i = 0; i < paths; i++) {
    const r = decideSequential([...prefix, ...draw(rnd, p, d.maxTrials - prefix.length)], d);
    const further = r.trials - prefix.length;
    sum += further;
    sumSq += further * further;
    if (r.state === 'accept') accept++;
    else if (r.state === 'reject') reject++;
    else undecided++;
  }
  const meanTrials = sum / paths;
  return {
    paths,
    meanTrials,
    sdTrials: Math.sqrt(Math.max(0, sumSq / paths - meanTrials ** 2)),
    accept: accept / paths,
    reject: reject / paths,
    undecided: undecided / paths,
  };
}

/** Three standard errors of a proportion (plus half a path, so a near-0 or near-1 probability is not judged on one hit). */
const proportionTolerance = (q: number, paths: number) => 3 * Math.sqrt((q * (1 - q)) / paths) + 0.5 / paths;

/** Every outcome vector of length m with its probability: the brute-force reference for the DP. */
function* allPaths(m: number, p: number): Generator<{ outcomes: boolean[]; prob: number }> {
  for (let bits = 0; bits < 2 ** m; bits++) {
    const outcomes = Array.from({ length: m }, (_, i) => ((bits >> i) & 1) === 1);
    const k = outcomes.filter(Boolean).length;
    yield { outcomes, prob: p ** k * (1 - p) ** (m - k) };
  }
}

/** The distribution of stopping outcomes (n, k) of a design at rate p, by my own forward recursion over (n, k). */
function stoppingOutcomes(d: SequentialDesign, p: number): { n: number; k: number; prob: number }[] {
  const out: { n: number; k: number; prob: number }[] = [];
  let open = new Map<number, number>([[0, 1]]);
  for (let n = 1; n <= d.maxTrials; n++) {
    const next = new Map<number, number>();
    for (const [k, m] of open) {
      next.set(k + 1, (next.get(k + 1) ?? 0) + m * p);
      next.set(k, (next.get(k) ?? 0) + m * (1 - p));
    }
    open = new Map();
    for (const [k, m] of next) {
      if (n < d.maxTrials && stateAt(d, n, k) === 'continue') open.set(k, m);
      else out.push({ n, k, prob: m });
    }
  }
  return out;
}

/** The root of a monotone function on [0, 1] by bisection (f(lo) and f(hi) of opposite sign). */
function bisect(f: (p: number) => number, increasing: boolean): number {
  let [lo, hi] = [0, 1];
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < 0 === increasing) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(X ≥ k) and P(X ≤ k) for X ~ Binomial(n, p), from @stdlib. */
const atLeast = (k: number, n: number, p: number) => (k <= 0 ? 1 : 1 - binomialCdf(k - 1, n, p));
const atMost = (k: number, n: number, p: number) => binomialCdf(k, n, p);

/** Clopper–Pearson two-sided interval, each tail (1 − level)/2. */
function clopperPearson(k: number, n: number, level = 0.95): { lower: number; upper: number } {
  const tail = (1 - level) / 2;
  return {
    lower: k === 0 ? 0 : bisect((p) => atLeast(k, n, p) - tail, true),
    upper: k === n ? 1 : bisect((p) => atMost(k, n, p) - tail, false),
  };
}

/** Median-unbiased estimate of a binomial rate: the mean of the p where P(X ≥ k) = ½ and where P(X ≤ k) = ½. */
function medianUnbiased(k: number, n: number): number {
  const low = k === 0 ? 0 : bisect((p) => atLeast(k, n, p) - 0.5, true);
  const high = k === n ? 1 : bisect((p) => atMost(k, n, p) - 0.5, false);
  return (low + high) / 2;
}

/** The smallest N whose exact one-sided binomial test holds α at p0 and β at p1 (my own search, not src's). */
function myFixedN(p0: number, p1: number, alpha: number, beta: number): number {
  for (let n = 1; ; n++) {
    let k = -1;
    while (k + 1 <= n && binomialCdf(k + 1, n, p0) <= alpha) k++;
    if (k >= 0 && 1 - binomialCdf(k, n, p1) <= beta) return n;
  }
}

/** A design that only decides at trial `n`: PASS at ≥ acceptAt passes, FAIL at ≤ rejectUpTo. */
function fixedDesign(n: number, acceptAt: number, rejectUpTo: number, p0 = 0.9, p1 = 0.8): SequentialDesign {
  const acceptFrom = Array.from({ length: n + 1 }, (_, i) => i + 1);
  const reject = Array.from({ length: n + 1 }, () => -1);
  acceptFrom[n] = acceptAt;
  reject[n] = rejectUpTo;
  return { p0, p1, minTrials: n, maxTrials: n, acceptFrom, rejectUpTo: reject };
}

const goalOf = ([p0, p1, alpha, beta, minTrials]: readonly number[]): DesignGoal => ({
  p0: p0!,
  p1: p1!,
  alpha: alpha!,
  beta: beta!,
  minTrials: minTrials!,
});
const fixedNOf = (g: DesignGoal) => fixedNEquivalent(g.p0, g.p1, g.alpha, g.beta)!;
const designFor = (g: DesignGoal) => optimalDesign({ ...g }, fixedNOf(g));

const HEADLINE: DesignGoal = { p0: 0.9, p1: 0.8, alpha: 0.05, beta: 0.2, minTrials: 5 };
const WALD: SprtParams = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 200 };

// ---------------------------------------------------------------------------------------------------------------
// 1. Wald's SPRT as boundaries
// ---------------------------------------------------------------------------------------------------------------

describe('waldDesign: Wald’s rule as pass-count boundaries', () => {
  it.each([
    ['14 straight passes accept', WALD, 'P'.repeat(14), 'accept', 14],
    ['13 straight passes do not', WALD, 'P'.repeat(13), 'continue', 13],
    ['PFFPFFF rejects at 7', WALD, 'PFFPFFF', 'reject', 7],
    ['PFFPFF does not reject yet', WALD, 'PFFPFF', 'continue', 6],
    ['FFFF rejects at 4 (Λ = 4·log ½ sits exactly on log(α/(1−β)) = log 1/16)', WALD, 'FFFFPPPPPPPPPPPPPPPPPPPP', 'reject', 4],
    ['threshold 1: a single fail rejects', { ...WALD, threshold: 1 }, 'F', 'reject', 1],
    ['threshold 1: a fail after passes rejects there', { ...WALD, threshold: 1 }, 'PPPPPPF', 'reject', 7],
    // Λ = n·log(1/0.9) ≥ log(0.95/0.2) first at n = ⌈1.558/0.1054⌉ = 15.
    ['threshold 1: 15 straight passes accept', { ...WALD, threshold: 1 }, 'P'.repeat(15), 'accept', 15],
    ['threshold 1: 14 straight passes do not', { ...WALD, threshold: 1 }, 'P'.repeat(14), 'continue', 14],
    ['minTrials 5: FFFF does not reject before trial 5', { ...WALD, minTrials: 5 }, 'FFFF', 'continue', 4],
    ['minTrials 5: FFFFF rejects at 5', { ...WALD, minTrials: 5 }, 'FFFFF', 'reject', 5],
    ['minTrials 5: FFFFP has climbed back above the FAIL boundary at 5', { ...WALD, minTrials: 5 }, 'FFFFP', 'continue', 5],
    ['minTrials 20: 19 passes do not accept', { ...WALD, minTrials: 20 }, 'P'.repeat(19), 'continue', 19],
    ['minTrials 20: 20 passes accept at 20', { ...WALD, minTrials: 20 }, 'P'.repeat(25), 'accept', 20],
  ] as const)('%s', (_name, params, outcomes, state, trials) => {
    const d = waldDesign(params);
    expect(decideSequential(seq(outcomes), d)).toMatchObject({ state, trials });
  });

  it.each([
    ['p0 .9 δ .1 α .05 β .2 min 1', { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1 }],
    ['p0 1 δ .1 α .05 β .2 min 1', { threshold: 1, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1 }],
    ['p0 .5 δ .3 α .1 β .1 min 3', { threshold: 0.5, delta: 0.3, alpha: 0.1, beta: 0.1, minTrials: 3 }],
    ['p0 .8 δ .05 α .01 β .05 min 10', { threshold: 0.8, delta: 0.05, alpha: 0.01, beta: 0.05, minTrials: 10 }],
    ['p0 .95 δ .25 α .05 β .2 min 6', { threshold: 0.95, delta: 0.25, alpha: 0.05, beta: 0.2, minTrials: 6 }],
  ])('%s: the state at every n, k ≤ 60 is llrAt(n, k) against log((1−α)/β) and log(α/(1−β))', (_name, q) => {
    const params: SprtParams = { ...q, maxTrials: 60 };
    const d = waldDesign(params);
    expect(d).toMatchObject({ p0: q.threshold, p1: q.threshold - q.delta, minTrials: q.minTrials, maxTrials: 60 });
    expect(d.acceptFrom).toHaveLength(61);
    expect(d.rejectUpTo).toHaveLength(61);
    const accept = Math.log((1 - q.alpha) / q.beta);
    const reject = Math.log(q.alpha / (1 - q.beta));
    const [p0, p1] = [q.threshold, q.threshold - q.delta];
    const mismatches: string[] = [];
    for (let n = 1; n <= 60; n++) {
      for (let k = 0; k <= n; k++) {
        const llr = llrAt(n, k, params);
        // llrAt itself against the log-likelihood ratio written out (0·log 0 taken as 0 when p0 = 1).
        const own = k * Math.log(p0 / p1) + (n - k === 0 ? 0 : (n - k) * Math.log((1 - p0) / (1 - p1)));
        if (!(llr === own || Math.abs(llr - own) < 1e-9)) mismatches.push(`llrAt(${n},${k}) = ${llr}, expected ${own}`);
        const expected: SequentialState = n < q.minTrials ? 'continue' : llr >= accept ? 'accept' : llr <= reject ? 'reject' : 'continue';
        const got = stateAt(d, n, k);
        if (got !== expected) mismatches.push(`(${n},${k}): ${got}, expected ${expected}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('uses the same boundaries as sprt.boundaries', () => {
    const b = boundaries(WALD);
    expect(b.accept).toBeCloseTo(Math.log(0.95 / 0.2), 12);
    expect(b.reject).toBeCloseTo(Math.log(0.05 / 0.8), 12);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 2. The decision walk and the exact operating characteristics
// ---------------------------------------------------------------------------------------------------------------

describe('stateAt and decideSequential', () => {
  const d = fixedDesign(10, 8, 5);
  it.each([
    [[], 'continue', 0, 0],
    [seq('PPPPPPPP'), 'continue', 8, 8],
    [seq('PPPPPPPPPP'), 'accept', 10, 10],
    [seq('PPPPPPPFFF'), 'continue', 10, 7],
    [seq('PPPPPFFFFFPPPP'), 'reject', 10, 5],
    [seq('PPPPPPPPFFPPPP'), 'accept', 10, 8],
  ] as const)('fixed design n 10: %j → %s after %i trials with %i passes', (outcomes, state, trials, passes) => {
    expect(decideSequential(outcomes, d)).toEqual({ state, trials, passes });
  });

  it('never decides before minTrials or beyond maxTrials', () => {
    const w = waldDesign({ ...WALD, minTrials: 7, maxTrials: 30 });
    for (let n = 0; n < 7; n++) for (let k = 0; k <= n; k++) expect(stateAt(w, n, k)).toBe('continue');
    for (let k = 0; k <= 31; k++) expect(stateAt(w, 31, k)).toBe('continue');
  });
});

describe('designOperating: exact operating characteristics', () => {
  // Small designs whose every path of maxTrials outcomes can be enumerated (2^maxTrials paths).
  const small: [string, SequentialDesign][] = [
    ['Wald p0 .7 δ .3 min 3 max 12', waldDesign({ threshold: 0.7, delta: 0.3, alpha: 0.1, beta: 0.1, minTrials: 3, maxTrials: 12 })],
    ['Wald p0 .9 δ .1 min 1 max 13', waldDesign({ ...WALD, maxTrials: 13 })],
    ['fixed n 11 (PASS ≥ 9, FAIL ≤ 6: 7–8 undecided)', fixedDesign(11, 9, 6)],
    ['optimal p0 .9 p1 .65 (max ≤ 19) truncated at 12', truncateDesign(designFor(goalOf([0.9, 0.65, 0.05, 0.2, 6])), 12)],
  ];

  it.each(small.flatMap(([name, d]) => [0.3, 0.65, 0.8, 0.95].map((p) => [name, p, d] as const)))(
    '%s at p = %s equals brute-force enumeration of every path',
    (_name, p, d) => {
      let [accept, reject, undecided, expected] = [0, 0, 0, 0];
      for (const { outcomes, prob } of allPaths(d.maxTrials, p)) {
        const r = decideSequential(outcomes, d);
        expected += prob * r.trials;
        if (r.state === 'accept') accept += prob;
        else if (r.state === 'reject') reject += prob;
        else undecided += prob;
      }
      const oc = designOperating(d, p);
      expect(oc.accept).toBeCloseTo(accept, 12);
      expect(oc.reject).toBeCloseTo(reject, 12);
      expect(oc.undecided).toBeCloseTo(undecided, 12);
      expect(oc.expectedTrials).toBeCloseTo(expected, 10);
    },
  );

  it.each([
    ['Wald p0 .9 δ .1 min 3 max 13, after PPFPP', waldDesign({ ...WALD, minTrials: 3, maxTrials: 13 }), 'PPFPP', 0.85],
    [
      'Wald p0 .7 δ .3 min 3 max 12, after PFP',
      waldDesign({ threshold: 0.7, delta: 0.3, alpha: 0.1, beta: 0.1, minTrials: 3, maxTrials: 12 }),
      'PFP',
      0.6,
    ],
  ])('%s: `from` gives the further trials that enumeration of the continuations gives', (_name, d, prefix, p) => {
    const pre = seq(prefix);
    expect(decideSequential(pre, d)).toMatchObject({ state: 'continue', trials: pre.length });
    let [accept, reject, expected] = [0, 0, 0];
    for (const { outcomes, prob } of allPaths(d.maxTrials - pre.length, p)) {
      const r = decideSequential([...pre, ...outcomes], d);
      expected += prob * (r.trials - pre.length);
      if (r.state === 'accept') accept += prob;
      else if (r.state === 'reject') reject += prob;
    }
    const oc = designOperating(d, p, { trials: pre.length, passes: pre.filter(Boolean).length });
    expect(oc.expectedTrials).toBeCloseTo(expected, 10);
    expect(oc.accept).toBeCloseTo(accept, 12);
    expect(oc.reject).toBeCloseTo(reject, 12);
  });

  const big: [string, SequentialDesign][] = [
    ['Wald p0 .9 δ .1 truncated at 40', waldDesign({ ...WALD, maxTrials: 40 })],
    ['Wald p0 1 δ .1 truncated at 30', waldDesign({ ...WALD, threshold: 1, maxTrials: 30 })],
    ['optimal headline design', designFor(HEADLINE)],
  ];

  const round = (p: number) => Number(p.toFixed(6));
  it.each(big.flatMap(([name, d]) => [...new Set([0, 0.5, d.p1, round((d.p0 + d.p1) / 2), d.p0, 1])].map((p) => [name, p, d] as const)))(
    '%s at p = %s: accept + reject + undecided = 1 and 0 ≤ E[N] ≤ maxTrials',
    (_name, p, d) => {
      const oc = designOperating(d, p);
      expect(oc.accept + oc.reject + oc.undecided).toBeCloseTo(1, 12);
      for (const x of [oc.accept, oc.reject, oc.undecided]) expect(x).toBeGreaterThanOrEqual(-1e-15);
      expect(oc.expectedTrials).toBeGreaterThanOrEqual(Math.min(1, d.minTrials));
      expect(oc.expectedTrials).toBeLessThanOrEqual(d.maxTrials + 1e-9);
    },
  );

  it.each(big.flatMap(([name, d], i) => [d.p1, round((d.p0 + d.p1) / 2), d.p0].map((p, j) => [name, p, d, 1000 + 10 * i + j] as const)))(
    '%s at p = %s agrees with a seeded simulation within 3 standard errors',
    (_name, p, d, seed) => {
      const paths = 4000;
      const sim = simulate(d, p, paths, seed);
      const oc = designOperating(d, p);
      expect(Math.abs(sim.meanTrials - oc.expectedTrials)).toBeLessThanOrEqual((3 * sim.sdTrials) / Math.sqrt(paths) + 1e-9);
      expect(Math.abs(sim.accept - oc.accept)).toBeLessThanOrEqual(proportionTolerance(oc.accept, paths));
      expect(Math.abs(sim.undecided - oc.undecided)).toBeLessThanOrEqual(proportionTolerance(oc.undecided, paths));
    },
  );

  // 26 passes in 30, a fail every seventh trial: open at every stage of the headline design (checked below).
  const prefix = seq('PPPPPPF'.repeat(4) + 'PP');
  it.each([0.8, 0.85, 0.9])(
    'headline design from 30 trials with 26 passes, at p = %s: expected further trials match simulation from there',
    (p) => {
      const d = designFor(HEADLINE);
      expect(decideSequential(prefix, d)).toMatchObject({ state: 'continue', trials: 30, passes: 26 });
      const paths = 4000;
      const sim = simulate(d, p, paths, 7000 + Math.round(p * 100), prefix);
      const oc = designOperating(d, p, { trials: 30, passes: 26 });
      expect(oc.accept + oc.reject + oc.undecided).toBeCloseTo(1, 12);
      expect(Math.abs(sim.meanTrials - oc.expectedTrials)).toBeLessThanOrEqual((3 * sim.sdTrials) / Math.sqrt(paths));
      expect(Math.abs(sim.accept - oc.accept)).toBeLessThanOrEqual(proportionTolerance(oc.accept, paths));
    },
  );

  it('exactErrors is the FAIL probability at p0 and the PASS probability at p1', () => {
    const d = waldDesign({ ...WALD, maxTrials: 40 });
    const e = exactErrors(d);
    expect(e.alpha).toBe(designOperating(d, 0.9).reject);
    expect(e.beta).toBe(designOperating(d, 0.8).accept);
  });
});

describe('worstExpectedTrials', () => {
  it.each([
    ['Wald p0 .9 δ .1 truncated at 60', waldDesign({ ...WALD, maxTrials: 60 })],
    ['optimal headline design', designFor(HEADLINE)],
    ['optimal p0 .5 p1 .2', designFor(goalOf([0.5, 0.2, 0.05, 0.2, 6]))],
  ])('%s: at least the maximum over a 201-point grid between p1 and p0', (_name, d) => {
    let gridMax = 0;
    for (let i = 0; i <= 200; i++) gridMax = Math.max(gridMax, designOperating(d, d.p1 + ((d.p0 - d.p1) * i) / 200).expectedTrials);
    const w = worstExpectedTrials(d);
    expect(w.p).toBeGreaterThanOrEqual(d.p1);
    expect(w.p).toBeLessThanOrEqual(d.p0);
    expect(w.expectedTrials).toBeCloseTo(designOperating(d, w.p).expectedTrials, 12);
    expect(w.expectedTrials).toBeGreaterThanOrEqual(gridMax - 1e-9);
    // and not far above it: the grid is fine enough to be within 0.5 % of the peak of a smooth curve.
    expect(w.expectedTrials).toBeLessThanOrEqual(gridMax * 1.005);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 3. The optimal truncated design
// ---------------------------------------------------------------------------------------------------------------

/**
 * Goals as [p0, p1, α, β, minTrials] with a ceiling on worst-case expected trials as a share of the fixed N.
 * 0.70 is the target; two goals get 0.75 because 0.70 is out of reach or nearly so for them. For p0 .95 p1 .75
 * (fixed N 16, minTrials 6) no design I could find gets under 0.73: a search over single-point Kiefer–Weiss
 * designs (inducedDesign with all weight at p* ∈ {p1 + i(p0−p1)/10}, maxima 14–48) bottoms out at 11.70 trials
 * (0.731 N), and Lorden's 2-SPRT is at 0.731 N too. For p0 .9 p1 .7 α = β = .1 (fixed N 25) the same search reaches
 * 0.686 N only with a maximum of 40, beyond the 1.5 N the default design searches, and it costs expected trials
 * away from the worst case; the default design is at ≈ 0.70 N.
 */
const GOALS: [string, number[], number][] = [
  ['p0 .9 p1 .8 α .05 β .2 min 5 (headline)', [0.9, 0.8, 0.05, 0.2, 5], 0.7],
  ['p0 .9 p1 .65 α .05 β .2 min 6', [0.9, 0.65, 0.05, 0.2, 6], 0.7],
  ['p0 .5 p1 .2 α .05 β .2 min 6', [0.5, 0.2, 0.05, 0.2, 6], 0.7],
  ['p0 .95 p1 .75 α .05 β .2 min 6', [0.95, 0.75, 0.05, 0.2, 6], 0.75],
  ['p0 .9 p1 .7 α .1 β .1 min 1', [0.9, 0.7, 0.1, 0.1, 1], 0.75],
];

describe('optimalDesign', () => {
  it('takes the headline goal’s fixed N to be 78 (own search over the exact binomial test agrees)', () => {
    expect(fixedNOf(HEADLINE)).toBe(78);
    expect(myFixedN(0.9, 0.8, 0.05, 0.2)).toBe(78);
  });

  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))('%s: fixed N agrees with an independent search', (_name, g) => {
    expect(fixedNOf(g)).toBe(myFixedN(g.p0, g.p1, g.alpha, g.beta));
  });

  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))('%s: always decides by its last stage', (_name, g) => {
    const d = designFor(g);
    expect(alwaysDecides(d)).toBe(true);
    expect(d.acceptFrom[d.maxTrials]).toBe(d.rejectUpTo[d.maxTrials]! + 1);
    for (const p of [0.01, g.p1, (g.p0 + g.p1) / 2, g.p0, 0.99]) expect(designOperating(d, p).undecided).toBeLessThan(1e-12);
  });

  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))(
    '%s: exact α and β at or under nominal, and at least 0.8 × nominal',
    (_name, g) => {
      const d = designFor(g);
      expect(d).toMatchObject({ p0: g.p0, p1: g.p1, minTrials: g.minTrials });
      const e = exactErrors(d);
      expect(e.alpha).toBeLessThanOrEqual(g.alpha);
      expect(e.beta).toBeLessThanOrEqual(g.beta);
      expect(e.alpha).toBeGreaterThanOrEqual(0.8 * g.alpha);
      expect(e.beta).toBeGreaterThanOrEqual(0.8 * g.beta);
    },
  );

  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))('%s: maxTrials between ⌊0.9 × fixed N⌋ and 1.5 × fixed N', (_name, g) => {
    const d = designFor(g);
    const n = fixedNOf(g);
    expect(d.maxTrials).toBeGreaterThanOrEqual(Math.floor(0.9 * n));
    expect(d.maxTrials).toBeLessThanOrEqual(Math.ceil(1.5 * n));
    expect(d.acceptFrom).toHaveLength(d.maxTrials + 1);
    expect(d.rejectUpTo).toHaveLength(d.maxTrials + 1);
  });

  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))('%s: monotone boundaries, no decision before minTrials', (_name, g) => {
    const d = designFor(g);
    const problems: string[] = [];
    for (let n = 0; n < Math.max(1, g.minTrials); n++) {
      for (let k = 0; k <= n; k++) if (stateAt(d, n, k) !== 'continue') problems.push(`decides at (${n},${k}) before minTrials`);
      if (n > 0 && (d.acceptFrom[n] !== n + 1 || d.rejectUpTo[n] !== -1))
        problems.push(`stage ${n} before minTrials has boundaries ${d.rejectUpTo[n]}/${d.acceptFrom[n]}`);
    }
    for (let n = Math.max(1, g.minTrials); n <= d.maxTrials; n++) {
      const [a, r] = [d.acceptFrom[n]!, d.rejectUpTo[n]!];
      if (!(a >= 0 && a <= n + 1 && r >= -1 && r <= n)) problems.push(`stage ${n}: boundaries ${r}/${a} out of range`);
      if (!(r < a)) problems.push(`stage ${n}: rejectUpTo ${r} ≥ acceptFrom ${a}`);
      if (n > g.minTrials && a < d.acceptFrom[n - 1]!) problems.push(`acceptFrom falls at ${n}: ${d.acceptFrom[n - 1]} → ${a}`);
      if (n > g.minTrials && r < d.rejectUpTo[n - 1]!) problems.push(`rejectUpTo falls at ${n}: ${d.rejectUpTo[n - 1]} → ${r}`);
      // one more trial moves k by at most one: a boundary may rise by at most one per stage
      if (n > g.minTrials && a > d.acceptFrom[n - 1]! + 1 && d.acceptFrom[n - 1]! <= n - 1) problems.push(`acceptFrom jumps at ${n}`);
    }
    expect(problems).toEqual([]);
  });

  // maxTrials is reported to users ("the design decides by N trials") and becomes the case's default maxTrials.
  it.each(GOALS.map(([name, g]) => [name, goalOf(g)] as const))(
    '%s: some pass count is still open at every stage before the last (maxTrials is the longest path)',
    (_name, g) => {
      const d = designFor(g);
      const closedEarly: number[] = [];
      for (let n = Math.max(1, g.minTrials); n < d.maxTrials; n++) if (d.rejectUpTo[n]! + 1 >= d.acceptFrom[n]!) closedEarly.push(n);
      expect(closedEarly).toEqual([]);
      // and the last stage is reachable with positive probability at the hardest rate
      const mid = (g.p0 + g.p1) / 2;
      const reachesLast = stoppingOutcomes(d, mid)
        .filter((o) => o.n === d.maxTrials)
        .reduce((s, o) => s + o.prob, 0);
      expect(reachesLast).toBeGreaterThan(0);
    },
  );

  it.each(GOALS.map(([name, g, ceiling]) => [name, ceiling, goalOf(g)] as const))(
    '%s: worst-case expected trials ≤ %s × fixed N',
    (_name, ceiling, g) => {
      const d = designFor(g);
      expect(worstExpectedTrials(d).expectedTrials).toBeLessThanOrEqual(ceiling * fixedNOf(g));
    },
  );

  it.each([
    ['p1 − 2δ (clamped ≥ p1/2) = 0.6', Math.max(0.8 - 2 * 0.1, 0.8 / 2)],
    ['min(p0 + δ/2, (1 + p0)/2) = 0.95', Math.min(0.9 + 0.1 / 2, (1 + 0.9) / 2)],
  ])('headline: expected trials at %s ≤ 0.35 × fixed N (78)', (_name, p) => {
    expect(designOperating(designFor(HEADLINE), p).expectedTrials).toBeLessThanOrEqual(0.35 * 78);
  });

  it('costs expected trials at p1 − 2δ, p1, the midpoint, p0 and p0 + δ/2: half the weight midway, the rest even', () => {
    const pts = costPoints({ p0: 0.9, p1: 0.8 });
    expect(pts).toHaveLength(5);
    for (const [i, p] of [0.6, 0.8, 0.85, 0.9, 0.95].entries()) expect(pts[i]!.p).toBeCloseTo(p, 12);
    expect(pts.reduce((s, c) => s + c.weight, 0)).toBeCloseTo(1, 12);
    expect(pts[2]!.weight).toBeCloseTo(0.5, 12);
    for (const i of [0, 1, 3, 4]) expect(pts[i]!.weight).toBeCloseTo(0.125, 12);
    // clamped inside (0, 1): p1 − 2δ would be negative, p0 + δ/2 above 1
    const wide = costPoints({ p0: 0.95, p1: 0.3 });
    expect(wide[0]!.p).toBeCloseTo(0.15, 12);
    expect(wide[4]!.p).toBeCloseTo(0.975, 12);
  });

  it('is deterministic: a fresh goal object gives equal boundaries, and the induction has no hidden state', () => {
    const first = designFor(HEADLINE);
    const again = optimalDesign({ p0: 0.9, p1: 0.8, alpha: 0.05, beta: 0.2, minTrials: 5 }, 78);
    expect(again).toEqual(first);
    const points = costPoints(HEADLINE);
    const a = inducedDesign({ ...HEADLINE }, 80, points);
    const b = inducedDesign({ ...HEADLINE }, 80, costPoints({ ...HEADLINE }));
    expect(a).toBeDefined();
    expect(b).toEqual(a);
  });
});

describe('inducedDesign and calibrate', () => {
  it('inducedDesign holds α and β at a given maximum, and α is tight in the FAIL multiplier', () => {
    const g = goalOf([0.9, 0.65, 0.05, 0.2, 6]);
    const r = inducedDesign(g, 20, costPoints(g))!;
    expect(r).toBeDefined();
    expect(r.design.maxTrials).toBe(20);
    expect(alwaysDecides(r.design)).toBe(true);
    const e = exactErrors(r.design);
    expect(e.alpha).toBeLessThanOrEqual(g.alpha);
    expect(e.beta).toBeLessThanOrEqual(g.beta);
  });

  it('inducedDesign is undefined when no design deciding by the maximum can hold both errors', () => {
    // 3 trials: passing 3 of 3 at p1 = .8 has probability .512 > β, so nothing may PASS, and then β = 0 but
    // the FAIL side must take everything: α = 1.
    expect(inducedDesign({ ...HEADLINE, minTrials: 1 }, 3, costPoints(HEADLINE))).toBeUndefined();
  });

  // A family of my own: straight PASS and FAIL lines around the midline that close at 60 trials.
  const g = goalOf([0.8, 0.6, 0.05, 0.1, 1]);
  const make = (u: { u0: number; u1: number }) =>
    linesDesign(
      g,
      (n) => 0.7 * n + Math.exp(u.u1) * (1 - n / 60),
      (n) => 0.7 * n - Math.exp(u.u0) * (1 - n / 60),
    );
  const alphaOf = (d: SequentialDesign) => designOperating(d, d.p0).reject;

  it('calibrate lands at or under both goals, with the FAIL multiplier the smallest that holds α', () => {
    const r = calibrate(g, make, { u0: 1, u1: 1 })!;
    expect(r).toBeDefined();
    const e = exactErrors(r.design);
    expect(e.alpha).toBeLessThanOrEqual(g.alpha);
    expect(e.beta).toBeLessThanOrEqual(g.beta);
    expect(r.design).toEqual(make(r.start));
    // TOLERANCE is 1e-3 on log scale: a little below the multiplier found, α no longer holds.
    expect(alphaOf(make({ u0: r.start.u0 - 0.002, u1: r.start.u1 }))).toBeGreaterThan(g.alpha);
  });

  it('calibrate is undefined when the family cannot hold α', () => {
    const rejectAll = () => ({ ...fixedDesign(1, 2, 1), p0: g.p0, p1: g.p1 });
    expect(calibrate(g, rejectAll, { u0: 0, u1: 0 })).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 4. The line designs
// ---------------------------------------------------------------------------------------------------------------

describe('linesDesign, triangularDesign and twoSprtDesign', () => {
  it('linesDesign closes where the lines meet, split at the midline', () => {
    // PASS at k ≥ 10 + n/2, FAIL at k ≤ n − 10. At 37 trials PASS needs 29 (28.5 rounded up) and FAIL takes ≤ 27,
    // leaving 28 open; at 38 PASS needs 29 and FAIL takes ≤ 28: no count left between, so the design ends there,
    // split at the midline (29 + 28)/2 = 28.5: FAIL at ≤ 28, PASS at ≥ 29.
    const d = linesDesign(
      goalOf([0.9, 0.8, 0.05, 0.2, 1]),
      (n) => 10 + n / 2,
      (n) => n - 10,
    );
    expect(d.maxTrials).toBe(38);
    expect([d.rejectUpTo[37], d.acceptFrom[37]]).toEqual([27, 29]);
    expect(d.acceptFrom[38]).toBe(29);
    expect(d.rejectUpTo[38]).toBe(28);
    expect(d.acceptFrom[20]).toBe(20);
    expect(d.rejectUpTo[20]).toBe(10);
    expect(d.acceptFrom[5]).toBe(6); // 12.5 passes of 5: none can PASS
    expect(d.rejectUpTo[5]).toBe(-1);
  });

  it('linesDesign throws when the lines never meet', () => {
    expect(() =>
      linesDesign(
        HEADLINE,
        (n) => 0.85 * n + 3,
        (n) => 0.85 * n - 3,
      ),
    ).toThrow(RangeError);
  });

  const designs = [
    ['triangular', () => triangularDesign(HEADLINE)],
    ['2-SPRT', () => twoSprtDesign(HEADLINE)],
  ] as const;

  it.each(designs)('%s design for the headline goal: always decides, exact errors at or under nominal', (_name, build) => {
    const d = build()!;
    expect(d).toBeDefined();
    expect(alwaysDecides(d)).toBe(true);
    expect(designOperating(d, 0.85).undecided).toBeLessThan(1e-12);
    const e = exactErrors(d);
    expect(e.alpha).toBeLessThanOrEqual(HEADLINE.alpha);
    expect(e.beta).toBeLessThanOrEqual(HEADLINE.beta);
    expect(e.alpha).toBeGreaterThanOrEqual(0.8 * HEADLINE.alpha);
    expect(e.beta).toBeGreaterThanOrEqual(0.8 * HEADLINE.beta);
    for (let n = 1; n < d.maxTrials; n++) expect(d.rejectUpTo[n]!).toBeLessThan(d.acceptFrom[n]!);
  });

  it.each(designs)('the optimal design’s average expected trials at its cost points is no worse than the %s design’s', (_name, build) => {
    const d = build()!;
    const optimal = designFor(HEADLINE);
    const avg = (x: SequentialDesign) => costPoints(HEADLINE).reduce((s, c) => s + c.weight * designOperating(x, c.p).expectedTrials, 0);
    expect(avg(optimal)).toBeLessThanOrEqual(avg(d));
    // and its worst case is within 3 % of the line design's
    expect(worstExpectedTrials(optimal).expectedTrials).toBeLessThanOrEqual(1.03 * worstExpectedTrials(d).expectedTrials);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 5. The stagewise interval and estimate
// ---------------------------------------------------------------------------------------------------------------

describe('stagewiseEstimate', () => {
  const fixed20 = fixedDesign(20, 15, 14);

  it.each([0, 1, 3, 7, 10, 13, 14, 15, 17, 19, 20])(
    'a design that only stops at trial 20: %i passes gives the Clopper–Pearson interval',
    (k) => {
      const e = stagewiseEstimate(fixed20, 20, k);
      const cp = clopperPearson(k, 20);
      expect(e.level).toBe(0.95);
      expect(e.lower).toBeCloseTo(cp.lower, 8);
      expect(e.upper).toBeCloseTo(cp.upper, 8);
      expect(e.rate).toBeCloseTo(medianUnbiased(k, 20), 8);
    },
  );

  it('Clopper–Pearson reference sanity: 10 of 20 gives [0.2720, 0.7280]', () => {
    const cp = clopperPearson(10, 20);
    expect(cp.lower).toBeCloseTo(0.272, 3);
    expect(cp.upper).toBeCloseTo(0.728, 3);
  });

  it.each([5, 6, 8, 10, 12, 14, 15])('a design that only stops at trial 20: the estimate for %i passes is ≈ k/n', (k) => {
    expect(Math.abs(stagewiseEstimate(fixed20, 20, k).rate - k / 20)).toBeLessThanOrEqual(0.01);
  });

  it('a 90 % level narrows the interval', () => {
    const wide = stagewiseEstimate(fixed20, 20, 12);
    const narrow = stagewiseEstimate(fixed20, 20, 12, 0.9);
    const cp = clopperPearson(12, 20, 0.9);
    expect(narrow.lower).toBeCloseTo(cp.lower, 8);
    expect(narrow.upper).toBeCloseTo(cp.upper, 8);
    expect(narrow.lower).toBeGreaterThan(wide.lower);
    expect(narrow.upper).toBeLessThan(wide.upper);
  });

  // The headline optimal design: estimates memoised per stopping outcome (about two per stage).
  const headline = designFor(HEADLINE);
  const cache = new Map<string, SequentialEstimate>();
  const estimate = (n: number, k: number) => {
    const key = `${n}/${k}`;
    let e = cache.get(key);
    if (!e) cache.set(key, (e = stagewiseEstimate(headline, n, k)));
    return e;
  };

  it('headline: the earliest PASS (all passes at the first stage that can PASS) has lower limit 0.025^(1/n) < 1 and upper 1', () => {
    const first = headline.acceptFrom.findIndex((a, n) => n >= HEADLINE.minTrials && a <= n);
    expect(first).toBeGreaterThanOrEqual(HEADLINE.minTrials);
    expect(headline.acceptFrom[first]).toBe(first); // only all-pass paths stop there
    const e = estimate(first, first);
    // The best-ranked outcome of all: P(at or above it) = p^first.
    expect(e.lower).toBeCloseTo(0.025 ** (1 / first), 8);
    expect(e.lower).toBeLessThan(1);
    expect(e.upper).toBe(1);
    expect(e.rate).toBeGreaterThan(e.lower);
    expect(e.rate).toBeLessThanOrEqual(1);
  });

  it('headline: the earliest FAIL with no passes has lower limit 0 and upper 1 − 0.025^(1/n)', () => {
    const n = HEADLINE.minTrials;
    expect(stateAt(headline, n, 0)).toBe('reject');
    const e = estimate(n, 0);
    // The worst-ranked outcome of all: P(at or below it) = (1 − p)^n.
    expect(e.lower).toBe(0);
    expect(e.upper).toBeCloseTo(1 - 0.025 ** (1 / n), 8);
    expect(e.rate).toBeGreaterThan(0);
    expect(e.rate).toBeLessThan(e.upper);
  });

  it.each([
    [0.6, 91],
    [0.85, 92],
    [0.95, 93],
  ])('headline at p = %s: simulated coverage over 600 seeded paths ≥ 0.94, and lower ≤ rate ≤ upper', (p, seed) => {
    const rnd = lcg(seed);
    let covered = 0;
    const paths = 600;
    for (let i = 0; i < paths; i++) {
      const r = decideSequential(draw(rnd, p, headline.maxTrials), headline);
      expect(r.state).not.toBe('continue');
      const e = estimate(r.trials, r.passes);
      expect(e.lower).toBeLessThanOrEqual(e.rate);
      expect(e.rate).toBeLessThanOrEqual(e.upper);
      expect(e.lower).toBeGreaterThanOrEqual(0);
      expect(e.upper).toBeLessThanOrEqual(1);
      if (e.lower <= p && p <= e.upper) covered++;
    }
    expect(covered / paths).toBeGreaterThanOrEqual(0.94);
  });

  it.each([0.6, 0.85, 0.95])('headline at p = %s: exact coverage over every stopping outcome ≥ 0.95', (p) => {
    let covered = 0;
    let total = 0;
    for (const o of stoppingOutcomes(headline, p)) {
      total += o.prob;
      if (o.prob < 1e-12) continue; // counted as not covered: conservative
      const e = estimate(o.n, o.k);
      expect(e.lower).toBeLessThanOrEqual(e.rate);
      expect(e.rate).toBeLessThanOrEqual(e.upper);
      if (e.lower <= p && p <= e.upper) covered += o.prob;
    }
    expect(total).toBeCloseTo(1, 12);
    expect(covered).toBeGreaterThanOrEqual(0.95);
  });

  it('headline at p = 0.6: the estimate is closer to the true rate than the naive passes/trials (early FAILs bias it down)', () => {
    const p = 0.6;
    const rnd = lcg(4242);
    const paths = 600;
    let [absEst, absNaive, sumEst, sumNaive] = [0, 0, 0, 0];
    for (let i = 0; i < paths; i++) {
      const r = decideSequential(draw(rnd, p, headline.maxTrials), headline);
      const e = estimate(r.trials, r.passes);
      const naive = r.passes / r.trials;
      absEst += Math.abs(e.rate - p);
      absNaive += Math.abs(naive - p);
      sumEst += e.rate;
      sumNaive += naive;
    }
    expect(sumNaive / paths).toBeLessThan(p); // the naive rate is biased down here
    expect(absEst / paths).toBeLessThan(absNaive / paths);
    expect(Math.abs(sumEst / paths - p)).toBeLessThan(Math.abs(sumNaive / paths - p));
  });

  it('a truncated Wald design (undecided paths at the cap): lower ≤ rate ≤ upper for every stopping outcome', () => {
    const d = waldDesign({ ...WALD, maxTrials: 30 });
    const seen = new Set<string>();
    for (const p of [0.7, 0.85, 0.95]) {
      for (const o of stoppingOutcomes(d, p)) {
        const key = `${o.n}/${o.k}`;
        if (seen.has(key) || o.prob < 1e-6) continue;
        seen.add(key);
        const e = stagewiseEstimate(d, o.n, o.k);
        expect(e.lower).toBeLessThanOrEqual(e.rate);
        expect(e.rate).toBeLessThanOrEqual(e.upper);
        expect(e.lower).toBeLessThan(e.upper);
      }
    }
    expect(seen.size).toBeGreaterThan(10);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 6. Truncation at a user's cap
// ---------------------------------------------------------------------------------------------------------------

describe('truncateDesign', () => {
  const full = designFor(HEADLINE);
  const fullErrors = exactErrors(full);

  it.each([30, 50, 70, 90])('headline design capped at %i: undecided > 0 between p1 and p0, errors no larger', (cap) => {
    const d = truncateDesign(full, cap);
    expect(d.maxTrials).toBe(cap);
    expect(d.minTrials).toBe(HEADLINE.minTrials);
    expect(d.acceptFrom).toEqual(full.acceptFrom.slice(0, cap + 1));
    expect(d.rejectUpTo).toEqual(full.rejectUpTo.slice(0, cap + 1));
    expect(alwaysDecides(d)).toBe(false);
    const mid = designOperating(d, 0.85);
    expect(mid.undecided).toBeGreaterThan(0);
    expect(mid.accept + mid.reject + mid.undecided).toBeCloseTo(1, 12);
    expect(mid.expectedTrials).toBeLessThanOrEqual(designOperating(full, 0.85).expectedTrials + 1e-9);
    const e = exactErrors(d);
    expect(e.alpha).toBeLessThanOrEqual(fullErrors.alpha + 1e-15);
    expect(e.beta).toBeLessThanOrEqual(fullErrors.beta + 1e-15);
    // truncation only takes decisions away
    for (let n = 0; n <= cap; n++) for (let k = 0; k <= n; k++) expect(stateAt(d, n, k)).toBe(stateAt(full, n, k));
  });

  it('a larger cap leaves fewer paths undecided', () => {
    const undecided = [30, 50, 70, 90].map((cap) => designOperating(truncateDesign(full, cap), 0.85).undecided);
    for (let i = 1; i < undecided.length; i++) expect(undecided[i]).toBeLessThan(undecided[i - 1]!);
  });

  it.each([full.maxTrials, full.maxTrials + 10])('a cap of %i (at or above the maximum) leaves the design as it is', (cap) => {
    expect(truncateDesign(full, cap)).toEqual(full);
  });

  it.each([10, 25, 40])('Wald’s design built to 200 and capped at %i equals Wald’s design built to that cap', (cap) => {
    expect(truncateDesign(waldDesign(WALD), cap)).toEqual(waldDesign(WALD, cap));
  });
});
