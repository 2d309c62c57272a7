import { DESIGN_LIMIT, type DecisionConfig, type DecisionMode, type DecisionOverrides } from '../run/config-schema.js';
import type { DecisionParams } from '../run/schema.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { approximateTrials } from '../stats/design-size.js';

/** The decision parameters of one case: defaults, then its first tag with overrides, then the case itself. */
export function resolveDecision(config: DecisionConfig, tags: readonly string[], own: DecisionOverrides | undefined): DecisionParams {
  const tag = tags.find((t) => config.tags[t] !== undefined);
  const base: DecisionParams = {
    threshold: config.threshold,
    delta: config.delta,
    alpha: config.alpha,
    beta: config.beta,
    minTrials: config.minTrials,
    ...(config.maxTrials === undefined ? {} : { maxTrials: config.maxTrials }),
  };
  return { ...base, ...(tag ? config.tags[tag] : {}), ...(own ?? {}) };
}

/**
 * What is wrong with resolved parameters, as "what — what to do", or undefined. Only a design the mode builds is
 * bounded in size (fixed mode builds none, and Wald's test with a maxTrials needs none).
 */
export function decisionProblem(p: DecisionParams, mode: DecisionMode): string | undefined {
  if (p.threshold - p.delta <= 0) return `threshold ${p.threshold} minus delta ${p.delta} leaves p1 ≤ 0 — lower delta or raise threshold`;
  if (p.maxTrials !== undefined && p.minTrials > p.maxTrials)
    return `minTrials ${p.minTrials} exceeds maxTrials ${p.maxTrials} — make minTrials ≤ maxTrials`;
  const needsDesign = decisionMode(mode).needsDesign(p);
  if (needsDesign && p.minTrials > DESIGN_LIMIT)
    return `minTrials ${p.minTrials} is more than the ${DESIGN_LIMIT} trials per case a sequential design is built for — lower minTrials, or use --mode fixed`;
  const trials = approximateTrials(p);
  if (needsDesign && trials > DESIGN_LIMIT) {
    return `telling ${p.threshold} from ${(p.threshold - p.delta).toFixed(3)} at α ${p.alpha}, β ${p.beta} takes about ${trials} trials per case, more than the ${DESIGN_LIMIT} a sequential design is built for — widen delta, raise alpha/beta, or use --mode fixed`;
  }
  return undefined;
}
