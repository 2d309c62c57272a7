/**
 * Wald's sequential probability ratio test for one case's pass rate.
 * H0: p = p0 (the case meets its threshold) against H1: p = p1 = p0 − δ. Λ is the running sum of the
 * log-likelihood ratios of p0 against p1: accept (PASS) when Λ ≥ log((1−α)/β), reject (FAIL) when
 * Λ ≤ log(α/(1−β)). α is then the chance of failing a case whose true rate is p0, β the chance of passing one
 * whose true rate is p1.
 */
import type { SprtParams } from '../run/schema.js';

export type SprtState = 'accept' | 'reject' | 'continue';

export interface SprtDecision {
  state: SprtState;
  /** Scored trials consumed when the decision was made (or all of them while continuing). */
  trials: number;
  llr: number;
}

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

/** Runs the test over scored outcomes in trial order; stops at the first boundary crossed at or after minTrials. */
export function sprtDecide(outcomes: readonly boolean[], p: SprtParams): SprtDecision {
  const b = boundaries(p);
  const walk = llrWalk(outcomes.slice(0, p.maxTrials), p);
  for (let i = 0; i < walk.length; i++) {
    const llr = walk[i]!;
    const n = i + 1;
    if (n < p.minTrials) continue;
    if (llr >= b.accept) return { state: 'accept', trials: n, llr };
    if (llr <= b.reject) return { state: 'reject', trials: n, llr };
  }
  return { state: 'continue', trials: walk.length, llr: walk.at(-1) ?? 0 };
}

export interface OperatingCharacteristics {
  /** Expected number of scored trials until a decision (or maxTrials). */
  expectedTrials: number;
  accept: number;
  reject: number;
  /** Undecided at maxTrials: INCONCLUSIVE. */
  undecided: number;
}

/**
 * Exact operating characteristics of the truncated test at true pass rate p, by dynamic programming over the
 * number of passes (Λ depends only on passes and fails). No simulation, no approximation. `from` starts the walk
 * in a state already reached (n scored trials, k of them passes, still undecided), so `expectedTrials` is then
 * the expected number of further trials.
 */
export function operatingCharacteristics(p: number, s: SprtParams, from: { trials: number; passes: number } = { trials: 0, passes: 0 }): OperatingCharacteristics {
  const b = boundaries(s);
  const inc = increments(s);
  let alive = new Map<number, number>([[from.passes, 1]]); // passes → probability mass still undecided
  let accept = 0;
  let reject = 0;
  let expected = 0;
  for (let n = from.trials + 1; n <= s.maxTrials; n++) {
    const next = new Map<number, number>();
    for (const [k, mass] of alive) {
      next.set(k + 1, (next.get(k + 1) ?? 0) + mass * p);
      next.set(k, (next.get(k) ?? 0) + mass * (1 - p));
    }
    alive = new Map();
    for (const [k, mass] of next) {
      if (mass === 0) continue;
      const fails = n - k;
      const llr = k * inc.pass + (fails === 0 ? 0 : fails * inc.fail);
      if (n >= s.minTrials && llr >= b.accept) {
        accept += mass;
        expected += (n - from.trials) * mass;
      } else if (n >= s.minTrials && llr <= b.reject) {
        reject += mass;
        expected += (n - from.trials) * mass;
      } else alive.set(k, mass);
    }
  }
  let undecided = 0;
  for (const mass of alive.values()) undecided += mass;
  expected += Math.max(0, s.maxTrials - from.trials) * undecided;
  return { expectedTrials: expected, accept, reject, undecided };
}

/** Expected further trials from a reached state, at the worse of p0 and p1: what a progress estimate should plan for. */
export function expectedRemainingTrials(s: SprtParams, from: { trials: number; passes: number }): number {
  return Math.max(operatingCharacteristics(s.threshold, s, from).expectedTrials, operatingCharacteristics(s.threshold - s.delta, s, from).expectedTrials);
}
