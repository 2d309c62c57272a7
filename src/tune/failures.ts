import type { TrialOutcome } from '../run/schema.js';
import type { ProposalFailure } from './proposal.js';
import type { CaseRole } from './splits.js';

export interface FailureCase {
  id: string;
  prompt: string;
  role: CaseRole;
  /** The skill the case expects (a sibling's folder name, for a sibling's case). */
  expects: string;
  /** The member a "not this skill" case forbids. */
  not?: string;
}

/** The column that came up most often, ties to the first seen. */
function mostCommon(columns: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const c of columns) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].reduce<[string, number] | undefined>((best, e) => (best === undefined || e[1] > best[1] ? e : best), undefined)?.[0];
}

/**
 * The tune cases where no skill may fire that fail only because a sibling fired, never the tuned skill: no rewrite of
 * its description fixes them, so they score as failed negatives while the proposer is shown nothing of them. Pure.
 */
export function failedBySiblingsOnly(cases: readonly FailureCase[], outcomes: readonly TrialOutcome[], skill: string): string[] {
  return cases.flatMap((c) => {
    if (c.role !== 'none' || c.not !== undefined) return [];
    const failed = outcomes.filter((o) => o.caseId === c.id && o.arm === 'skill' && o.passed === false);
    const ours = failed.some((o) => o.firings.some((f) => f.skill === skill));
    return failed.length > 0 && !ours ? [c.id] : [];
  });
}

/**
 * What the proposer is shown of a description's tune results: each case it gets wrong, with its rate over scored
 * trials and what fired instead. Trials without evidence (errors, timeouts) are left out: they say nothing of the
 * description and must never steer a rewrite as "did not trigger". Pure.
 */
export function proposalFailures(
  cases: readonly FailureCase[],
  outcomes: readonly TrialOutcome[],
  skill: string,
  family: ReadonlySet<string>,
): ProposalFailure[] {
  return cases.flatMap((c): ProposalFailure[] => {
    const scored = outcomes.filter((o) => o.caseId === c.id && o.arm === 'skill' && o.passed !== null);
    if (scored.length === 0) return [];
    const rate = `${scored.filter((o) => o.passed).length}/${scored.length}`;
    if (c.role === 'self') {
      const failed = scored.filter((o) => !o.passed);
      if (failed.length === 0) return [];
      const other = mostCommon(failed.map((o) => o.firedColumn).filter((col) => family.has(col) && col !== skill));
      return [{ kind: 'missed', prompt: c.prompt, rate, ...(other ? { other } : {}) }];
    }
    // A case that forbids only a sibling leaves the tuned skill free to take it: nothing in its description to fix.
    if (c.role === 'sibling' && c.not !== undefined) return [];
    const ours = scored.filter((o) => o.firings.some((f) => f.skill === skill) || o.firedColumn === skill);
    if (ours.length === 0) return [];
    return c.role === 'sibling'
      ? [{ kind: 'stolen', prompt: c.prompt, rate, other: c.expects }]
      : [{ kind: 'false-trigger', prompt: c.prompt, rate }];
  });
}
