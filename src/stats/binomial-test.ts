import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';

/**
 * Exact one-sided binomial test of H0: p ≥ p0 against p < p0, from c passes in n trials:
 * the p-value is P(X ≤ c) under Binomial(n, p0). A small value is evidence the case is below its threshold.
 */
export function binomialTestBelow(c: number, n: number, p0: number): number {
  if (n === 0) return 1;
  return Math.min(1, Math.max(0, binomialCdf(c, n, p0)));
}

/** Exact one-sided test of H0: p ≤ p1 against p > p1: P(X ≥ c) under Binomial(n, p1). Small = evidence above p1. */
export function binomialTestAbove(c: number, n: number, p1: number): number {
  if (n === 0 || c === 0) return 1;
  return Math.min(1, Math.max(0, 1 - binomialCdf(c - 1, n, p1)));
}

/**
 * The largest pass count that the test rejects at level α (−1 when none can be rejected). P(X ≤ k) climbs with k, so
 * the cutoff is found by bisection: the same k a scan finds, in log n looks (the fixed-N search asks it of every n).
 */
export function rejectionCutoff(n: number, p0: number, alpha: number): number {
  let [rejected, kept] = [-1, n + 1];
  while (kept - rejected > 1) {
    const mid = (rejected + kept) >> 1;
    if (binomialCdf(mid, n, p0) <= alpha) rejected = mid;
    else kept = mid;
  }
  return rejected;
}

/** How far the fixed-N search goes. */
export const FIXED_N_LIMIT = 5000;

/**
 * The smallest fixed N whose exact test has size ≤ α at p0 and power ≥ 1 − β at p1 = p0 − δ: the fixed-N
 * equivalent of a sequential test with the same error rates. Undefined beyond `limit`.
 */
export function fixedNEquivalent(p0: number, p1: number, alpha: number, beta: number, limit = FIXED_N_LIMIT): number | undefined {
  for (let n = 1; n <= limit; n++) {
    const k = rejectionCutoff(n, p0, alpha);
    if (k < 0) continue;
    // PASS when more than k trials pass; at p1 that must happen with probability ≤ β.
    if (1 - binomialCdf(k, n, p1) <= beta) return n;
  }
  return undefined;
}

/**
 * The smallest β any test of exactly n trials can reach while holding α: the randomised Neyman–Pearson test of p0
 * against p1 (FAIL at k passes or fewer, and at k + 1 with the chance that brings its size to exactly α). No design
 * capped at n trials, sequential or not, does better.
 */
export function bestBetaAt(n: number, p0: number, p1: number, alpha: number): number {
  const k = rejectionCutoff(n, p0, alpha);
  const below = k < 0 ? 0 : binomialCdf(k, n, p0);
  const atNext = binomialCdf(k + 1, n, p0) - below;
  const gamma = atNext > 0 ? Math.min(1, (alpha - below) / atNext) : 0;
  const next1 = binomialCdf(k + 1, n, p1) - (k < 0 ? 0 : binomialCdf(k, n, p1));
  return Math.max(0, 1 - binomialCdf(k + 1, n, p1) + (1 - gamma) * next1);
}

/** The fewest trials in which passing every one shows the rate is above p1 at level β: p1^n ≤ β. */
export function trialsForPerfectPass(p1: number, beta: number): number {
  return Math.max(1, Math.ceil(Math.log(beta) / Math.log(p1) - 1e-12));
}
