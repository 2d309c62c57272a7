import type { DecisionConfig, DecisionOverrides } from '../run/config-schema.js';
import type { SprtParams } from '../run/schema.js';

/** The decision parameters of one case: defaults, then its first tag with overrides, then the case itself. */
export function resolveDecision(config: DecisionConfig, tags: readonly string[], own: DecisionOverrides | undefined): SprtParams {
  const tag = tags.find((t) => config.tags[t] !== undefined);
  const base: SprtParams = {
    threshold: config.threshold,
    delta: config.delta,
    alpha: config.alpha,
    beta: config.beta,
    minTrials: config.minTrials,
    maxTrials: config.maxTrials,
  };
  return { ...base, ...(tag ? config.tags[tag] : {}), ...(own ?? {}) };
}

/** What is wrong with resolved parameters, as "what — what to do", or undefined. */
export function decisionProblem(p: SprtParams): string | undefined {
  if (p.threshold - p.delta <= 0) return `threshold ${p.threshold} minus delta ${p.delta} leaves p1 ≤ 0 — lower delta or raise threshold`;
  if (p.minTrials > p.maxTrials) return `minTrials ${p.minTrials} exceeds maxTrials ${p.maxTrials} — make minTrials ≤ maxTrials`;
  return undefined;
}
