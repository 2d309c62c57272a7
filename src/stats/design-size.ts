import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import type { DecisionParams } from '../run/schema.js';

/** Trials a fixed test needs for these error rates, by the normal approximation: a quick size check. */
export function approximateTrials(p: DecisionParams): number {
  const p1 = p.threshold - p.delta;
  const z =
    normalQuantile(1 - p.alpha, 0, 1) * Math.sqrt(p.threshold * (1 - p.threshold)) +
    normalQuantile(1 - p.beta, 0, 1) * Math.sqrt(p1 * (1 - p1));
  return Math.ceil((z / p.delta) ** 2);
}

/** The trials per case a sequential design for these parameters starts from: its fixed N (approximately) or minTrials. */
export function designSize(p: DecisionParams): number {
  return Math.max(approximateTrials(p), p.minTrials);
}
