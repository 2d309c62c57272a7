import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import type { Rate } from '../run/schema.js';

/**
 * Clopper–Pearson interval: each tail holds at most (1 − confidence)/2 whatever the true rate, so it covers at least
 * its level even at a handful of events in many trials, where Wilson's dips below it. n = 0 gives [0, 1].
 */
export function clopperPearsonInterval(successes: number, n: number, confidence = 0.95): Rate {
  if (n === 0) return { successes, n, p: Number.NaN, lo: 0, hi: 1 };
  const tail = (1 - confidence) / 2;
  const lo = successes === 0 ? 0 : betaQuantile(tail, successes, n - successes + 1);
  const hi = successes === n ? 1 : betaQuantile(1 - tail, successes + 1, n - successes);
  return { successes, n, p: successes / n, lo, hi };
}
