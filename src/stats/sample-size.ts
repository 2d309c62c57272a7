import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { candidateWorseRejectionBoundary } from './boschloo.js';

/** Past this many trials per run the exact search (~0.25 s per case at 150, growing as n²) is too slow for dozens of cases. */
export const EXACT_SEARCH_LIMIT = 150;

/**
 * Trials per run for a two-sided level-α test to detect pBase → pCandidate with the given power: the normal
 * approximation with a continuity correction, which tracks Fisher's exact test. No change
 * cannot be detected: Infinity.
 */
export function normalApproxTrials(pBase: number, pCandidate: number, alpha: number, power: number): number {
  checkDesign(pBase, pCandidate, alpha, power);
  const delta = Math.abs(pCandidate - pBase);
  if (delta === 0) return Number.POSITIVE_INFINITY;
  const pooled = (pBase + pCandidate) / 2;
  const zAlpha = normalQuantile(1 - alpha / 2, 0, 1);
  const zBeta = normalQuantile(power, 0, 1);
  const spread = zAlpha * Math.sqrt(2 * pooled * (1 - pooled)) + zBeta * Math.sqrt(pBase * (1 - pBase) + pCandidate * (1 - pCandidate));
  const uncorrected = (spread / delta) ** 2;
  return Math.ceil((uncorrected / 4) * (1 + Math.sqrt(1 + 4 / (uncorrected * delta))) ** 2);
}

/**
 * Exact power of the two-sided Boschloo test at level α with n trials in each run: the probability, when the runs
 * pass at pBase and pCandidate, of an outcome (x1, x2) with twoSided ≤ α, i.e. a one-sided p-value ≤ α/2.
 */
export function exactPower(pBase: number, pCandidate: number, n: number, alpha: number): number {
  if (n === 0) return 0;
  const worse = candidateWorseRejectionBoundary(n, n, alpha / 2);
  const base = Array.from({ length: n + 1 }, (_, k) => binomialPmf(k, n, pBase));
  const candidate = Array.from({ length: n + 1 }, (_, k) => binomialPmf(k, n, pCandidate));
  let power = 0;
  for (let a = 0; a <= n; a++) {
    for (let b = 0; b <= n; b++) {
      // With equal n, "candidate better" at (a, b) is "candidate worse" at (b, a).
      if (b <= worse[a]! || a <= worse[b]!) power += base[a]! * candidate[b]!;
    }
  }
  return Math.min(1, power);
}

/**
 * Trials per run needed to detect pBase → pCandidate: the n at which the exact Boschloo power first reaches
 * `power`, found by bisection between an n that falls short and one that reaches it (its power climbs with n far
 * more steadily than Fisher's sawtooth). Where the approximation exceeds EXACT_SEARCH_LIMIT, the approximation.
 */
export function trialsToDetect(pBase: number, pCandidate: number, alpha: number, power: number): number {
  const approx = normalApproxTrials(pBase, pCandidate, alpha, power);
  if (approx > EXACT_SEARCH_LIMIT) return approx;
  const reaches = (n: number): boolean => exactPower(pBase, pCandidate, n, alpha) >= power;
  let enough = approx;
  while (!reaches(enough)) enough = Math.ceil(enough * 1.1);
  let short = Math.floor(enough * 0.7);
  while (short > 0 && reaches(short)) short = Math.floor(short / 2);
  while (enough - short > 1) {
    const mid = (short + enough) >> 1;
    if (reaches(mid)) enough = mid;
    else short = mid;
  }
  return enough;
}

function checkDesign(pBase: number, pCandidate: number, alpha: number, power: number): void {
  const rate = (p: number): boolean => p >= 0 && p <= 1;
  const open = (p: number): boolean => p > 0 && p < 1;
  if (!rate(pBase) || !rate(pCandidate) || !open(alpha) || !open(power)) {
    throw new RangeError(`need rates in [0, 1] and α, power in (0, 1), got ${pBase}, ${pCandidate}, ${alpha}, ${power}`);
  }
}
