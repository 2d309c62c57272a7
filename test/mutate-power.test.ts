import { describe, expect, it } from 'vitest';
import {
  fixedNoticePower,
  NOTICE_DRAWS,
  NOTICE_SEED,
  noticePower,
  regressedOn,
  simulatedNoticePower,
  trialsToNotice,
  type MovedCase,
} from '../src/mutate/power.js';
import { clopperPearsonInterval } from '../src/stats/clopper-pearson.js';
import { fixedTrialsDesign, logEndProbability, stoppedEnds } from '../src/stats/stopped-binomial.js';
import { optimalDesign } from '../src/stats/optimal-design.js';
import type { SequentialDesign } from '../src/stats/sequential-design.js';
import { designEvidence, fixedEvidence } from '../src/verdict/compare.js';

/**
 * The power a mutate report states: the whole rule `noticed` counts (a case REGRESSED on its own test, or the combined
 * test), simulated, against what can be computed exactly without it.
 */

const ALPHA = 0.05;
/** A sequential design of the kind a case stops by (p0 0.9 against p1 0.6: small, so enumerating its ends is quick). */
const SEQUENTIAL = optimalDesign({ p0: 0.9, p1: 0.6, alpha: 0.05, beta: 0.2, minTrials: 3 }, 15);
const FIXED_8 = fixedTrialsDesign(8);

const moved = (design: SequentialDesign, rates: [number, number][]): MovedCase[] =>
  rates.map(([from, to], i) => ({ caseId: `c${i}`, design, from, to }));

/**
 * The whole rule's chance computed by enumerating every pair of ends of a one-case suite: where a case is alone, its
 * own test and the combination are over one p-value, and the chance is a finite sum.
 */
function enumerated(c: MovedCase, fixed: boolean): number {
  const ends = stoppedEnds(c.design);
  const chance = (rate: number) => ends.map((e) => Math.exp(logEndProbability(e, Math.log(rate), Math.log1p(-rate))));
  const [before, after] = [chance(c.from), chance(c.to)];
  let sum = 0;
  ends.forEach((b, i) =>
    ends.forEach((e, j) => {
      const evidence = fixed
        ? fixedEvidence(b.passes, b.trials, e.passes, e.trials)
        : designEvidence({ design: c.design, ...b }, { design: c.design, ...e });
      if (regressedOn([evidence], ALPHA)) sum += before[i]! * after[j]!;
    }),
  );
  return sum;
}

describe('simulatedNoticePower: the chance of the whole rule, its interval holding what enumeration computes', () => {
  it.each<[string, SequentialDesign, boolean, number, number]>([
    ['a sequential design, no change (a false alarm)', SEQUENTIAL, false, 0.9, 0.9],
    ['a sequential design, 0.9 → 0.45', SEQUENTIAL, false, 0.9, 0.45],
    ['a sequential design, 0.95 → 0.6', SEQUENTIAL, false, 0.95, 0.6],
    ['8 trials stopped by the exact design test, 0.8 → 0.3', FIXED_8, false, 0.8, 0.3],
    ["8 trials fixed-N (Boschloo's test), 0.8 → 0.3", FIXED_8, true, 0.8, 0.3],
    ["8 trials fixed-N (Boschloo's test), no change", FIXED_8, true, 0.6, 0.6],
  ])('%s', (_name, design, fixed, from, to) => {
    const [c] = moved(design, [[from, to]]);
    const exact = enumerated(c!, fixed);
    const simulated = simulatedNoticePower([c!], ALPHA, { seed: NOTICE_SEED, fixed });
    expect(simulated.n).toBe(NOTICE_DRAWS);
    // Narrow enough to tell a floor from the rule: ±1.6% at most.
    expect(simulated.hi - simulated.lo).toBeLessThan(0.033);
    // Held to its 99.9% interval: six rows at 95% would miss one now and then by chance alone.
    const wide = clopperPearsonInterval(simulated.successes, simulated.n, 0.999);
    expect(wide.lo).toBeLessThanOrEqual(exact);
    expect(wide.hi).toBeGreaterThanOrEqual(exact);
  });
});

describe('simulatedNoticePower on suites: seeded, above its exact floor, and no false alarm above α', () => {
  const suites: [string, MovedCase[], boolean][] = [
    [
      'no case moves (the null mutant)',
      moved(SEQUENTIAL, [
        [0.9, 0.9],
        [0.95, 0.95],
        [0.6, 0.6],
        [0.99, 0.99],
        [0.9, 0.9],
      ]),
      false,
    ],
    [
      'one case of five halves',
      moved(SEQUENTIAL, [
        [0.9, 0.45],
        [0.95, 0.95],
        [0.6, 0.6],
        [0.99, 0.99],
        [0.9, 0.9],
      ]),
      false,
    ],
    [
      'three cases of five halve',
      moved(SEQUENTIAL, [
        [0.9, 0.45],
        [0.95, 0.48],
        [0.6, 0.3],
        [0.99, 0.99],
        [0.9, 0.9],
      ]),
      false,
    ],
    [
      'fixed-N, one case of four falls',
      moved(FIXED_8, [
        [0.9, 0.2],
        [0.9, 0.9],
        [0.7, 0.7],
        [0.95, 0.95],
      ]),
      true,
    ],
  ];

  it.each(suites)('%s', (_name, cases, fixed) => {
    const simulated = simulatedNoticePower(cases, ALPHA, { seed: NOTICE_SEED, fixed });
    expect(simulatedNoticePower(cases, ALPHA, { seed: NOTICE_SEED, fixed })).toEqual(simulated);
    const floor = fixed ? fixedNoticePower(cases, 8, ALPHA)! : noticePower(cases, ALPHA);
    // The rule counts every draw the combined test counts, and more.
    expect(simulated.hi).toBeGreaterThanOrEqual(floor);
    if (cases.every((c) => c.from === c.to)) expect(simulated.hi).toBeLessThanOrEqual(ALPHA);
  });

  it('another seed draws otherwise, within the interval', () => {
    const [, threeOfFive] = suites[2]!;
    const [a, b] = [1, 2].map((seed) => simulatedNoticePower(threeOfFive, ALPHA, { seed, fixed: false }));
    expect(a!.successes).not.toBe(b!.successes);
    expect(Math.abs(a!.p - b!.p)).toBeLessThan(a!.hi - a!.lo);
  });
});

describe('trialsToNotice targets the floor: at the size it names the combined test alone reaches 80%', () => {
  it.each<[string, [number, number][]]>([
    ['one case falls 0.9 → 0.5', [[0.9, 0.5]]],
    [
      'two cases fall 0.95 → 0.7, one stays',
      [
        [0.95, 0.7],
        [0.95, 0.7],
        [0.8, 0.8],
      ],
    ],
  ])('%s', (_name, rates) => {
    const cases = moved(SEQUENTIAL, rates);
    const n = trialsToNotice(cases, ALPHA)!;
    expect(noticePower(moved(fixedTrialsDesign(n), rates), ALPHA)).toBeGreaterThanOrEqual(0.8);
    expect(simulatedNoticePower(moved(fixedTrialsDesign(n), rates), ALPHA, { seed: NOTICE_SEED, fixed: false }).hi).toBeGreaterThanOrEqual(
      0.8,
    );
  });
});
