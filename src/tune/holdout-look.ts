import type { TrialOutcome } from '../run/schema.js';
import type { TuneRecord } from '../run/tune-schema.js';
import { holdoutComparison, recallDiscordance, sequentialVerdict, type HoldoutPair, type RoleComparison } from './holdout.js';
import {
  dropPower,
  holdoutBoundaries,
  HOLDOUT_DESIGN_DEFAULTS,
  lookRounds,
  settling,
  type HoldoutDesign,
  type HoldoutOutcome,
} from './holdout-design.js';
import type { CaseRole } from './splits.js';

/** The holdout's design for a tune's options: a tune stored before the gain existed gets the default. */
export const holdoutDesign = (o: TuneRecord['options']): HoldoutDesign => ({
  alpha: o.alpha,
  beta: HOLDOUT_DESIGN_DEFAULTS.beta,
  gain: o.gain ?? HOLDOUT_DESIGN_DEFAULTS.gain,
  halfSpentAt: HOLDOUT_DESIGN_DEFAULTS.halfSpentAt,
});

/** Where the holdout looks: each cap's rounds in turn (a resume that raised the cap went on from the last). */
export function holdoutSchedule(o: TuneRecord['options']): number[] {
  const caps = [...(o.holdoutCapsBefore ?? []), o.holdoutTrials];
  return caps.flatMap((cap, i) => lookRounds(cap, i === 0 ? 0 : caps[i - 1]!));
}

type Outcomes = readonly Pick<TrialOutcome, 'caseId' | 'arm' | 'n' | 'passed'>[];

/** Pairs one round-batch's trials of the original and the winner by case and trial number, numbered from `after`. */
export function batchPairs(original: Outcomes, winner: Outcomes, roleOf: (id: string) => CaseRole, after: number): HoldoutPair[] {
  const key = (caseId: string, n: number) => `${caseId}\u0000${n}`;
  const won = new Map(winner.filter((o) => o.arm === 'skill').map((o) => [key(o.caseId, o.n), o.passed]));
  return original
    .filter((o) => o.arm === 'skill' && won.has(key(o.caseId, o.n)))
    .map((o) => ({ caseId: o.caseId, role: roleOf(o.caseId), n: after + o.n, original: o.passed, winner: won.get(key(o.caseId, o.n))! }));
}

export const nullIfNaN = (x: number) => (Number.isNaN(x) ? null : x);
const stored = (c: RoleComparison) => ({
  original: nullIfNaN(c.original),
  winner: nullIfNaN(c.winner),
  diff: nullIfNaN(c.diff),
  lo: c.lo,
  hi: c.hi,
  pValue: c.pValue,
  pairs: c.pairs,
  discordant: c.discordant,
});

/** Trials a side of the holdout ran, and their cost where the CLI reported one. */
export interface HoldoutSpent {
  trials: number;
  costUsd: number;
  reported: boolean;
}

/** What a holdout that ended (decided, or at its cap) stores: its comparisons, its sequential test, and the verdict. */
export function holdoutAnswer(
  options: TuneRecord['options'],
  pairs: readonly HoldoutPair[],
  rounds: number,
  outcome: HoldoutOutcome,
  spent: Record<'original' | 'winner', HoldoutSpent>,
): Required<Pick<TuneRecord, 'holdout' | 'verdict'>> {
  const design = holdoutDesign(options);
  const cmp = holdoutComparison(pairs, options.alpha);
  const seen = recallDiscordance(pairs);
  const bounds = holdoutBoundaries(design, seen.discordant);
  const constraintPairs = (role: CaseRole) => pairs.filter((p) => p.role === role && p.original !== null && p.winner !== null).length;
  const side = (k: keyof typeof spent) => ({
    dir: 'holdout',
    trials: spent[k].trials,
    ...(spent[k].reported ? { costUsd: spent[k].costUsd } : {}),
  });
  return {
    holdout: {
      original: side('original'),
      winner: side('winner'),
      recall: stored(cmp.recall),
      siblings: stored(cmp.siblings),
      negatives: stored(cmp.negatives),
      leftOut: cmp.left_out,
      sequential: {
        gain: design.gain,
        beta: design.beta,
        cap: options.holdoutTrials,
        rounds,
        ...seen,
        improveAt: bounds.improveAt[seen.discordant]!,
        ruledOutAt: bounds.ruledOutAt[seen.discordant]!,
        outcome: outcome === 'continue' ? 'cap' : outcome,
        ...(outcome === 'continue' ? atCap(pairs, design, rounds) : {}),
        dropPower: {
          siblings: dropPower(constraintPairs('sibling'), design.gain, options.alpha),
          negatives: dropPower(constraintPairs('none'), design.gain, options.alpha),
        },
      },
    },
    verdict: sequentialVerdict(cmp, outcome === 'improved', options.alpha),
  };
}

/** What an undecided holdout had and would need, from the original's rate on each positive as observed. */
function atCap(pairs: readonly HoldoutPair[], design: HoldoutDesign, rounds: number): { power: number; settleRounds?: number } {
  const rates = [...new Set(pairs.filter((p) => p.role === 'self').map((p) => p.caseId))].map((id) => {
    const scored = pairs.filter((p) => p.caseId === id && p.original !== null);
    return scored.filter((p) => p.original).length / Math.max(1, scored.length);
  });
  const s = settling(rates, design, rounds, 4 * rounds);
  return { power: s.power, ...(s.rounds !== undefined ? { settleRounds: s.rounds } : {}) };
}
