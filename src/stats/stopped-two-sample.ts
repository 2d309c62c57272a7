/**
 * An exact test that two pass rates are equal when each run stopped by its own known rule: a sequential design,
 * or a fixed number of trials. Under the null both runs pass at one unknown rate π; each run's end (trials,
 * passes) then has the exact distribution of `stoppedEnds`, the two are independent, and the p-value is the
 * supremum over π of the probability of the pairs of ends at least as extreme as the one observed, as Boschloo's
 * test handles the nuisance rate. Pairs of ends are ordered by the difference of the two observed rates, which needs
 * no assumption about how either run stopped: validity comes from the exact null, not from the statistic. Of the
 * orderings tried it has the most power where early stopping leaves few trials: the exact power of the suite-level
 * canary (Fisher's method, untruncated) on the halved demo profile is 94.1% with it, 91.5% with the pooled z, 91.9%
 * with the signed root likelihood ratio; ordering by the conditional p-value given both runs' totals (Boschloo's ordering of fixed
 * tables) fails outright, as few pairs of ends share a total: 6 of 6 against 3 of 6 came out at p 0.46.
 *
 * Beside the observed p-value the test gives its whole null: the value the p-value takes at every level of the
 * ordering, which the suite-level combination uses instead of treating the p-value as uniform.
 */
import { addedEnds, logEndProbability, stoppedEnds, type StoppedEnd } from './stopped-binomial.js';
import { supremumOverRate } from './rate-supremum.js';
import type { SequentialDesign } from './sequential-design.js';

/** One run of a case: the rule it stopped by (its design, then `added` more trials if it was topped up), and where it ended. */
export interface StoppedSample {
  design: SequentialDesign;
  added?: number;
  trials: number;
  passes: number;
}

/** A stopping rule: a design, then a number of trials added after it stopped. */
export type StoppingRule = Pick<StoppedSample, 'design' | 'added'>;

/** Every end a rule allows, with its log path count. */
export const ruleEnds = (r: StoppingRule): StoppedEnd[] => addedEnds(stoppedEnds(r.design), r.added ?? 0);

/** One tail's null: every value its p-value can take (ascending, the last 1), and the observation's among them. */
export interface PValueNull {
  values: readonly number[];
  observed: number;
}

export interface StoppedTwoSampleResult {
  /** One-sided p-value for H1: the candidate's rate is below the base's. */
  lower: number;
  /** One-sided p-value for H1: the candidate's rate is above the base's. */
  upper: number;
  /** min(1, 2 · min(lower, upper)). */
  twoSided: number;
  lowerNull: PValueNull;
  upperNull: PValueNull;
}

/** The candidate's observed rate minus the base's: the test's ordering. */
export function rateDifference(basePasses: number, baseTrials: number, candidatePasses: number, candidateTrials: number): number {
  return candidatePasses / candidateTrials - basePasses / baseTrials;
}

/** Keys computed along different paths must still tie. */
const TIE_TOLERANCE = 1e-9;
/** Rates (evenly spaced in arcsine scale) at which every level of the null is evaluated at once. */
const NULL_GRID = 1024;

/** One tail: the pairs of ends sorted from most extreme, cut into levels of equal key. */
export interface Tail {
  /** Pair index (base end i, candidate end j: i · candidate ends + j) to its level. */
  levelOf: Int32Array;
  /** Pairs sorted from most extreme; `cuts[l]` of them are at level l or beyond. */
  sorted: Int32Array;
  cuts: number[];
  /** The p-value at each level, from the grid: nondecreasing, the last 1. */
  values: number[];
  /** Levels whose p-value has been refined, and that p-value. */
  refined: Map<number, number>;
}

export interface StoppedNull {
  ends: { base: StoppedEnd[]; candidate: StoppedEnd[] };
  lower: Tail;
  upper: Tail;
}

/** P(end) at every grid rate: row per grid point. */
function endProbabilities(ends: StoppedEnd[], thetas: Float64Array): Float64Array[] {
  return Array.from(thetas, (theta) => {
    const [logP, logQ] = [2 * Math.log(Math.sin(theta)), 2 * Math.log(Math.cos(theta))];
    return Float64Array.from(ends, (e) => Math.exp(logEndProbability(e, logP, logQ)));
  });
}

/**
 * A tail of the null for `side` −1 (the candidate worse) or +1 (better). Each level's p-value is the largest
 * probability of its region over a grid of 1,024 rates; the grid's shortfall against the true supremum (these
 * are smooth functions of the rate) is covered by an allowance of 2·N·h² relative (N the most trials of a pair, h
 * the grid step), at least 0.1%.
 */
function buildTail(ends: StoppedNull['ends'], difference: Float64Array, side: -1 | 1): Tail {
  const m = ends.candidate.length;
  const key = Float64Array.from(difference, (v) => -side * v);
  const sorted = Int32Array.from(key.keys()).sort((a, b) => key[a]! - key[b]!);
  const levelOf = new Int32Array(key.length);
  const cuts: number[] = [];
  let last = Number.NEGATIVE_INFINITY;
  sorted.forEach((pair, i) => {
    const k = key[pair]!;
    if (cuts.length === 0 || k - last > TIE_TOLERANCE * Math.max(1, Math.abs(k))) {
      cuts.push(i + 1);
      last = k;
    } else cuts[cuts.length - 1] = i + 1;
    levelOf[pair] = cuts.length - 1;
  });
  const thetas = Float64Array.from({ length: NULL_GRID }, (_, g) => ((g + 0.5) * Math.PI) / 2 / NULL_GRID);
  const [pb, pc] = [endProbabilities(ends.base, thetas), endProbabilities(ends.candidate, thetas)];
  const best = new Float64Array(cuts.length);
  for (let g = 0; g < NULL_GRID; g++) {
    const [rb, rc] = [pb[g]!, pc[g]!];
    let mass = 0;
    let level = 0;
    for (let i = 0; i < sorted.length; i++) {
      const pair = sorted[i]!;
      mass += rb[(pair / m) | 0]! * rc[pair % m]!;
      if (i + 1 === cuts[level]) {
        if (mass > best[level]!) best[level] = mass;
        level++;
      }
    }
  }
  const most = Math.max(...ends.base.map((e) => e.trials)) + Math.max(...ends.candidate.map((e) => e.trials));
  const allowance = 1 + Math.max(1e-3, 2 * most * (Math.PI / 2 / NULL_GRID) ** 2);
  const values: number[] = [];
  best.forEach((b, l) => values.push(l === cuts.length - 1 ? 1 : Math.min(1, Math.max(b * allowance, values[l - 1] ?? 0))));
  return { levelOf, sorted, cuts, values, refined: new Map() };
}

function buildNull(b: StoppingRule, c: StoppingRule): StoppedNull {
  const ends = { base: ruleEnds(b), candidate: ruleEnds(c) };
  const difference = new Float64Array(ends.base.length * ends.candidate.length);
  ends.base.forEach((x, i) =>
    ends.candidate.forEach((y, j) => (difference[i * ends.candidate.length + j] = rateDifference(x.passes, x.trials, y.passes, y.trials))),
  );
  return { ends, lower: buildTail(ends, difference, -1), upper: buildTail(ends, difference, 1) };
}

/** A design's identity: two designs with equal keys stop every path alike. */
export const designKey = (d: SequentialDesign) => `${d.minTrials}/${d.maxTrials}/${d.acceptFrom.join(',')}/${d.rejectUpTo.join(',')}`;
const ruleKey = (r: StoppingRule) => `${designKey(r.design)}+${r.added ?? 0}`;
/** The test's null for a pair of rules. A suite has few distinct designs: each pair's is built once per process. */
const nulls = new Map<string, StoppedNull>();
export function nullFor(b: StoppingRule, c: StoppingRule): StoppedNull {
  const key = `${ruleKey(b)}|${ruleKey(c)}`;
  let found = nulls.get(key);
  if (!found) nulls.set(key, (found = buildNull(b, c)));
  return found;
}

/**
 * The observed level's p-value, its supremum refined (golden-section search around the grid's peaks); kept per
 * level, as the cases of a suite share their designs and often their ends.
 */
function refinedPValue(table: StoppedNull, tail: Tail, level: number): number {
  if (level === tail.cuts.length - 1) return 1;
  const known = tail.refined.get(level);
  if (known !== undefined) return known;
  const m = table.ends.candidate.length;
  const region = tail.sorted.subarray(0, tail.cuts[level]);
  const p = supremumOverRate((theta) => {
    const [logP, logQ] = [2 * Math.log(Math.sin(theta)), 2 * Math.log(Math.cos(theta))];
    const [pb, pc] = [table.ends.base, table.ends.candidate].map((ends) => ends.map((e) => Math.exp(logEndProbability(e, logP, logQ)))) as [
      number[],
      number[],
    ];
    let mass = 0;
    for (const pair of region) mass += pb[(pair / m) | 0]! * pc[pair % m]!;
    return Math.log(mass);
  });
  tail.refined.set(level, p);
  return p;
}

/**
 * The exact test of equal rates for two stopped runs. Each observed end must be an end of its design (a run
 * stopped short of its rule is not covered: the caller falls back to anytime-valid methods).
 */
export function stoppedTwoSampleTest(base: StoppedSample, candidate: StoppedSample): StoppedTwoSampleResult {
  const table = nullFor(base, candidate);
  const where = (name: string, s: StoppedSample, ends: StoppedEnd[]) => {
    const i = ends.findIndex((e) => e.trials === s.trials && e.passes === s.passes);
    if (i < 0) throw new RangeError(`the ${name} run's ${s.passes} of ${s.trials} is not where its design stops`);
    return i;
  };
  const pair = where('base', base, table.ends.base) * table.ends.candidate.length + where('candidate', candidate, table.ends.candidate);
  const side = (tail: Tail) => {
    const level = tail.levelOf[pair]!;
    // The reported p-value is the refined one; the combination reads the observation at its level of the null.
    return {
      p: Math.min(refinedPValue(table, tail, level), tail.values[level]!),
      null: { values: tail.values, observed: tail.values[level]! },
    };
  };
  const [lower, upper] = [side(table.lower), side(table.upper)];
  return {
    lower: lower.p,
    upper: upper.p,
    twoSided: Math.min(1, 2 * Math.min(lower.p, upper.p)),
    lowerNull: lower.null,
    upperNull: upper.null,
  };
}
