/**
 * The sequential design each case runs under, built once before any trial and stored with the case, so that the
 * scheduler, the verdict and every later regrade walk the same boundaries.
 */
import { FIXED_N_LIMIT, fixedNEquivalent } from './binomial-test.js';
import { optimalDesign } from './optimal-design.js';
import { truncateDesign, type SequentialDesign } from './sequential-design.js';
import { waldDesign } from './sprt.js';
import type { DecisionMode } from '../run/config-schema.js';
import type { DecisionParams, GradableCase, SprtParams, StoredDesign } from '../run/schema.js';

/**
 * The design for a case's parameters and mode, and the parameters with maxTrials resolved: the user's cap, else
 * the design's maximum. Wald's test without a cap is truncated where the optimal design would end, so the two
 * have the same maximum. Fixed mode stores the sequential design too, for `plan` to show what it would cost.
 */
export function buildDesign(p: DecisionParams, mode: DecisionMode): { params: SprtParams; design: StoredDesign } {
  const p1 = p.threshold - p.delta;
  // Within the limit: decisionProblem refused larger designs when the config loaded, and fixed mode builds none.
  const fixedN = fixedNEquivalent(p.threshold, p1, p.alpha, p.beta) ?? FIXED_N_LIMIT;
  const optimal = () => optimalDesign({ p0: p.threshold, p1, alpha: p.alpha, beta: p.beta, minTrials: p.minTrials }, Math.max(fixedN, p.minTrials));
  const params = { ...p, maxTrials: p.maxTrials ?? optimal().maxTrials };
  const d = mode === 'sprt' ? waldDesign(params) : optimal();
  return { params, design: { kind: mode === 'sprt' ? 'wald' : 'optimal', maxTrials: d.maxTrials, acceptFrom: d.acceptFrom, rejectUpTo: d.rejectUpTo } };
}

/** The design a stored case runs under, capped at its maxTrials; runs made before designs were stored ran Wald's. */
export function caseDesign(c: Pick<GradableCase, 'decision' | 'design'>): SequentialDesign {
  const p = c.decision;
  if (!c.design) return waldDesign(p);
  const full: SequentialDesign = { p0: p.threshold, p1: p.threshold - p.delta, minTrials: p.minTrials, maxTrials: c.design.maxTrials, acceptFrom: c.design.acceptFrom, rejectUpTo: c.design.rejectUpTo };
  return truncateDesign(full, p.maxTrials);
}
