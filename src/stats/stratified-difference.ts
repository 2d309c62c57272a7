import { zFor } from './wilson.js';
import type { Interval } from '../run/schema.js';

/** One stratum (a case) of a two-run comparison: passes and trials in each run. */
export interface Stratum {
  base: { successes: number; n: number };
  candidate: { successes: number; n: number };
  /**
   * The case's own estimate of its change, when it has a better one than the observed rates' difference (a
   * sequential design's median-unbiased estimates, which undo the bias of stopping early): point and centre.
   */
  difference?: number;
}

/**
 * The difference in a rate across a suite, candidate − base, each case weighing the same (the cases' rates differ,
 * so pooling their trials would let the longest-running case speak for the suite). The point is the mean of the
 * cases' differences (each case's own estimate where it has one); the interval is Agresti and Caffo's (one pass and
 * one failure added to each run of each case), whose variance stays sensible at 0 % and 100 % and at the handful of
 * trials a sequential case stops at; its coverage under early stopping is measured in bench/canary.
 * Cases without a trial in either run are left out; none left gives NaN and [−1, 1].
 */
export function stratifiedDifference(strata: readonly Stratum[], confidence = 0.95): { diff: number; cases: number } & Interval {
  const used = strata.filter((s) => s.base.n > 0 && s.candidate.n > 0);
  if (used.length === 0) return { diff: Number.NaN, cases: 0, lo: -1, hi: 1 };
  let diff = 0;
  let adjusted = 0;
  let variance = 0;
  for (const { base, candidate, difference } of used) {
    const [pb, pc] = [(base.successes + 1) / (base.n + 2), (candidate.successes + 1) / (candidate.n + 2)];
    diff += difference ?? candidate.successes / candidate.n - base.successes / base.n;
    adjusted += difference ?? pc - pb;
    variance += (pb * (1 - pb)) / (base.n + 2) + (pc * (1 - pc)) / (candidate.n + 2);
  }
  const k = used.length;
  const half = (zFor(confidence) * Math.sqrt(variance)) / k;
  const [point, centre] = [diff / k, adjusted / k];
  return { diff: point, cases: k, lo: Math.max(-1, Math.min(point, centre - half)), hi: Math.min(1, Math.max(point, centre + half)) };
}
