/**
 * The sequential design each case runs under, built once before any trial and stored with the case, so that the
 * scheduler, the verdict and every later regrade walk the same boundaries.
 */
import { FIXED_N_LIMIT, fixedNEquivalent } from './binomial-test.js';
import { decisionMode, designOfKind } from './decision-modes/registry.js';
import type { CaseDesignKind } from './decision-modes/decision-mode.js';
import { optimalDesign } from './optimal-design.js';
import { truncateDesign, type SequentialDesign } from './sequential-design.js';
import { waldDesign } from './sprt.js';
import { designSize } from './design-size.js';
import { DESIGN_LIMIT, type DecisionMode } from '../run/config-schema.js';
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
  const optimal = () =>
    optimalDesign({ p0: p.threshold, p1, alpha: p.alpha, beta: p.beta, minTrials: p.minTrials }, Math.max(fixedN, p.minTrials));
  const params = { ...p, maxTrials: p.maxTrials ?? optimal().maxTrials };
  const kind = decisionMode(mode).design;
  const d = kind.build(params, optimal);
  return { params, design: { kind: kind.kind, maxTrials: d.maxTrials, acceptFrom: d.acceptFrom, rejectUpTo: d.rejectUpTo } };
}

/**
 * The resolved parameters and the design they give (maxTrials: the user's cap, else the design's maximum). A mode
 * that does not walk its design allows a delta finer than any design is built for: such a case stores none, and
 * `plan` falls back to Wald's.
 */
export function storedDecision(p: DecisionParams, mode: DecisionMode): Pick<GradableCase, 'decision' | 'design'> {
  const size = designSize(p);
  if (!decisionMode(mode).sequential && size > DESIGN_LIMIT) return { decision: { ...p, maxTrials: p.maxTrials ?? size } };
  // Wald's test under a cap needs no optimal design, whatever its size; decisionProblem bounded the rest.
  const built = buildDesign(p, mode);
  return { decision: built.params, design: built.design };
}

/** Runs made before designs were stored ran Wald's, rebuilt from their parameters. */
const UNSTORED_KIND: StoredDesign['kind'] = 'wald';

/** The kind of design a stored case runs under. */
export const caseDesignKind = (c: Pick<GradableCase, 'design'>): CaseDesignKind => designOfKind(c.design?.kind ?? UNSTORED_KIND);

/** The design a stored case runs under, capped at its maxTrials. */
export function caseDesign(c: Pick<GradableCase, 'decision' | 'design'>): SequentialDesign {
  const p = c.decision;
  if (!c.design) return waldDesign(p);
  const full: SequentialDesign = {
    p0: p.threshold,
    p1: p.threshold - p.delta,
    minTrials: p.minTrials,
    maxTrials: c.design.maxTrials,
    acceptFrom: c.design.acceptFrom,
    rejectUpTo: c.design.rejectUpTo,
  };
  return truncateDesign(full, p.maxTrials);
}
