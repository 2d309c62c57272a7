/**
 * Wald's sequential probability ratio test for one case's pass rate.
 * H0: p = p0 (the case meets its threshold) against H1: p = p1 = p0 − δ. Λ is the running sum of the
 * log-likelihood ratios of p0 against p1: accept (PASS) when Λ ≥ log((1−α)/β), reject (FAIL) when
 * Λ ≤ log(α/(1−β)). α is then the chance of failing a case whose true rate is p0, β the chance of passing one
 * whose true rate is p1.
 */
import type { SprtParams } from '../run/schema.js';
import type { SequentialDesign } from './sequential-design.js';

export function boundaries(p: Pick<SprtParams, 'alpha' | 'beta'>): { accept: number; reject: number } {
  return { accept: Math.log((1 - p.alpha) / p.beta), reject: Math.log(p.alpha / (1 - p.beta)) };
}

/** Λ increments: a pass adds log(p0/p1) > 0, a fail adds log((1−p0)/(1−p1)) < 0 (−∞ when p0 = 1). */
export function increments(p: Pick<SprtParams, 'threshold' | 'delta'>): { pass: number; fail: number } {
  const p0 = p.threshold;
  const p1 = p.threshold - p.delta;
  return { pass: Math.log(p0 / p1), fail: Math.log((1 - p0) / (1 - p1)) };
}

/** Λ after each scored outcome, in trial order: the walk the sequential test makes. */
export function llrWalk(outcomes: readonly boolean[], p: Pick<SprtParams, 'threshold' | 'delta'>): number[] {
  const inc = increments(p);
  let llr = 0;
  return outcomes.map((passed) => (llr += passed ? inc.pass : inc.fail));
}

/** Λ after n scored trials with k passes. */
export function llrAt(n: number, k: number, p: Pick<SprtParams, 'threshold' | 'delta'>): number {
  const inc = increments(p);
  return k * inc.pass + (n - k === 0 ? 0 : (n - k) * inc.fail);
}

/**
 * Wald's test as boundaries on the number of passes, truncated at `maxTrials`: PASS at the fewest passes whose Λ
 * reaches log((1−α)/β), FAIL at the most whose Λ falls to log(α/(1−β)). Paths still between them at maxTrials
 * stay undecided: Wald's test does not always decide.
 */
export function waldDesign(p: SprtParams, maxTrials = p.maxTrials): SequentialDesign {
  const b = boundaries(p);
  const acceptFrom = [1];
  const rejectUpTo = [-1];
  // Λ is linear in the passes k: start from where each line crosses its boundary, then settle by Λ itself, so a
  // boundary is exactly where llrAt places it (a tie included), in time linear in maxTrials.
  const inc = increments(p);
  const crossing = (n: number, bound: number) => (Number.isFinite(inc.fail) ? (bound - n * inc.fail) / (inc.pass - inc.fail) : n);
  const clamp = (k: number, n: number) => Math.min(n + 1, Math.max(-1, Math.round(k)));
  for (let n = 1; n <= maxTrials; n++) {
    let accept = clamp(crossing(n, b.accept), n);
    while (accept <= n && llrAt(n, accept, p) < b.accept) accept++;
    while (accept > 0 && llrAt(n, accept - 1, p) >= b.accept) accept--;
    let reject = clamp(crossing(n, b.reject), n);
    while (reject >= 0 && llrAt(n, reject, p) > b.reject) reject--;
    while (reject < n && llrAt(n, reject + 1, p) <= b.reject) reject++;
    acceptFrom.push(Math.max(accept, 0));
    rejectUpTo.push(Math.min(reject, n));
  }
  return { p0: p.threshold, p1: p.threshold - p.delta, minTrials: p.minTrials, maxTrials, acceptFrom, rejectUpTo };
}
