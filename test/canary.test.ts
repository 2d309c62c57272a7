import { describe, expect, it } from 'vitest';
import { makeScheduler } from '../src/runner/execute.js';
import { configSchema } from '../src/run/config-schema.js';
import type { GradableCase, TrialOutcome, TrialRef } from '../src/run/schema.js';
import {
  canaryCritical,
  boundedEnds,
  canaryDesign,
  canaryFalseAlarm,
  canaryOperating,
  canaryPValue,
  dropZ,
  largestCritical,
  regressedUpTo,
} from '../src/stats/canary-design.js';
import { decideSequential, type SequentialDesign } from '../src/stats/sequential-design.js';
import { addedEnds, fixedTrialsDesign, logEndProbability, stoppedEnds } from '../src/stats/stopped-binomial.js';
import { planCanary, canaryTest, canaryFutilityLevel, storedCanaryParams } from '../src/verdict/canary.js';
import { sideLevel } from '../src/verdict/stopped-sample.js';
import { stagewiseEstimate } from '../src/stats/stagewise.js';
import { blindCases } from '../src/commands/run-baseline.js';
import { baseTrialsFor } from '../src/report/plan-compare.js';
import { priceTopUp } from '../src/runner/resume.js';
import { compareRuns } from '../src/verdict/compare.js';
import { COMPARE_DEFAULTS } from '../src/verdict/compare-defaults.js';
import { DECISION, syntheticRun } from './run-fixtures.js';

const PARAMS = { margin: 0.3, futilityLevel: 0.99, minTrials: 2, maxTrials: 7 };
const BASE_TRIALS = 4;
const baseEnds = stoppedEnds(fixedTrialsDesign(BASE_TRIALS));

/** Every base result and every candidate order, weighed at rate q, that reaches the reject boundary: the brute force. */
function bruteFalseAlarm(c: number, q: number): number {
  let mass = 0;
  for (let kb = 0; kb <= BASE_TRIALS; kb++) {
    const upTo = regressedUpTo({ trials: BASE_TRIALS, passes: kb }, c, PARAMS);
    const pb = Math.exp(
      logEndProbability({ trials: BASE_TRIALS, passes: kb, logPaths: Math.log([1, 4, 6, 4, 1][kb]!) }, Math.log(q), Math.log(1 - q)),
    );
    for (let order = 0; order < 2 ** PARAMS.maxTrials; order++) {
      let [k, hit, p] = [0, false, 1];
      for (let m = 1; m <= PARAMS.maxTrials; m++) {
        const passed = ((order >> (m - 1)) & 1) === 1;
        if (passed) k++;
        p *= passed ? q : 1 - q;
        if (k <= upTo[m]!) hit = true;
      }
      if (hit) mass += pb * p;
    }
  }
  return mass;
}

describe('the canary against a stored base: its exact false-alarm rate', () => {
  it.each([1.0, 1.6, 2.2])('at critical z %s equals the brute force over every base result and candidate order, at its worst rate', (c) => {
    const exact = canaryFalseAlarm({ ends: baseEnds, observed: { trials: 4, passes: 4 } }, c, PARAMS);
    let worst = 0;
    for (let i = 1; i < 400; i++) worst = Math.max(worst, bruteFalseAlarm(c, i / 400));
    expect(exact).toBeGreaterThanOrEqual(worst - 1e-9);
    expect(exact).toBeLessThan(worst + 1e-3);
  });

  it.each([0.01, 0.05, 0.1])(
    'the calibrated critical z keeps false alarms at most α = %s at every common rate, and a lower one would not',
    (alpha) => {
      const base = { ends: stoppedEnds(fixedTrialsDesign(20)), observed: { trials: 20, passes: 18 } };
      const p = { alpha, minTrials: 5, maxTrials: 30 };
      const c = canaryCritical(base, p);
      expect(canaryFalseAlarm(base, c, p)).toBeLessThanOrEqual(alpha);
      expect(canaryFalseAlarm(base, c - 0.05, p)).toBeGreaterThan(canaryFalseAlarm(base, c, p));
      // A base topped up after its design: the level holds over the topped-up rule's ends too.
      const topped = { ends: addedEnds(stoppedEnds(fixedTrialsDesign(12)), 8), observed: { trials: 20, passes: 18 } };
      expect(canaryFalseAlarm(topped, canaryCritical(topped, p), p)).toBeLessThanOrEqual(alpha);
    },
  );

  it('addedEnds: the design then n more trials, every end weighed as its paths say (the probabilities sum to 1)', () => {
    const d = fixedTrialsDesign(3);
    const ends = addedEnds(stoppedEnds(d), 2);
    expect(ends.map((e) => `${e.trials}/${e.passes}`).sort()).toEqual(['5/0', '5/1', '5/2', '5/3', '5/4', '5/5']);
    const q = 0.3;
    const total = ends.reduce((s, e) => s + Math.exp(logEndProbability(e, Math.log(q), Math.log(1 - q))), 0);
    expect(total).toBeCloseTo(1, 12);
    expect(Math.exp(ends.find((e) => e.passes === 2)!.logPaths)).toBeCloseTo(10, 9);
  });
});

describe('the canary boundaries and its p-value', () => {
  const ends = boundedEnds(fixedTrialsDesign(20), 0.975);
  const base = ends.find((e) => e.passes === 18)!;
  const c = canaryCritical({ ends, observed: base }, { alpha: 0.01, minTrials: 5, maxTrials: 40 });
  const design: SequentialDesign = canaryDesign(base, c, { margin: 0.3, futilityLevel: 0.99, minTrials: 5, maxTrials: 40 });

  it('REGRESSED below, UNCHANGED above, never both, nothing before the minimum', () => {
    for (let m = 1; m <= 40; m++) {
      expect(design.rejectUpTo[m]!).toBeLessThan(design.acceptFrom[m]!);
      if (m < 5) expect([design.rejectUpTo[m], design.acceptFrom[m]]).toEqual([-1, m + 1]);
    }
    expect(decideSequential([false, false, false, false, false], design).state).toBe('reject');
    expect(decideSequential(Array<boolean>(40).fill(true), design).state).toBe('accept');
  });

  it.each([
    ['five failures', 'FFFFF'],
    ['a slow slide', 'PFPFFPFFFPFF'],
    ['all passes', 'PPPPPPPPPPPPPPPPPPPP'],
    ['a near miss', 'PPFPPFPPPFPFPPFPPPPF'],
  ])('%s: the p-value is at most α exactly when the trials reached the reject boundary', (_, order) => {
    const seq = [...order].map((x) => x === 'P');
    const d = decideSequential(seq, design);
    const p = canaryPValue({ ends, observed: base }, largestCritical(base, seq.slice(0, d.trials), design), design);
    expect(p <= 0.01).toBe(d.state === 'reject');
  });

  it('the same on 300 seeded paths at rates 0.5 to 0.9, early crossings of the raw z included', () => {
    let seed = 11;
    const uniform = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    let [rejected, agreed] = [0, 0];
    for (let r = 0; r < 300; r++) {
      const rate = 0.5 + (0.4 * r) / 300;
      const seq = Array.from({ length: 40 }, () => uniform() < rate);
      const d = decideSequential(seq, design);
      const p = canaryPValue({ ends, observed: base }, largestCritical(base, seq.slice(0, d.trials), design), design);
      rejected += d.state === 'reject' ? 1 : 0;
      agreed += p <= 0.01 === (d.state === 'reject') ? 1 : 0;
    }
    expect(rejected).toBeGreaterThan(20);
    expect(agreed).toBe(300);
  });

  it('dropZ is the pooled z, positive when the candidate is lower, 0 when every trial passed in both', () => {
    expect(dropZ(9, 10, 5, 10)).toBeCloseTo((0.9 - 0.5) / Math.sqrt(0.7 * 0.3 * 0.2), 12);
    expect(dropZ(5, 10, 9, 10)).toBeLessThan(0);
    expect(dropZ(10, 10, 10, 10)).toBe(0);
  });

  it('its exact operating characteristics agree with 4,000 seeded walks', () => {
    const exact = canaryOperating(ends, 0.9, 0.6, c, { margin: 0.3, futilityLevel: 0.99, minTrials: 5, maxTrials: 40 });
    let [seed, regressed, trials] = [7, 0, 0];
    // mulberry32: a seeded generator good enough for a check at four standard errors.
    const uniform = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    for (let r = 0; r < 4000; r++) {
      let kb = 0;
      for (let i = 0; i < 20; i++) kb += uniform() < 0.9 ? 1 : 0;
      const d = canaryDesign(ends[kb]!, c, { margin: 0.3, futilityLevel: 0.99, minTrials: 5, maxTrials: 40 });
      const seq: boolean[] = [];
      while (seq.length < 40 && decideSequential(seq, d).state === 'continue') seq.push(uniform() < 0.6);
      regressed += decideSequential(seq, d).state === 'reject' ? 1 : 0;
      trials += seq.length;
    }
    expect(Math.abs(regressed / 4000 - exact.regressed)).toBeLessThan(4 * Math.sqrt((exact.regressed * (1 - exact.regressed)) / 4000));
    expect(Math.abs(trials / 4000 - exact.expectedTrials)).toBeLessThan(0.5);
    expect(exact.regressed + exact.unchanged + exact.undecided).toBeCloseTo(1, 12);
  });
});

const defsOf = (ids: string[]): GradableCase[] =>
  ids.map((id) => ({ id, expect: 'atl-jira', exclusive: false, tags: [], decision: { ...DECISION, minTrials: 5 } }));
const SEQUENTIAL = configSchema.parse({ arms: ['skill'], decision: { mode: 'sequential', minTrials: 5 } });

/** Runs a scheduler to its end, one trial at a time, each case passing by its own order of outcomes. */
function drive(s: ReturnType<typeof makeScheduler>, outcomes: Record<string, (n: number) => boolean>): TrialRef[] {
  const refs: TrialRef[] = [];
  for (let ref = s.next(); ref; ref = s.next()) {
    refs.push(ref);
    s.finished(ref, outcomes[ref.caseId]!(ref.n));
  }
  return refs;
}

describe('run --baseline: the canary as the run stores and schedules it, and as compare reads it', () => {
  const base = syntheticRun({ a: { passes: 18, n: 20 }, b: { passes: 18, n: 20 }, c: { passes: 18, n: 20 } });
  const options = { alpha: 0.05, margin: 0.3, power: 0.8, stopAtFirstRegression: true };
  const { canary, gaps } = planCanary(base, defsOf(['a', 'b', 'c', 'new']), options);

  it('every case the base stopped by its rule gets a canary at a third of α; a case the base lacks runs on its own design', () => {
    expect(canary.cases.map((c) => c.caseId)).toEqual(['a', 'b', 'c']);
    expect(canary.caseAlpha).toBeCloseTo(0.05 / 3, 12);
    expect(gaps).toEqual([{ caseId: 'new', why: 'the base run has no such case' }]);
    // The cap: enough for the margin at the planned power, and no more than 4 × the base's trials.
    expect(canary.cases[0]!.design.maxTrials).toBeLessThanOrEqual(80);
  });

  it('the scheduler walks the stored boundaries and stops every case at the first regression', () => {
    const refs = drive(makeScheduler(SEQUENTIAL, defsOf(['a', 'b', 'c']), { canary }), { a: () => true, b: () => false, c: () => true });
    const bTrials = refs.filter((r) => r.caseId === 'b').length;
    expect(decideSequential(Array<boolean>(bTrials).fill(false), { p0: 0.9, p1: 0.6, ...canary.cases[1]!.design }).state).toBe('reject');
    // a and c were cut when b regressed: neither reached its own UNCHANGED.
    expect(refs.filter((r) => r.caseId === 'a').length).toBeLessThanOrEqual(bTrials);
  });

  it('without --stop-at-first-regression every case runs to its own end', () => {
    const { canary: all } = planCanary(base, defsOf(['a', 'b', 'c']), { ...options, stopAtFirstRegression: false });
    const refs = drive(makeScheduler(SEQUENTIAL, defsOf(['a', 'b', 'c']), { canary: all }), {
      a: () => true,
      b: () => false,
      c: () => true,
    });
    const design = { p0: 0.9, p1: 0.6, ...all.cases[0]!.design };
    expect(decideSequential(Array<boolean>(refs.filter((r) => r.caseId === 'a').length).fill(true), design).state).toBe('accept');
  });

  it('--add-trials: each case runs its design, then that many more', () => {
    const fixed = configSchema.parse({ arms: ['skill'], decision: { mode: 'fixed' }, trials: 3 });
    expect(drive(makeScheduler(fixed, defsOf(['a']), { topUps: [2, 1] }), { a: () => true })).toHaveLength(6);
    const refs = drive(makeScheduler(SEQUENTIAL, defsOf(['a']), { topUps: [4] }), { a: () => false });
    const own = drive(makeScheduler(SEQUENTIAL, defsOf(['a'])), { a: () => false });
    expect(refs.length).toBe(own.length + 4);
  });

  it('compare BASE CANDIDATE reads the canary: method canary, REGRESSED where it regressed, UNCHANGED where it ruled the margin out', () => {
    const outcomes = { a: Array<boolean>(40).fill(true), b: Array<boolean>(40).fill(false), c: Array<boolean>(40).fill(true) };
    const { canary: all } = planCanary(base, defsOf(['a', 'b', 'c']), { ...options, stopAtFirstRegression: false });
    const ran = Object.fromEntries(
      all.cases.map((e) => {
        const d = decideSequential(outcomes[e.caseId as 'a'], { p0: 0.9, p1: 0.6, ...e.design });
        return [
          e.caseId,
          {
            passes: outcomes[e.caseId as 'a'].slice(0, d.trials).filter(Boolean).length,
            n: d.trials,
            order: outcomes[e.caseId as 'a']
              .slice(0, d.trials)
              .map((x) => (x ? 'P' : 'F'))
              .join(''),
          },
        ];
      }),
    );
    const run = syntheticRun(ran, { mode: 'sprt', dir: 'runs/candidate' });
    const candidate = {
      ...run,
      manifest: { ...run.manifest, config: SEQUENTIAL, cases: { ...run.manifest.cases, defs: defsOf(['a', 'b', 'c']) }, canary: all },
    };
    const cmp = compareRuns(base, candidate, { ...COMPARE_DEFAULTS, margin: 0.3 });
    const row = (id: string) => cmp.cases.find((c) => c.caseId === id)!;
    expect(cmp.cases.map((c) => c.method)).toEqual(['canary', 'canary', 'canary']);
    expect(row('b').change).toBe('REGRESSED');
    expect(row('b').pValue).toBe(canaryTest(all.cases[1]!, outcomes.b).pValue);
    expect(row('a')).toMatchObject({ change: 'UNCHANGED', reason: "the difference's interval rules out a drop of 0.3" });
    // The row says UNCHANGED only where its own interval rules the margin out: where the canary stopped it.
    expect(row('a').difference.lo).toBeGreaterThan(-0.3);
    expect(cmp.exitCode).toBe(1);
    // Against another base the canary is only the candidate's stopping rule: the exact two-run test, not the canary's.
    const another = syntheticRun({ a: { passes: 18, n: 20 }, b: { passes: 18, n: 20 }, c: { passes: 18, n: 20 } }, { dir: 'runs/other' });
    const other = compareRuns({ ...another, results: { ...another.results, runId: 'r2' } }, candidate);
    expect(other.cases.some((c) => c.method === 'canary')).toBe(false);
  });
});

describe('the canary never says UNCHANGED where its row cannot', () => {
  const level = sideLevel(1 - COMPARE_DEFAULTS.alpha);
  it.each([
    [20, 18, 60],
    [60, 57, 120],
    [80, 74, 120],
  ])('a base of %i trials (%i passes), cap %i: at every UNCHANGED the exact interval rules out a drop of the margin', (n, k, cap) => {
    const ends = boundedEnds(fixedTrialsDesign(n), level);
    const base = ends.find((e) => e.passes === k)!;
    const c = canaryCritical({ ends, observed: base }, { alpha: 0.01, minTrials: 5, maxTrials: cap });
    const design = canaryDesign(base, c, { margin: 0.15, futilityLevel: canaryFutilityLevel(0.05), minTrials: 5, maxTrials: cap });
    let stops = 0;
    for (let m = 5; m <= cap; m++) {
      if (design.acceptFrom[m]! > m) continue;
      stops++;
      // The fewest passes that stop it there: the weakest UNCHANGED it can say at that stage.
      const lower = stagewiseEstimate(design, m, design.acceptFrom[m]!, level).lower;
      expect(lower - base.upper).toBeGreaterThan(-0.15);
    }
    expect(stops).toBeGreaterThan(0);
  });

  it('a base too small to bound the rate leaves the canary blind to a drop of the margin, and says so', () => {
    const small = syntheticRun({ a: { passes: 6, n: 6 }, b: { passes: 5, n: 6 } });
    const big = syntheticRun({ a: { passes: 170, n: 186 }, b: { passes: 175, n: 186 } });
    const options = { alpha: 0.05, margin: 0.15, power: 0.8, stopAtFirstRegression: false };
    expect(blindCases(planCanary(small, defsOf(['a', 'b']), options).canary).map((c) => c.caseId)).toEqual(['a', 'b']);
    expect(blindCases(planCanary(big, defsOf(['a', 'b']), options).canary)).toEqual([]);
  });
});

describe('--add-trials is priced before it runs', () => {
  const trial = (caseId: string, arm: 'skill' | 'ablation', costUsd?: number) =>
    ({ caseId, arm, ...(costUsd === undefined ? {} : { costUsd }) }) as TrialOutcome;
  const stored = [trial('a', 'skill', 0.1), trial('a', 'ablation', 0.1), trial('b', 'skill', 0.1), trial('b', 'skill', 0.1)];

  it('counts every case and arm, at the run mean cost per trial', () => {
    expect(priceTopUp('run.json', stored, 10, undefined)).toEqual({ trials: 30, costUsd: expect.closeTo(3, 9) });
    expect(priceTopUp('run.json', [trial('a', 'skill')], 10, 5)).toEqual({ trials: 10 });
  });

  it('refuses, before anything is recorded, a top-up that passes --max-cost, naming the price and what would hold it', () => {
    expect(() => priceTopUp('runs/x/run.json', stored, 1000, 50)).toThrow(
      /runs\/x\/run\.json: --add-trials 1000 adds 3000 trials, about \$300\.00 .* passes --max-cost 50 — add fewer trials, or raise --max-cost to at least 301/,
    );
  });
});

describe('a canary against the base plan --compare prescribes decides on an unchanged model', () => {
  // Two cases at a margin of 0.3 (small enough to compute exactly in a moment); each case's planned UNCHANGED power
  // is the square root of the suite's, so that both together reach it.
  const [alpha, margin, power, cases] = [0.05, 0.3, 0.8, 2];
  const n = baseTrialsFor(cases, 0.9, 0.9 - margin, alpha, power);
  const ends = boundedEnds(fixedTrialsDesign(n), sideLevel(1 - alpha));
  it.each([0.5, 0.3, 0.7, 0.95])(
    'a case at %f, unchanged: UNCHANGED by its cap with the planned power, REGRESSED at most α/m, exactly',
    (rate) => {
      const k = Math.round(rate * n);
      const base = syntheticRun({ a: { passes: k, n }, b: { passes: k, n } });
      const { canary } = planCanary(base, defsOf(['a', 'b']), { alpha, margin, power, stopAtFirstRegression: false });
      const e = canary.cases[0]!;
      const op = canaryOperating(ends, rate, rate, e.critical, storedCanaryParams(canary, e));
      expect(op.unchanged).toBeGreaterThanOrEqual(power ** (1 / cases));
      expect(op.regressed).toBeLessThanOrEqual(canary.caseAlpha);
    },
  );

  it('REGRESSED is looked for only up to the cap its critical z is calibrated for, and the p-value is that calibration', () => {
    const base = { trials: 40, passes: 36 };
    const ends = boundedEnds(fixedTrialsDesign(40), sideLevel(0.95));
    const looks = { minTrials: 5, maxTrials: 30 };
    const c = canaryCritical({ ends, observed: base }, { alpha: 0.01, ...looks });
    const upTo = regressedUpTo(base, c, { ...looks, maxTrials: 90, regressionCap: 30 });
    expect(upTo).toHaveLength(91);
    expect(upTo.slice(0, 31)).toEqual(regressedUpTo(base, c, looks));
    expect(upTo.slice(31).every((j) => j === -1)).toBe(true);
    // Sixty failures after trial 30 reach no boundary and move no p-value.
    const seq = [...Array<boolean>(30).fill(true), ...Array<boolean>(60).fill(false)];
    const reached = largestCritical(base, seq, { ...looks, maxTrials: 90, regressionCap: 30 });
    expect(reached).toBe(largestCritical(base, seq.slice(0, 30), looks));
    expect(canaryPValue({ ends, observed: base }, reached, { ...looks, maxTrials: 90, regressionCap: 30 })).toBe(
      canaryFalseAlarm({ ends, observed: base }, reached, looks),
    );
  });
});
