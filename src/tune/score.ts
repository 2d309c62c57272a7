import { stratifiedDifference, type Stratum } from '../stats/stratified-difference.js';
import type { CaseRole } from './splits.js';

/** One case's trials under one description. */
export interface CaseTally {
  caseId: string;
  role: CaseRole;
  passes: number;
  trials: number;
  /** a sequential design's median-unbiased estimate, if any */
  estimate?: number;
}

/** Mean per-case pass rate by role (each case weighs the same), NaN where a role has no case; `cases` counts the cases scored. */
export interface FamilyScore {
  recall: number;
  siblings: number;
  negatives: number;
  cases: Record<CaseRole, number>;
}

const ROLES: readonly CaseRole[] = ['self', 'sibling', 'none'];

/** A case's rate: its design's estimate where it has one, else passes over trials; undefined without a trial. */
const caseRate = (t: CaseTally): number | undefined => t.estimate ?? (t.trials > 0 ? t.passes / t.trials : undefined);

export function familyScore(tallies: readonly CaseTally[]): FamilyScore {
  const mean = (role: CaseRole) => {
    const rates = tallies.filter((t) => t.role === role).flatMap((t) => caseRate(t) ?? []);
    return { rate: rates.length === 0 ? Number.NaN : rates.reduce((a, b) => a + b, 0) / rates.length, cases: rates.length };
  };
  const [self, sibling, none] = ROLES.map(mean) as [ReturnType<typeof mean>, ReturnType<typeof mean>, ReturnType<typeof mean>];
  return {
    recall: self.rate,
    siblings: sibling.rate,
    negatives: none.rate,
    cases: { self: self.cases, sibling: sibling.cases, none: none.cases },
  };
}

/**
 * Candidate minus base on one role's cases, each case a stratum (stratifiedDifference: each case weighs the same);
 * `worse` when the interval lies below 0, `better` when above. Cases tallied under one description only are left out.
 */
export function roleChange(
  base: readonly CaseTally[],
  candidate: readonly CaseTally[],
  role: CaseRole,
  confidence = 0.95,
): { diff: number; lo: number; hi: number; worse: boolean; better: boolean } {
  const after = new Map(candidate.filter((t) => t.role === role).map((t) => [t.caseId, t]));
  const strata: Stratum[] = base.flatMap((b) => {
    const c = b.role === role ? after.get(b.caseId) : undefined;
    if (c === undefined) return [];
    const difference = b.estimate !== undefined && c.estimate !== undefined ? c.estimate - b.estimate : undefined;
    return [
      {
        base: { successes: b.passes, n: b.trials },
        candidate: { successes: c.passes, n: c.trials },
        ...(difference !== undefined ? { difference } : {}),
      },
    ];
  });
  const { diff, lo, hi } = stratifiedDifference(strata, confidence);
  return { diff, lo, hi, worse: hi < 0, better: lo > 0 };
}
