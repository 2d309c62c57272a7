import type { Case } from '../load/cases.js';
import type { Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { TuneRecord } from '../run/tune-schema.js';
import { holdoutComparison, recallDiscordance, sequentialVerdict, type HoldoutPair, type RoleComparison } from '../tune/holdout.js';
import {
  dropPower,
  holdoutBoundaries,
  holdoutOutcome,
  HOLDOUT_DESIGN_DEFAULTS,
  lookRounds,
  settling,
  type HoldoutDesign,
  type HoldoutOutcome,
} from '../tune/holdout-design.js';
import type { CaseRole } from '../tune/splits.js';
import type { NestedRun as StepResult } from '../runner/nested-run.js';

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

/** A step of the tune, run or read back; undefined when the tune stopped (Ctrl-C, the cost cap). */
export type TuneStepRunner = (name: string, skills: Skill[], cases: Case[], config: Config) => Promise<StepResult | undefined>;

/** Pairs one round-batch's trials of the original and the winner by case and trial number, numbered from `after`. */
function batchPairs(original: StepResult, winner: StepResult, roleOf: (id: string) => CaseRole, after: number): HoldoutPair[] {
  const key = (caseId: string, n: number) => `${caseId}\u0000${n}`;
  const won = new Map(winner.results.outcomes.filter((o) => o.arm === 'skill').map((o) => [key(o.caseId, o.n), o.passed]));
  return original.results.outcomes
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

/**
 * The holdout, sequentially: rounds of every holdout case under the original and the winner (a step each per look),
 * until the recall test says IMPROVED or rules the gain out, or the cap. Returns the record's holdout and verdict, or
 * undefined when the tune stopped before the holdout ended.
 */
export async function runHoldout(
  step: TuneStepRunner,
  o: {
    options: TuneRecord['options'];
    config: Config;
    cases: Case[];
    original: Skill[];
    winner: Skill[];
    roleOf: (id: string) => CaseRole;
    say: (text: string) => void;
  },
): Promise<Pick<TuneRecord, 'holdout' | 'verdict'> | undefined> {
  const design = holdoutDesign(o.options);
  const pairs: HoldoutPair[] = [];
  const spent = { original: { trials: 0, costUsd: 0, reported: false }, winner: { trials: 0, costUsd: 0, reported: false } };
  const add = (side: keyof typeof spent, r: StepResult) => {
    spent[side].trials += r.trials;
    if (r.costUsd !== undefined) Object.assign(spent[side], { costUsd: spent[side].costUsd + r.costUsd, reported: true });
  };
  let done = 0;
  let outcome: HoldoutOutcome = 'continue';
  for (const upTo of holdoutSchedule(o.options)) {
    const batch = `holdout/${done + 1}-${upTo}`;
    const config = { ...o.config, trials: upTo - done };
    const before = await step(`${batch}/original`, o.original, o.cases, config);
    const after = before && (await step(`${batch}/winner`, o.winner, o.cases, config));
    if (!before || !after) return undefined;
    add('original', before);
    add('winner', after);
    pairs.push(...batchPairs(before, after, o.roleOf, done));
    done = upTo;
    const seen = recallDiscordance(pairs);
    outcome = holdoutOutcome(design, seen.discordant, seen.winnerOnly);
    o.say(`holdout: ${done} trials per case, ${seen.winnerOnly} of ${seen.discordant} discordant pairs for the winner\n`);
    if (outcome !== 'continue') break;
  }
  const cmp = holdoutComparison(pairs, o.options.alpha);
  const seen = recallDiscordance(pairs);
  const bounds = holdoutBoundaries(design, seen.discordant);
  const constraintPairs = (role: CaseRole) => pairs.filter((p) => p.role === role && p.original !== null && p.winner !== null).length;
  const atCap =
    outcome === 'continue'
      ? (() => {
          // What it had and would need, from the original's rate on each positive as observed.
          const rates = [...new Set(pairs.filter((p) => p.role === 'self').map((p) => p.caseId))].map((id) => {
            const scored = pairs.filter((p) => p.caseId === id && p.original !== null);
            return scored.filter((p) => p.original).length / Math.max(1, scored.length);
          });
          const s = settling(rates, design, done, 4 * done);
          return { power: s.power, ...(s.rounds !== undefined ? { settleRounds: s.rounds } : {}) };
        })()
      : {};
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
        cap: o.options.holdoutTrials,
        rounds: done,
        ...seen,
        improveAt: bounds.improveAt[seen.discordant]!,
        ruledOutAt: bounds.ruledOutAt[seen.discordant]!,
        outcome: outcome === 'continue' ? 'cap' : outcome,
        ...atCap,
        dropPower: {
          siblings: dropPower(constraintPairs('sibling'), design.gain, o.options.alpha),
          negatives: dropPower(constraintPairs('none'), design.gain, o.options.alpha),
        },
      },
    },
    verdict: sequentialVerdict(cmp, outcome === 'improved', o.options.alpha),
  };
}
