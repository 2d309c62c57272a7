import { z } from 'zod';
import { contextSchema } from './config-schema.js';
import { runStatusSchema } from './schema.js';

/**
 * mutate.json: a mutation run's record, in the folder that holds the unmutated run and every mutant's run (each a
 * regular run folder that `report` and `compare` read). Written as it starts, after each run and as it ends, so a
 * report and `--resume` read the same facts.
 */
export const MUTATE_FILE = 'mutate.json';
export const MUTATE_FORMAT_VERSION = 1;

/** The power a mutate aims for: below it, a mutant's trials needed are named; a survivor above it defied its prediction. */
export const TARGET_POWER = 0.8;

/** A pass-rate change smaller than this is no change: a mutant moving no case by more has no case in the suite for it. */
export const NO_MOVE = 0.005;

const caseMoveSchema = z.object({ caseId: z.string(), from: z.number(), to: z.number() });
export type CaseMove = z.output<typeof caseMoveSchema>;

/** The chance a mutant's run notices it, as its reading weighs it: the whole rule's where simulated, else the floor's. */
export const powerOf = (m: { power?: number; rulePower?: { p: number } }): number | undefined => m.rulePower?.p ?? m.power;

/** Whether a mutant lowers a case's pass rate: the only move a regression test can notice. */
export const fell = (c: CaseMove): boolean => c.from - c.to >= NO_MOVE;
/** Whether it raises one (a plan the args carry no longer garbled by a body that wrote it, say): nothing to notice. */
export const rose = (c: CaseMove): boolean => c.to - c.from >= NO_MOVE;

const mutantSchema = z.object({
  skill: z.string(),
  operator: z.string(),
  /** What it changed, in words; absent when the operator had nothing to break in this skill (`inapplicable`). */
  what: z.string().optional(),
  inapplicable: z.string().optional(),
  /** The kind of case that kills a mutant of its operator: named when it survives with no case that moved. */
  killedBy: z.string().optional(),
  /** Why the mutant failed the checks a shipped skill passes (lint's spec rules, the listing budget): never run. */
  refused: z.string().optional(),
  /** Its folder (its skills and its run), relative to the mutate folder. */
  dir: z.string().optional(),
  /** Each case's pass chance before and after, as the simulator plays it (absent without a simulator profile). */
  moves: z.array(caseMoveSchema).optional(),
  /**
   * Exact power of the suite-level combined test alone to notice it, at the suite's design (from `moves`): the floor of
   * `rulePower`, which counts a case REGRESSED on its own test too.
   */
  power: z.number().optional(),
  /**
   * The chance the suite notices it by the whole rule `noticed` counts, simulated from `moves` (seeded draws of both
   * runs at the suite's design), with its 95% Clopper–Pearson interval. Absent in a mutate begun before it was kept.
   */
  rulePower: z.object({ p: z.number(), lo: z.number(), hi: z.number(), draws: z.number().int() }).optional(),
  /**
   * Trials per case (both runs fixed-N) at which the combined test alone, and so the whole rule at least as often,
   * would notice it with power 0.8; null: more than MOST_TRIALS (100).
   */
  trialsNeeded: z.number().int().nullable().optional(),
  /** Its run, once it ran. */
  status: runStatusSchema.optional(),
  trials: z.number().int().default(0),
  costUsd: z.number().optional(),
  noticed: z.boolean().optional(),
  /** The suite-level test's p-value against the unmutated run. */
  pValue: z.number().optional(),
  /** Cases whose verdict changed from PASS (the literal rule, reported beside, never counted). */
  flipped: z.array(z.string()).default([]),
  /** Each case's observed pass rate before and after (skill arm). */
  observed: z.array(caseMoveSchema).optional(),
});
export type StoredMutant = z.output<typeof mutantSchema>;

export const mutateRecordSchema = z.object({
  version: z.number().int(),
  mutateId: z.string(),
  status: runStatusSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  agent: z.string(),
  context: contextSchema.optional(),
  model: z.string().optional(),
  simulator: z.object({ profile: z.string(), name: z.string() }).nullable(),
  draws: z.object({ seed: z.number().int(), given: z.boolean() }).optional(),
  skills: z.array(z.string()),
  operators: z.array(z.string()),
  familyHash: z.string(),
  alpha: z.number(),
  maxCostUsd: z.number().optional(),
  /** The unmutated run: `original` (run here), or a stored run folder `--base` named, as the user named it. */
  base: z.object({ dir: z.string(), given: z.boolean(), status: runStatusSchema.optional() }),
  /** The literal rule's A/A false-flip rate at the suite's design and the unmutated run's rates (sequential designs only). */
  aaFlipRate: z.number().optional(),
  /**
   * The suite's health as the mutate began, lint's warnings of it: cases whose prompt names the skill they expect,
   * cases the stored runs show cannot move, the A/A false-flip rate at the stored rates. Where each was found. Absent in
   * a mutate begun before it was kept.
   */
  health: z
    .array(
      z.object({
        file: z.string(),
        line: z.number().int().optional(),
        col: z.number().int().optional(),
        what: z.string(),
        todo: z.string(),
      }),
    )
    .optional(),
  mutants: z.array(mutantSchema),
  trials: z.number().int(),
  costUsd: z.number().optional(),
});
export type MutateRecord = z.output<typeof mutateRecordSchema>;
