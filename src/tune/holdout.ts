import { mcnemarExact, pairedDifference } from '../stats/mcnemar.js';
import type { PairedCounts } from '../run/schema.js';
import type { CaseRole } from './splits.js';

/**
 * The only test of the winner against the original: the holdout split, which neither the proposer nor the choice of
 * winner has seen. Each holdout case runs the same number of trials under both descriptions; trial n of a case under
 * the original is paired with trial n under the winner.
 *
 * Why McNemar is valid on these pairs although the cases' rates differ: under "the winner behaves as the original"
 * both trials of a pair are independent draws at the same rate p_i of their case, so the pair is (pass, miss) or
 * (miss, pass) with the same chance p_i(1 − p_i). Given that a pair is discordant, each direction has probability 1/2
 * whatever p_i, and pairs are independent; so, conditionally on the number of discordant pairs, the winner-only count
 * is Binomial(D, 1/2) — the exact McNemar test — with no assumption about how the cases' rates vary. The pairing
 * buys no variance reduction from a shared draw (the model draws afresh each trial); it pairs by case, which removes
 * the cases' differences from the comparison.
 *
 * The point is the difference of the pooled rates, which with the same number of scored trials per case is the mean
 * of the cases' differences. Newcombe's paired interval reads the pairs as draws from the mixture of cases: its
 * variance adds the spread of the cases' own differences to the trial-level variance, so with the cases held fixed
 * it errs on the wide side (coverage measured in bench/tune).
 */
export interface HoldoutPair {
  caseId: string;
  role: CaseRole;
  n: number;
  /** Whether the n-th trial passed under each description; null = no evidence (error, timeout…): the pair is left out, never scored as a miss. */
  original: boolean | null;
  winner: boolean | null;
}

export interface RoleComparison {
  original: number;
  winner: number;
  /** winner − original, with Newcombe's paired interval */
  diff: number;
  lo: number;
  hi: number;
  /** McNemar's exact two-sided p */
  pValue: number;
  pairs: number;
  discordant: number;
}

export type TuneVerdict = 'IMPROVED' | 'NO SIGNIFICANT CHANGE' | 'WORSE';

function compareRole(pairs: readonly HoldoutPair[], role: CaseRole, alpha: number): RoleComparison {
  // skillOnly = the winner passed alone, ablationOnly = the original passed alone: pairedDifference is winner − original.
  const c: PairedCounts = { both: 0, skillOnly: 0, ablationOnly: 0, neither: 0 };
  for (const p of pairs) {
    if (p.role !== role || p.original === null || p.winner === null) continue;
    if (p.winner && p.original) c.both++;
    else if (p.winner) c.skillOnly++;
    else if (p.original) c.ablationOnly++;
    else c.neither++;
  }
  const n = c.both + c.skillOnly + c.ablationOnly + c.neither;
  const { diff, lo, hi } = pairedDifference(c, 1 - alpha);
  return {
    original: n === 0 ? Number.NaN : (c.both + c.ablationOnly) / n,
    winner: n === 0 ? Number.NaN : (c.both + c.skillOnly) / n,
    diff,
    lo,
    hi,
    pValue: mcnemarExact(c),
    pairs: n,
    discordant: c.skillOnly + c.ablationOnly,
  };
}

const significantlyLower = (r: RoleComparison, alpha: number) => r.diff < 0 && r.pValue < alpha;

export function holdoutComparison(
  pairs: readonly HoldoutPair[],
  alpha = 0.05,
): { recall: RoleComparison; siblings: RoleComparison; negatives: RoleComparison; verdict: TuneVerdict; left_out: number } {
  const [recall, siblings, negatives] = (['self', 'sibling', 'none'] as const).map((r) => compareRole(pairs, r, alpha)) as [
    RoleComparison,
    RoleComparison,
    RoleComparison,
  ];
  const constraintWorse = significantlyLower(siblings, alpha) || significantlyLower(negatives, alpha);
  const verdict: TuneVerdict =
    significantlyLower(recall, alpha) || constraintWorse
      ? 'WORSE'
      : recall.diff > 0 && recall.pValue < alpha
        ? 'IMPROVED'
        : 'NO SIGNIFICANT CHANGE';
  return { recall, siblings, negatives, verdict, left_out: pairs.filter((p) => p.original === null || p.winner === null).length };
}

/**
 * The tune's answer from the holdout: WORSE when a constraint (siblings, negatives) or recall is significantly lower
 * (McNemar on every pair, at alpha); else IMPROVED when the sequential test on recall crossed its IMPROVED boundary;
 * else NO SIGNIFICANT CHANGE.
 */
export function sequentialVerdict(
  c: Pick<ReturnType<typeof holdoutComparison>, 'recall' | 'siblings' | 'negatives'>,
  improved: boolean,
  alpha: number,
): TuneVerdict {
  if (significantlyLower(c.siblings, alpha) || significantlyLower(c.negatives, alpha)) return 'WORSE';
  if (improved) return 'IMPROVED';
  return significantlyLower(c.recall, alpha) ? 'WORSE' : 'NO SIGNIFICANT CHANGE';
}

/** Discordant pairs on the positives (role self) with evidence under both descriptions, and those the winner passed alone. */
export function recallDiscordance(pairs: readonly HoldoutPair[]): { discordant: number; winnerOnly: number } {
  const scored = pairs.filter((p) => p.role === 'self' && p.original !== null && p.winner !== null && p.original !== p.winner);
  return { discordant: scored.length, winnerOnly: scored.filter((p) => p.winner).length };
}
