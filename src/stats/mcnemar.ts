import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import { wilsonInterval } from './wilson.js';
import type { Interval, PairedCounts } from '../run/schema.js';

export function pairCounts(pairs: [boolean, boolean][]): PairedCounts {
  const c: PairedCounts = { both: 0, skillOnly: 0, ablationOnly: 0, neither: 0 };
  for (const [s, a] of pairs) {
    if (s && a) c.both++;
    else if (s) c.skillOnly++;
    else if (a) c.ablationOnly++;
    else c.neither++;
  }
  return c;
}

/** McNemar's exact test: two-sided binomial test of the discordant pairs against 1/2. */
export function mcnemarExact(c: PairedCounts): number {
  const discordant = c.skillOnly + c.ablationOnly;
  if (discordant === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(c.skillOnly, c.ablationOnly), discordant, 0.5));
}

/**
 * Difference of paired rates (skill − ablation) with Newcombe's hybrid score interval for paired data: Wilson
 * limits of each margin combined with the pairs' correlation.
 */
export function pairedDifference(c: PairedCounts, confidence = 0.95): { diff: number } & Interval {
  const n = c.both + c.skillOnly + c.ablationOnly + c.neither;
  if (n === 0) return { diff: Number.NaN, lo: -1, hi: 1 };
  const s = wilsonInterval(c.both + c.skillOnly, n, confidence);
  const a = wilsonInterval(c.both + c.ablationOnly, n, confidence);
  const diff = s.p - a.p;
  const denom = (c.both + c.skillOnly) * (c.ablationOnly + c.neither) * (c.both + c.ablationOnly) * (c.skillOnly + c.neither);
  const phi = denom === 0 ? 0 : (c.both * c.neither - c.skillOnly * c.ablationOnly) / Math.sqrt(denom);
  const dl = Math.sqrt(Math.max(0, (s.p - s.lo) ** 2 - 2 * phi * (s.p - s.lo) * (a.hi - a.p) + (a.hi - a.p) ** 2));
  const du = Math.sqrt(Math.max(0, (s.hi - s.p) ** 2 - 2 * phi * (s.hi - s.p) * (a.p - a.lo) + (a.p - a.lo) ** 2));
  return { diff, lo: Math.max(-1, diff - dl), hi: Math.min(1, diff + du) };
}
