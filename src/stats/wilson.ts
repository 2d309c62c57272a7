import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import type { Rate } from '../run/schema.js';

/** Two-sided standard-normal critical value for a confidence level (1.96 at 0.95). */
export function zFor(confidence: number): number {
  return normalQuantile(1 - (1 - confidence) / 2, 0, 1);
}

/**
 * Wilson score interval: honest at small n and at 0 % or 100 %, where the Wald interval collapses to a point.
 * n = 0 gives the uninformative [0, 1].
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Rate {
  if (n === 0) return { successes, n, p: Number.NaN, lo: 0, hi: 1 };
  const z = zFor(confidence);
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { successes, n, p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}
