import type { JudgeSample } from '../checks/judge-prompt.js';
import { samplesComparable, samplesDisagree } from '../checks/judge.js';
import type { Rate } from '../run/schema.js';
import { binomialTestAbove } from './binomial-test.js';
import { wilsonInterval } from './wilson.js';

/**
 * Whether a case's judge answers the same question the same way: over every item of every trial whose samples can
 * disagree (two readable samples or more), the share that did, and the one-sided evidence that this share is above
 * what a usable judge may show. Each comparable item is one Bernoulli draw (disagreed or not), independent across
 * items and trials, so the count of disagreeing items is binomial and the test is exact.
 */

/** One trial's judge samples: per rubric item, in rubric order, the samples the judge gave it. */
export type TrialJudgeSamples = readonly (readonly JudgeSample[])[];

/**
 * The largest share of comparable items whose samples may disagree before the judge is UNSTABLE. It bounds the
 * share of items, not of samples: with k samples a per-sample flip rate f gives a share of 1 − (1 − f)^k − f^k, so
 * at 3 samples 0.10 is a flip rate of about 3.5 %.
 */
export const DEFAULT_MAX_FLIP_RATE = 0.1;

/**
 * The level of the one-sided test: UNSTABLE only when a share at `maxFlipRate` would give this many disagreeing items
 * or more with probability at most `alpha`. A judge exactly at the bound is flagged in at most this share of cases.
 */
export const DEFAULT_UNSTABLE_ALPHA = 0.05;

export interface StabilityRule {
  /** The share of disagreeing items the null hypothesis allows (see DEFAULT_MAX_FLIP_RATE). */
  maxFlipRate: number;
  /** The test's level (see DEFAULT_UNSTABLE_ALPHA). */
  alpha: number;
  /** The confidence of the share's Wilson interval: the run's. */
  confidence: number;
}

export const DEFAULT_STABILITY_RULE: StabilityRule = {
  maxFlipRate: DEFAULT_MAX_FLIP_RATE,
  alpha: DEFAULT_UNSTABLE_ALPHA,
  confidence: 0.95,
};

export interface StabilityDecision {
  /** P(X ≥ disagreeing) under Binomial(comparable, maxFlipRate): small is evidence the share is above it. */
  pValue: number;
  unstable: boolean;
  /** No comparable item: nothing was measured, so the judge is not UNSTABLE, and not shown stable either. */
  noEvidence: boolean;
}

export interface JudgeStability extends StabilityDecision {
  /** Items (counted once per trial) with at least two readable samples: the only ones that could disagree. */
  comparable: number;
  /** Comparable items whose readable samples held both a yes and a no. */
  disagreeing: number;
  /** disagreeing / comparable with its Wilson interval ([0, 1] and NaN with no comparable item). */
  share: Rate;
}

/** The UNSTABLE decision from the counts alone, by the exact one-sided binomial test. */
export function stabilityDecision(
  disagreeing: number,
  comparable: number,
  rule: StabilityRule = DEFAULT_STABILITY_RULE,
): StabilityDecision {
  const pValue = binomialTestAbove(disagreeing, comparable, rule.maxFlipRate);
  return { pValue, unstable: comparable > 0 && pValue <= rule.alpha, noEvidence: comparable === 0 };
}

/** A case's judge stability from its trials' item samples (an item with fewer than two readable samples is left out). */
export function judgeStability(trials: readonly TrialJudgeSamples[], rule: StabilityRule = DEFAULT_STABILITY_RULE): JudgeStability {
  const comparableItems = trials.flat().filter(samplesComparable);
  const comparable = comparableItems.length;
  const disagreeing = comparableItems.filter(samplesDisagree).length;
  return {
    comparable,
    disagreeing,
    share: wilsonInterval(disagreeing, comparable, rule.confidence),
    ...stabilityDecision(disagreeing, comparable, rule),
  };
}
