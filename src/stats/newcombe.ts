import { wilsonInterval } from './wilson.js';
import type { Interval } from '../run/schema.js';

/**
 * Difference of independent rates, candidate − base (p2 − p1), with Newcombe's hybrid score interval:
 * each limit combines the two runs' Wilson limits on the side that moves the difference that way. It stays inside
 * [−1, 1] and keeps its coverage at 0 % and 100 %, where the Wald interval collapses. Either run empty gives NaN
 * and the uninformative [−1, 1].
 */
export function newcombeDifference(x1: number, n1: number, x2: number, n2: number, confidence = 0.95): { diff: number } & Interval {
  if (n1 === 0 || n2 === 0) return { diff: Number.NaN, lo: -1, hi: 1 };
  const base = wilsonInterval(x1, n1, confidence);
  const candidate = wilsonInterval(x2, n2, confidence);
  const diff = candidate.p - base.p;
  const down = Math.sqrt((candidate.p - candidate.lo) ** 2 + (base.hi - base.p) ** 2);
  const up = Math.sqrt((candidate.hi - candidate.p) ** 2 + (base.p - base.lo) ** 2);
  return { diff, lo: Math.max(-1, diff - down), hi: Math.min(1, diff + up) };
}
