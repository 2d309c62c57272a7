/**
 * The rate of a case stopped by a sequential design, without the bias of stopping early: an exact interval and a
 * median-unbiased estimate under the stagewise ordering of the design's outcomes. Stopping at a boundary
 * inflates the naive k/n (a case that passes its first trials stops before they can be diluted); these hold
 * whatever the true rate, because they are computed from the design's own stopping rule.
 */
import { stateAt, type SequentialDesign } from './sequential-design.js';

export interface SequentialEstimate {
  /** Median-unbiased estimate of the pass rate. */
  rate: number;
  lower: number;
  upper: number;
  /** Two-sided coverage of [lower, upper]. */
  level: number;
}

/**
 * Where an outcome (stopped at n with k passes) ranks, higher meaning better for the rate: PASSing earlier beats
 * PASSing later, which beats every outcome at the last stage (ranked by passes), which beats FAILing later,
 * which beats FAILing earlier; within a stage, more passes rank higher.
 */
function rank(d: SequentialDesign, n: number, k: number): [number, number, number] {
  if (n >= d.maxTrials) return [1, 0, k];
  return stateAt(d, n, k) === 'accept' ? [2, -n, k] : [0, n, k];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * Where the design can stop, stage by stage, and how each stopping outcome ranks against `at`: the part of `tails`
 * that does not depend on the rate, worked out once for the many rates a search tries. Each stage lists its
 * stopping pass counts in rising order, each with the sign of its rank against `at`.
 */
function stopsAgainst(d: SequentialDesign, at: [number, number, number]): { k: number; order: number }[][] {
  const stops: { k: number; order: number }[][] = [[]];
  for (let n = 1; n <= d.maxTrials; n++) {
    const stage: { k: number; order: number }[] = [];
    for (let k = 0; k <= n; k++)
      if (n >= d.maxTrials || stateAt(d, n, k) !== 'continue') stage.push({ k, order: Math.sign(compare(rank(d, n, k), at)) });
    stops.push(stage);
  }
  return stops;
}

/** P(outcome ranks at or above `at`) and P(at or below it) when the true rate is p. */
function tails(stops: ReturnType<typeof stopsAgainst>, p: number): { above: number; below: number } {
  // One array updated in place from the top down: alive[k] is the chance of k passes so far, not yet stopped.
  const alive = new Float64Array(stops.length);
  alive[0] = 1;
  let above = 0;
  let below = 0;
  for (let n = 1; n < stops.length; n++) {
    alive[n] = alive[n - 1]! * p;
    for (let k = n - 1; k > 0; k--) alive[k] = alive[k]! * (1 - p) + alive[k - 1]! * p;
    alive[0] = alive[0]! * (1 - p);
    for (const { k, order } of stops[n]!) {
      const mass = alive[k]!;
      if (mass === 0) continue;
      if (order >= 0) above += mass;
      if (order <= 0) below += mass;
      alive[k] = 0;
    }
  }
  return { above, below };
}

/** The p at which a tail probability rising with p (falling, for `rising` false) reaches `target`, by bisection. */
function solve(tail: (p: number) => number, target: number, rising: boolean): number {
  let [lo, hi] = [0, 1];
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) < target === rising) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The upper end alone of `stagewiseEstimate`'s interval: one search instead of four. */
export function stagewiseUpper(d: SequentialDesign, trials: number, passes: number, level: number): number {
  const stops = stopsAgainst(d, rank(d, trials, passes));
  const below = (p: number) => tails(stops, p).below;
  const tail = (1 - level) / 2;
  return below(1) >= tail ? 1 : solve(below, tail, false);
}

/**
 * The exact interval (Clopper–Pearson-like, each tail at most (1−level)/2) and the median-unbiased estimate for
 * the outcome the design stopped at: `trials` scored trials with `passes` passes.
 */
export function stagewiseEstimate(d: SequentialDesign, trials: number, passes: number, level = 0.95): SequentialEstimate {
  const stops = stopsAgainst(d, rank(d, trials, passes));
  const above = (p: number) => tails(stops, p).above;
  const below = (p: number) => tails(stops, p).below;
  const tail = (1 - level) / 2;
  // P(at or above) rises with p: the lower limit is where it reaches the tail; the upper limit mirrors it.
  const lower = above(0) >= tail ? 0 : solve(above, tail, true);
  const upper = stagewiseUpper(d, trials, passes, level);
  const rate = (solve(above, 0.5, true) + solve(below, 0.5, false)) / 2;
  return { rate: Math.min(upper, Math.max(lower, rate)), lower, upper, level };
}
