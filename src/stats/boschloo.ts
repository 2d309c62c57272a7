/**
 * Boschloo's exact unconditional test for two independent binomials: run 1 (base) x1 passes of n1, run 2
 * (candidate) x2 passes of n2. Tables are ordered by Fisher's one-sided p-value; the p-value is the supremum over
 * the common pass rate π of the probability of the tables at least as extreme. Every table Fisher rejects, it
 * rejects too, so it is never less powerful than Fisher's test.
 *
 * Hand-written because no maintained JavaScript package offers an exact unconditional test.
 */
import hypergeometricCdf from '@stdlib/stats-base-dists-hypergeometric-cdf';
import { supremumOverRate } from './rate-supremum.js';
import { logAdd } from './log-space.js';

export interface BoschlooResult {
  /** One-sided p-value for H1: p2 < p1 (the candidate is worse). */
  lower: number;
  /** One-sided p-value for H1: p2 > p1 (the candidate is better). */
  upper: number;
  /** min(1, 2 · min(lower, upper)). */
  twoSided: number;
}

/** Fisher p-values of tied tables are summed along different paths (apart by ~1e-11 at n = 500); keep them tied. */
const TIE_TOLERANCE = 1e-9;

export function boschlooTest(x1: number, n1: number, x2: number, n2: number): BoschlooResult {
  checkCounts(x1, n1);
  checkCounts(x2, n2);
  if (n1 === 0 || n2 === 0) return { lower: 1, upper: 1, twoSided: 1 };
  const lower = candidateWorsePValue(x1, n1, x2, n2);
  // "Candidate better" is "candidate worse" with the runs swapped.
  const upper = candidateWorsePValue(x2, n2, x1, n1);
  return { lower, upper, twoSided: Math.min(1, 2 * Math.min(lower, upper)) };
}

/**
 * For each base pass count a (index), the largest candidate pass count b that the one-sided test for
 * "candidate worse" rejects at `level` (−1 when none). The test's p-value rises with Fisher's p-value, so its
 * rejection region is the Fisher region of the largest threshold whose supremum stays within `level`.
 */
export function candidateWorseRejectionBoundary(n1: number, n2: number, level: number): Int32Array {
  // The supremum never exceeds the Fisher threshold, so Fisher's own region at `level` is inside; double the
  // threshold until the region is not. Only the tables between those two staircases remain to be decided.
  let inside = fisherRegion(n1, n2, level);
  let threshold = level;
  let outside: Int32Array;
  for (;;) {
    threshold = Math.min(1, 2 * threshold);
    outside = fisherRegion(n1, n2, threshold);
    if (threshold === 1 || regionSupremum(n1, n2, outside) > level) break;
    inside = outside;
  }
  const band: number[][] = [];
  const candidates: number[] = [];
  for (let a = 0; a <= n1; a++) {
    const column: number[] = [];
    for (let b = inside[a]! + 1; b <= outside[a]!; b++) column.push(fisherCandidateWorse(a, n1, b, n2));
    band.push(column);
    candidates.push(...column);
  }
  candidates.sort((u, v) => u - v);
  const regionUpTo = (value: number): Int32Array => {
    const limit = value * (1 + TIE_TOLERANCE);
    return inside.map((b, a) => b + band[a]!.filter((f) => f <= limit).length);
  };
  // Binary search for the last candidate whose region's supremum is within level (−1: none is).
  let last = -1;
  let first = candidates.length;
  while (first - last > 1) {
    const mid = (last + first) >> 1;
    if (regionSupremum(n1, n2, regionUpTo(candidates[mid]!)) <= level) last = mid;
    else first = mid;
  }
  return last < 0 ? inside : regionUpTo(candidates[last]!);
}

function checkCounts(x: number, n: number): void {
  if (!Number.isInteger(x) || !Number.isInteger(n) || x < 0 || x > n) throw new RangeError(`need integers 0 ≤ x ≤ n, got ${x} of ${n}`);
}

/** Fisher's one-sided p-value for "candidate worse": P(X2 ≤ x2) given the total passes, hypergeometric. */
function fisherCandidateWorse(x1: number, n1: number, x2: number, n2: number): number {
  return hypergeometricCdf(x2, n1 + n2, x1 + x2, n2);
}

function candidateWorsePValue(x1: number, n1: number, x2: number, n2: number): number {
  return regionSupremum(n1, n2, fisherRegion(n1, n2, fisherCandidateWorse(x1, n1, x2, n2)));
}

/**
 * The tables whose Fisher p-value is at most `threshold`, as a staircase: for each a, every b ≤ boundary[a].
 * Fisher's p-value falls as a rises (more base passes) and rises with b even as the total grows with it, so each
 * column is a prefix and the boundary never falls; walking it costs O(n1 + n2) evaluations, not O(n1 · n2).
 */
function fisherRegion(n1: number, n2: number, threshold: number): Int32Array {
  const limit = threshold * (1 + TIE_TOLERANCE);
  const boundary = new Int32Array(n1 + 1);
  let b = -1;
  for (let a = 0; a <= n1; a++) {
    while (b < n2 && fisherCandidateWorse(a, n1, b + 1, n2) <= limit) b++;
    boundary[a] = b;
  }
  return boundary;
}

/** sup over π of P(region) when both runs pass at rate π, worked in log space so that n up to 500 per side does not underflow. */
function regionSupremum(n1: number, n2: number, boundary: Int32Array): number {
  const first = boundary.findIndex((b) => b >= 0);
  if (first < 0) return 0;
  if (boundary[0] === n2) return 1;
  const lp = new LogRegionProbability(n1, n2, boundary, first);
  return supremumOverRate((theta) => lp.at(theta));
}

/** log P(region) at π = sin²θ, reusing buffers across the many evaluations of one supremum. */
class LogRegionProbability {
  private readonly logChoose1: Float64Array;
  private readonly logChoose2: Float64Array;
  private readonly logCdf2: Float64Array;
  private readonly terms: Float64Array;

  constructor(
    private readonly n1: number,
    private readonly n2: number,
    private readonly boundary: Int32Array,
    private readonly first: number,
  ) {
    this.logChoose1 = logBinomialCoefficients(n1);
    this.logChoose2 = logBinomialCoefficients(n2);
    this.logCdf2 = new Float64Array(boundary[n1]! + 1);
    this.terms = new Float64Array(n1 + 1);
  }

  at(theta: number): number {
    const logP = 2 * Math.log(Math.sin(theta));
    const logQ = 2 * Math.log(Math.cos(theta));
    const { n1, n2, boundary, logChoose1, logChoose2, logCdf2, terms } = this;
    let acc = Number.NEGATIVE_INFINITY;
    for (let b = 0; b < logCdf2.length; b++) {
      acc = logAdd(acc, logChoose2[b]! + b * logP + (n2 - b) * logQ);
      logCdf2[b] = acc;
    }
    let max = Number.NEGATIVE_INFINITY;
    for (let a = this.first; a <= n1; a++) {
      const t = logChoose1[a]! + a * logP + (n1 - a) * logQ + logCdf2[boundary[a]!]!;
      terms[a] = t;
      if (t > max) max = t;
    }
    if (max === Number.NEGATIVE_INFINITY) return max;
    let sum = 0;
    for (let a = this.first; a <= n1; a++) sum += Math.exp(terms[a]! - max);
    return max + Math.log(sum);
  }
}

function logBinomialCoefficients(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 1; k <= n; k++) out[k] = out[k - 1]! + Math.log((n - k + 1) / k);
  return out;
}
