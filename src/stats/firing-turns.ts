import type { Rate } from '../run/schema.js';
import { clopperPearsonInterval } from './clopper-pearson.js';

/**
 * When a skill fires in a conversation: of the usable trials, how many first fired it on each user turn, and the share
 * that had fired it by turn k for every k, each with an interval. The intervals hold jointly over every k at the
 * level asked (Clopper–Pearson's, each at the Bonferroni level 1 − (1 − confidence)/K): a reader scans the whole curve for
 * the turn it reaches a rate, and pointwise intervals would then miss more often than their level says
 * (bench/firing-turns.mjs). Pure.
 */
export interface FiringTurns {
  /** `counts[k - 1]`: trials whose skill first fired on user turn k. */
  counts: number[];
  /** `byTurn[k - 1]`: the share of usable trials where it had fired by turn k. */
  byTurn: Rate[];
  /** The level each interval holds at, so that all of them hold together at the level asked. */
  pointwiseConfidence: number;
}

/** `firstTurns`: per usable trial, the turn the skill first fired on, or undefined when it never did; `turns`: the case's user turns. */
export function firingTurns(firstTurns: readonly (number | undefined)[], turns: number, confidence: number): FiringTurns {
  const counts = Array.from({ length: turns }, (_, k) => firstTurns.filter((t) => t === k + 1).length);
  const pointwiseConfidence = 1 - (1 - confidence) / turns;
  let fired = 0;
  const byTurn = counts.map((c) => clopperPearsonInterval((fired += c), firstTurns.length, pointwiseConfidence));
  return { counts, byTurn, pointwiseConfidence };
}
