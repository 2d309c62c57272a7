import { familyScore, roleChange, type CaseTally } from './score.js';

/**
 * Which candidates `tune` keeps. Nothing here decides whether the winner is better: the select split picks one
 * candidate among several, so its score is biased upwards (the winner's curse); only the holdout split, which no
 * choice has looked at, tests the winner against the original (holdout.ts).
 */
export type DropReason = 'worse-on-tune' | 'constraint' | 'not-better' | 'lint' | 'duplicate' | 'no-proposal';

export interface Evaluated {
  description: string;
  tune: CaseTally[];
  select?: CaseTally[];
}

const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();

/** after the tune cases: drop a candidate whose tune recall is significantly below the original's (saves its select trials) */
export function droppedOnTune(original: Evaluated, candidate: Evaluated): DropReason | undefined {
  if (sameText(original.description, candidate.description)) return 'duplicate';
  return roleChange(original.tune, candidate.tune, 'self').worse ? 'worse-on-tune' : undefined;
}

/**
 * After select: 'constraint' when sibling or negative pass rates are significantly worse than the original's on
 * select; 'not-better' when its select recall is below the original's point estimate, or equal to it without a
 * higher tune recall. A tie on select (cases at their ceiling under both) is broken by the tune cases, so a
 * candidate that learnt something still reaches the holdout, which alone decides.
 */
export function droppedOnSelect(original: Evaluated, candidate: Evaluated): DropReason | undefined {
  if (original.select === undefined || candidate.select === undefined) throw new Error('droppedOnSelect needs both select tallies');
  if (roleChange(original.select, candidate.select, 'sibling').worse || roleChange(original.select, candidate.select, 'none').worse) {
    return 'constraint';
  }
  // NaN (no positive in the select split) is never above or equal: nothing is chosen on no evidence.
  const [was, now] = [familyScore(original.select).recall, familyScore(candidate.select).recall];
  if (now > was) return undefined;
  return now === was && familyScore(candidate.tune).recall > familyScore(original.tune).recall ? undefined : 'not-better';
}

/** the winner among candidates that survived both (highest select recall, ties: higher tune recall, fewer characters, then earlier), or 'original' */
export function chooseWinner(original: Evaluated, candidates: readonly (Evaluated & { dropped?: DropReason })[]): number | 'original' {
  if (original.select === undefined) return 'original';
  let best: { index: number; recall: number; tune: number; chars: number } | undefined;
  candidates.forEach((c, index) => {
    if (c.dropped !== undefined || c.select === undefined) return;
    if (droppedOnTune(original, c) !== undefined || droppedOnSelect(original, c) !== undefined) return;
    const recall = familyScore(c.select).recall;
    const tune = familyScore(c.tune).recall;
    const chars = c.description.length;
    const better =
      best === undefined ||
      recall > best.recall ||
      (recall === best.recall && (tune > best.tune || (tune === best.tune && chars < best.chars)));
    if (better) best = { index, recall, tune, chars };
  });
  return best?.index ?? 'original';
}
