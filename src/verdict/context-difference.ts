import type { Rate, Results } from '../run/schema.js';
import { newcombeDifference } from '../stats/newcombe.js';

/** One case measured in the lab and in the field: each rate, and the field's minus the lab's with its interval. */
export interface ContextDifferenceRow {
  caseId: string;
  lab: Pick<Rate, 'successes' | 'n' | 'p'>;
  field: Pick<Rate, 'successes' | 'n' | 'p'>;
  /** field − lab, with Newcombe's hybrid score interval (NaN and [−1, 1] when either side has no usable trial). */
  diff: number;
  lo: number;
  hi: number;
  /** The interval lies wholly below 0: the case does worse in the field. */
  drop: boolean;
  /** Field trials where the model acted by itself before any skill fired (`fired.self`). */
  byHand: number;
  /** The skill the case expects (`none` for a negative case). */
  expect: string;
}

/**
 * The lab→field difference of every case both runs measured (the skill arm), in the lab run's order. The two runs'
 * trials are independent draws (trial i of a case in the lab and in the field share no draw that makes them a pair),
 * so the difference is the unpaired one, with Newcombe's interval: the honest reading whatever seeds the runs had.
 */
export function contextDifference(lab: Results, field: Results, confidence: number): ContextDifferenceRow[] {
  const skillRows = (r: Results) => new Map(r.summary.cases.filter((c) => c.arm === 'skill').map((c) => [c.caseId, c]));
  const fieldRows = skillRows(field);
  const rate = (r: Rate) => ({ successes: r.successes, n: r.n, p: r.p });
  return [...skillRows(lab)].flatMap(([caseId, l]) => {
    const f = fieldRows.get(caseId);
    if (!f) return [];
    const d = newcombeDifference(l.rate.successes, l.rate.n, f.rate.successes, f.rate.n, confidence);
    return [
      {
        caseId,
        expect: l.expect,
        lab: rate(l.rate),
        field: rate(f.rate),
        diff: d.diff,
        lo: d.lo,
        hi: d.hi,
        drop: d.hi < 0,
        byHand: f.fired.self ?? 0,
      },
    ];
  });
}

/** The cases that do significantly worse in the field, largest drop first. */
export const largestDrops = (rows: readonly ContextDifferenceRow[]): ContextDifferenceRow[] =>
  rows.filter((r) => r.drop).sort((a, b) => a.diff - b.diff || a.caseId.localeCompare(b.caseId));
