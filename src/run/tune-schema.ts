import { z } from 'zod';
import { contextSchema } from './config-schema.js';
import { runStatusSchema } from './schema.js';

/**
 * tune.json: a tune's record, in the folder that holds every run it made (each iteration's runs are regular run
 * folders). Written when the tune starts and again when it ends, so a report and `--resume` read the same facts.
 */
export const TUNE_FILE = 'tune.json';
export const TUNE_FORMAT_VERSION = 1;

export const TUNE_VERDICTS = ['IMPROVED', 'NO SIGNIFICANT CHANGE', 'WORSE'] as const;
export const tuneVerdictSchema = z.enum(TUNE_VERDICTS);

/** Why a candidate is out of the running, as stored. */
export const DROP_REASONS = ['worse-on-tune', 'constraint', 'not-better', 'lint', 'duplicate', 'no-proposal'] as const;

const roleScoreSchema = z.object({
  /** Mean per-case pass rate over the cases expecting the tuned skill, a sibling, and no skill (null: no such case). */
  recall: z.number().nullable(),
  siblings: z.number().nullable(),
  negatives: z.number().nullable(),
});

const stepSchema = z.object({
  /** The run folder, relative to the tune folder. */
  dir: z.string(),
  score: roleScoreSchema,
  /** Trials run (scored or not) and what the CLI said they cost. */
  trials: z.number().int(),
  costUsd: z.number().optional(),
});
export type TuneStep = z.output<typeof stepSchema>;

export const iterationSchema = z.object({
  index: z.number().int(),
  description: z.string().nullable(),
  /** The proposer's run folder (absent for the original). */
  proposer: z.object({ dir: z.string(), trials: z.number().int(), costUsd: z.number().optional() }).optional(),
  tune: stepSchema.optional(),
  select: stepSchema.optional(),
  dropped: z.enum(DROP_REASONS).optional(),
  /** Why, in words (a lint problem, the difference that dropped it). */
  detail: z.string().optional(),
});
export type TuneIteration = z.output<typeof iterationSchema>;

const comparisonSchema = z.object({
  original: z.number().nullable(),
  winner: z.number().nullable(),
  diff: z.number().nullable(),
  lo: z.number(),
  hi: z.number(),
  pValue: z.number(),
  pairs: z.number().int(),
  discordant: z.number().int(),
});
export type StoredRoleComparison = z.output<typeof comparisonSchema>;

export const tuneRecordSchema = z.object({
  version: z.number().int(),
  tuneId: z.string(),
  status: runStatusSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  skill: z.string(),
  /** The SKILL.md whose description is tuned, as the user named it. */
  skillFile: z.string(),
  agent: z.string(),
  /** Where its trials ran (the config's or `--context`'s; a case's own wins); absent in tunes begun before it was kept. */
  context: contextSchema.optional(),
  model: z.string().optional(),
  proposerModel: z.string().optional(),
  simulator: z.object({ profile: z.string(), name: z.string() }).nullable(),
  options: z.object({
    seed: z.number().int(),
    iterations: z.number().int(),
    holdoutTrials: z.number().int(),
    alpha: z.number(),
    maxCostUsd: z.number().optional(),
    /** The recall gain the holdout's sequential test is designed to prove or rule out (absent before it existed: fixed holdout). */
    gain: z.number().optional(),
    /** Earlier caps of `holdoutTrials` a resume raised, in order: the holdout's looks fell where each cap put them. */
    holdoutCapsBefore: z.array(z.number().int()).optional(),
  }),
  splits: z.object({ tune: z.array(z.string()), select: z.array(z.string()), holdout: z.array(z.string()) }),
  original: z.string(),
  /** The family's hash (every file of every skill) when the tune began: a resume refuses a family that changed since. Absent before it was kept. */
  familyHash: z.string().optional(),
  iterations: z.array(iterationSchema),
  /**
   * The seed of the simulator's draws (with `--sim`): each step draws from a seed derived from it and its name, so the
   * original and a candidate draw independently; `given` when `--draw-seed` chose it. Absent before it was kept.
   */
  draws: z.object({ seed: z.number().int(), given: z.boolean() }).optional(),
  /** The iteration that won on the select cases (0: none beat the original). */
  winner: z.number().int().optional(),
  holdout: z
    .object({
      original: stepSchema.omit({ score: true }),
      winner: stepSchema.omit({ score: true }),
      recall: comparisonSchema,
      siblings: comparisonSchema,
      negatives: comparisonSchema,
      /** Pairs left out because either trial carried no evidence (an error, a timeout): never scored as a miss. */
      leftOut: z.number().int(),
      /** The sequential test on recall (absent in tunes made before it: one fixed holdout). */
      sequential: z
        .object({
          gain: z.number(),
          beta: z.number(),
          cap: z.number().int(),
          /** Rounds run: trials per holdout case under each description. */
          rounds: z.number().int(),
          discordant: z.number().int(),
          winnerOnly: z.number().int(),
          /** The last look's boundaries: IMPROVED at winnerOnly ≥ improveAt, the gain ruled out at winnerOnly ≤ ruledOutAt. */
          improveAt: z.number().int(),
          ruledOutAt: z.number().int(),
          outcome: z.enum(['improved', 'ruled-out', 'cap']),
          /** At the cap: the power the holdout had for the gain, and the rounds that would give 1 − β (absent: beyond reach). */
          power: z.number().optional(),
          settleRounds: z.number().int().optional(),
          /** Each constraint's best chance to flag a drop of the gain on its holdout pairs. */
          dropPower: z.object({ siblings: z.number(), negatives: z.number() }),
        })
        .optional(),
    })
    .optional(),
  verdict: tuneVerdictSchema.optional(),
  /** The description the tune ends with: the winner's when IMPROVED, else the original's. */
  result: z.string().optional(),
  /** Whether SKILL.md was rewritten with it (`--write`). */
  written: z.boolean().default(false),
  costUsd: z.number().optional(),
  trials: z.number().int().default(0),
});
export type TuneRecord = z.output<typeof tuneRecordSchema>;
