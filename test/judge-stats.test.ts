import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JudgeSample } from '../src/checks/judge-prompt.js';
import {
  agreementTable,
  cohenKappa,
  KAPPA_TARGET_HALF_WIDTH,
  kappaWaldInterval,
  labelsMoreNeeded,
  type AgreementTable,
} from '../src/stats/cohen-kappa.js';
import { DEFAULT_STABILITY_RULE, judgeStability, stabilityDecision, type TrialJudgeSamples } from '../src/stats/judge-stability.js';
import { flipRateFromChanged, rejudgeFlip } from '../src/stats/rejudge-flip.js';
import { wilsonInterval } from '../src/stats/wilson.js';

const SAME: JudgeSample[] = ['yes', 'yes', 'yes'];
const SPLIT: JudgeSample[] = ['yes', 'no', 'yes'];
/** Trials of one item each: `split` of them with disagreeing samples, the rest unanimous. */
const oneItemTrials = (trials: number, split: number): TrialJudgeSamples[] =>
  Array.from({ length: trials }, (_, t) => [t < split ? SPLIT : SAME]);

describe('judge stability: the exact one-sided test of the disagreement share against maxFlipRate', () => {
  // Tails P(X ≥ k | n, p) checked by hand: 1 − Σ_{j<k} C(n, j) p^j (1 − p)^(n−j).
  it.each([
    [4, 10, 0.1, 0.0127951984, true],
    [3, 10, 0.1, 0.0701908264, false],
    [2, 10, 0.1, 0.2639010709, false],
    [7, 40, 0.1, 0.099516424, false],
    [1, 1, 0.1, 0.1, false],
    [1, 1, 0.01, 0.01, true],
    [0, 10, 0.1, 1, false],
  ])('%i of %i disagreeing against %f: p = %f, UNSTABLE %s', (disagreeing, comparable, maxFlipRate, p, unstable) => {
    const d = stabilityDecision(disagreeing, comparable, { ...DEFAULT_STABILITY_RULE, maxFlipRate });
    expect(d.pValue).toBeCloseTo(p, 9);
    expect(d.unstable).toBe(unstable);
    expect(d.noEvidence).toBe(false);
  });

  it('counts comparable and disagreeing items over trials and items, with the Wilson interval at the rule’s confidence', () => {
    const s = judgeStability(oneItemTrials(10, 4), { ...DEFAULT_STABILITY_RULE, confidence: 0.9 });
    expect(s).toMatchObject({ comparable: 10, disagreeing: 4, unstable: true, noEvidence: false });
    expect(s.share).toEqual(wilsonInterval(4, 10, 0.9));
    const twoItems = judgeStability([
      [SPLIT, SAME],
      [SAME, SAME],
    ]);
    expect(twoItems).toMatchObject({ comparable: 4, disagreeing: 1 });
  });

  it.each<[string, JudgeSample[], boolean, boolean]>([
    ['three readable, split', ['yes', 'no', 'no'], true, true],
    ['two readable, split', ['yes', 'error', 'no'], true, true],
    ['two readable, agreeing', ['no', 'error', 'no'], true, false],
    ['one readable', ['yes', 'error', 'error'], false, false],
    ['all errors', ['error', 'error', 'error'], false, false],
    ['one sample', ['yes'], false, false],
  ])('an item with %s samples %j: comparable %s, disagreeing %s', (_, samples, comparable, disagreeing) => {
    expect(judgeStability([[samples]])).toMatchObject({ comparable: comparable ? 1 : 0, disagreeing: disagreeing ? 1 : 0 });
  });

  it.each<[string, TrialJudgeSamples[]]>([
    ['no trials', []],
    ['trials without items', [[], []]],
    ['only unreadable samples', [[['error', 'error', 'error']], [['yes', 'error', 'error']]]],
  ])('%s: no evidence, so not UNSTABLE', (_, trials) => {
    const s = judgeStability(trials);
    expect(s).toMatchObject({ comparable: 0, disagreeing: 0, pValue: 1, unstable: false, noEvidence: true });
    expect(s.share).toMatchObject({ lo: 0, hi: 1 });
  });

  it('no comparable item is never UNSTABLE, even at α = 1', () => {
    expect(stabilityDecision(0, 0, { ...DEFAULT_STABILITY_RULE, alpha: 1 }).unstable).toBe(false);
  });
});

describe('rejudge: changed answers, the per-sample flip rate they imply, and changed verdicts', () => {
  it.each([0, 0.02, 0.07, 0.2, 0.35, 0.5])('ê inverts d = 2e(1 − e) at e = %f', (e) => {
    expect(flipRateFromChanged(2 * e * (1 - e))).toBeCloseTo(e, 12);
  });

  it.each([
    [0.07, 0.0363190752],
    [0.1302, 0.07],
    [0.5, 0.5],
    [0.6, 0.5],
  ])('d = %f gives e = %f (d above 0.5 read as 0.5)', (d, e) => {
    expect(flipRateFromChanged(d)).toBeCloseTo(e, 9);
  });

  it('the frozen-set experiment: 14 of 200 verdicts changed, every answer of those trials flipped', () => {
    const stored = oneItemTrials(200, 0);
    const rejudged = Array.from({ length: 200 }, (_, t): JudgeSample[][] => [t < 14 ? ['no', 'no', 'no'] : SAME]);
    const r = rejudgeFlip(stored, rejudged);
    expect(r.verdicts).toMatchObject({ successes: 14, n: 200 });
    // Exact (Clopper–Pearson): wider than Wilson's [0.0422, 0.1141] on the low side.
    expect(r.verdicts.lo).toBeCloseTo(0.0387955704, 9);
    expect(r.verdicts.hi).toBeCloseTo(0.1146597335, 9);
    expect(r.changed).toMatchObject({ successes: 42, n: 600, p: 0.07 });
    // ê and its bounds: the inversion of d̂ = 0.07 and of its Wilson bounds [0.05220, 0.09327].
    expect(r.flipRate.e).toBeCloseTo(0.0363190752, 9);
    expect(r.flipRate.lo).toBeCloseTo(0.0268202792, 9);
    expect(r.flipRate.hi).toBeCloseTo(0.0490394469, 9);
    expect(r).toMatchObject({ errorPairs: 0, verdictErrors: 0 });
  });

  it('pairs by index, and leaves out pairs with an error on either side and judge_error verdicts', () => {
    const r = rejudgeFlip(
      [[['yes', 'yes', 'no']], [['no', 'error', 'no']], [['yes', 'no', 'error']], [SAME]],
      [[['no', 'no', 'no']], [['no', 'no', 'error']], [['yes', 'no', 'no']], [['yes', 'no', 'error']]],
    );
    // Readable pairs: (y,n) (y,n) (n,n) · (n,n) · (y,y) (n,n) · (y,y) (y,n): 3 changed of 8; four pairs hold an error.
    expect(r.changed).toMatchObject({ successes: 3, n: 8 });
    expect(r.errorPairs).toBe(4);
    // Verdicts: yes → no, no → no, judge_error (1 of 3 each way) → no, yes → judge_error.
    expect(r.verdicts).toMatchObject({ successes: 1, n: 2 });
    expect(r.verdictErrors).toBe(2);
  });

  it('all errors: nothing to share, the uninformative intervals', () => {
    const r = rejudgeFlip([[['error', 'error', 'error']]], [[['yes', 'yes', 'yes']]]);
    expect(r.changed).toMatchObject({ n: 0, lo: 0, hi: 1 });
    expect(r.flipRate).toMatchObject({ e: Number.NaN, lo: 0, hi: 0.5 });
    expect(r).toMatchObject({ errorPairs: 3, verdictErrors: 1 });
    expect(r.verdicts.n).toBe(0);
  });

  it('n = 1: one pair, one verdict', () => {
    const r = rejudgeFlip([[['yes']]], [[['no']]]);
    expect(r.changed).toMatchObject({ successes: 1, n: 1, p: 1 });
    expect(r.flipRate.e).toBe(0.5);
    expect(r.verdicts).toMatchObject({ successes: 1, n: 1 });
  });

  it.each<[string, TrialJudgeSamples[]]>([
    ['a trial missing', [[SAME]]],
    ['an item missing', [[SAME], []]],
    ['a sample missing', [[SAME], [['yes', 'yes']]]],
  ])('refuses re-asked samples that do not match the stored requests: %s', (_, rejudged) => {
    expect(() => rejudgeFlip([[SAME], [SAME]], rejudged)).toThrow(RangeError);
  });
});

const table = (yesYes: number, yesNo: number, noYes: number, noNo: number): AgreementTable => ({ yesYes, yesNo, noYes, noNo });

describe("Cohen's κ of judge verdicts against human labels", () => {
  // κ = (po − pe)/(1 − pe) by hand: e.g. 20/5/10/15 has po = 0.7, pe = 0.5·0.6 + 0.5·0.4 = 0.5.
  it.each([
    [20, 5, 10, 15, 0.4, 0.7],
    [45, 15, 25, 15, 3 / 23, 0.6],
    [25, 35, 5, 35, 7 / 27, 0.6],
    [25, 0, 0, 25, 1, 1],
    [30, 20, 0, 0, 0, 0.6],
  ])('%i/%i/%i/%i → κ %f, raw agreement %f', (a, b, c, d, kappa, po) => {
    const k = cohenKappa(table(a, b, c, d));
    expect(k.kappa).toBeCloseTo(kappa, 12);
    expect(k.agreement.p).toBeCloseTo(po, 12);
  });

  it('the plain Fleiss–Cohen–Everitt interval of the textbook table, by hand', () => {
    // A = .4(1 − 1.1·.6)² + .3(1 − .9·.6)² = .10972; B = .6²(.1·1.1² + .2·.9²) = .10188; C = (.4 − .5·.6)² = .01;
    // se = sqrt(A + B − C) / (.5·sqrt(50)) = .1269960.
    const plain = kappaWaldInterval(table(20, 5, 10, 15), 0.95, 0)!;
    expect(plain.lo).toBeCloseTo(0.4 - 1.959963985 * 0.126996063, 7);
    expect(plain.hi).toBeCloseTo(0.4 + 1.959963985 * 0.126996063, 7);
  });

  it('matches the 1969 form of the variance written with po and pe', () => {
    const cell = fc.integer({ min: 0, max: 60 });
    fc.assert(
      fc.property(cell, cell, cell, cell, (a, b, c, d) => {
        const n = a + b + c + d;
        fc.pre(a + c > 0 && b + d > 0);
        const p = [
          [a / n, b / n],
          [c / n, d / n],
        ];
        const row = [p[0]![0]! + p[0]![1]!, p[1]![0]! + p[1]![1]!];
        const col = [p[0]![0]! + p[1]![0]!, p[0]![1]! + p[1]![1]!];
        const po = p[0]![0]! + p[1]![1]!;
        const pe = row[0]! * col[0]! + row[1]! * col[1]!;
        let sum = 0;
        for (const i of [0, 1])
          for (const j of [0, 1])
            sum +=
              i === j ? p[i]![i]! * (1 - pe - (row[i]! + col[i]!) * (1 - po)) ** 2 : (1 - po) ** 2 * p[i]![j]! * (col[i]! + row[j]!) ** 2;
        const se = Math.sqrt(Math.max(0, sum - (po * pe - 2 * pe + po) ** 2) / (n * (1 - pe) ** 4));
        const kappa = (po - pe) / (1 - pe);
        const r = kappaWaldInterval(table(a, b, c, d), 0.95, 0)!;
        const z = 1.959963985;
        // Loose enough for the rounding noise under a square root where the variance is 0 (a judge answering one way).
        return Math.abs(r.lo - Math.max(-1, kappa - z * se)) < 1e-6 && Math.abs(r.hi - Math.min(1, kappa + z * se)) < 1e-6;
      }),
      { seed: 1969, numRuns: 2000 },
    );
  });

  it('perfect agreement: the plain interval collapses to a point, the reported one does not', () => {
    expect(kappaWaldInterval(table(25, 0, 0, 25), 0.95, 0)).toEqual({ lo: 1, hi: 1 });
    const k = cohenKappa(table(25, 0, 0, 25));
    expect(k).toMatchObject({ kappa: 1, hi: 1 });
    if (k.kappa === null) throw new Error('κ defined');
    expect(k.lo).toBeLessThan(0.95);
  });

  it('the reported interval holds κ̂ and stays in [−1, 1]', () => {
    const cell = fc.integer({ min: 0, max: 80 });
    fc.assert(
      fc.property(cell, cell, cell, cell, fc.constantFrom(0.8, 0.95, 0.99), (a, b, c, d, confidence) => {
        const k = cohenKappa(table(a, b, c, d), confidence);
        if (k.kappa === null) return a + c === 0 || b + d === 0;
        return k.lo >= -1 && k.hi <= 1 && k.lo <= k.kappa + 1e-12 && k.kappa <= k.hi + 1e-12;
      }),
      { seed: 25, numRuns: 20_000 },
    );
  });

  it('on a handful of labels the pseudo-counts would leave κ̂ outside: the interval is widened to hold it', () => {
    // Two labels, both agreeing: κ̂ = 1, while the pseudo-count interval at 80% alone is about [−0.16, 0.83].
    const k = cohenKappa(table(1, 0, 0, 1), 0.8);
    expect(k).toMatchObject({ kappa: 1, hi: 1 });
    if (k.kappa !== null) expect(k.lo).toBeLessThan(0);
    expect(kappaWaldInterval(table(1, 0, 0, 1), 0.8)!.hi).toBeLessThan(0.9);
  });

  it.each([
    ['no labels', table(0, 0, 0, 0), 'no labels'],
    ['human labels all yes, judge agreeing', table(50, 0, 0, 0), 'every human label is yes'],
    ['human labels all yes, judge mixed', table(49, 0, 1, 0), 'every human label is yes'],
    ['human labels all no', table(0, 3, 0, 60), 'every human label is no'],
    ['n = 1', table(1, 0, 0, 0), 'every human label is yes'],
  ])('%s: κ undefined, with the reason', (_, t, reason) => {
    const k = cohenKappa(t);
    expect(k.kappa).toBeNull();
    if (k.kappa !== null) throw new Error('κ undefined');
    expect(k.reason).toContain(reason);
  });

  it.each([
    [49, true],
    [50, false],
  ])('%i labels: fewLabels %s', (n, few) => {
    expect(cohenKappa(table(n - 10, 0, 0, 10)).fewLabels).toBe(few);
  });

  it('counts label pairs into the table', () => {
    expect(
      agreementTable([
        { judge: 'yes', human: 'yes' },
        { judge: 'yes', human: 'no' },
        { judge: 'no', human: 'yes' },
        { judge: 'no', human: 'no' },
        { judge: 'yes', human: 'no' },
      ]),
    ).toEqual(table(1, 2, 1, 1));
  });
});

describe('labelsMoreNeeded: the labels more that bring κ to ±0.1', () => {
  const table = (yesYes: number, yesNo: number, noYes: number, noNo: number) => ({ yesYes, yesNo, noYes, noNo });
  const half = (t: ReturnType<typeof table>) => {
    const i = kappaWaldInterval(t)!;
    return (i.hi - i.lo) / 2;
  };
  const scaled = (t: ReturnType<typeof table>, m: number) => {
    const n = t.yesYes + t.yesNo + t.noYes + t.noNo;
    const f = (n + m) / n;
    return table(t.yesYes * f, t.yesNo * f, t.noYes * f, t.noNo * f);
  };

  it.each([
    ['no labels', table(0, 0, 0, 0)],
    ['human labels all yes', table(5, 0, 3, 0)],
    ['human labels all no', table(0, 4, 0, 6)],
  ])('cannot say with %s', (_, t) => {
    expect(labelsMoreNeeded(t)).toBeUndefined();
  });

  it('needs none once the interval is that narrow', () => {
    const t = table(400, 20, 20, 400);
    expect(half(t)).toBeLessThanOrEqual(KAPPA_TARGET_HALF_WIDTH);
    expect(labelsMoreNeeded(t)).toBe(0);
  });

  it.each([table(8, 2, 1, 9), table(15, 3, 4, 8), table(3, 1, 1, 1), table(30, 10, 5, 5)])(
    'gives the smallest count that reaches the width, the labels falling as before (%o)',
    (t) => {
      const m = labelsMoreNeeded(t)!;
      expect(m).toBeGreaterThan(0);
      expect(half(scaled(t, m))).toBeLessThanOrEqual(KAPPA_TARGET_HALF_WIDTH);
      expect(half(scaled(t, m - 1))).toBeGreaterThan(KAPPA_TARGET_HALF_WIDTH);
    },
  );

  it('asks fewer more of a table that already holds more of the same', () => {
    expect(labelsMoreNeeded(table(16, 4, 2, 18))!).toBeLessThan(labelsMoreNeeded(table(8, 2, 1, 9))!);
  });

  it('a wider target asks fewer', () => {
    expect(labelsMoreNeeded(table(8, 2, 1, 9), 0.95, 0.2)!).toBeLessThan(labelsMoreNeeded(table(8, 2, 1, 9))!);
  });
});
