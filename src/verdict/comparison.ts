import type { Arm, DecisionMode } from '../run/config-schema.js';
import type { Interval, Rate, Results, RunManifest } from '../run/schema.js';

/** One side of a comparison: a run folder's manifest and results, and the folder as the user named it. */
export interface RunToCompare {
  dir: string;
  manifest: RunManifest;
  results: Results;
}

/** What became of a case between two runs. A change's verdict, not a run's verdict. */
export const CHANGES = ['REGRESSED', 'IMPROVED', 'UNCHANGED', 'UNDECIDED'] as const;
export type Change = (typeof CHANGES)[number];

/**
 * How a difference was tested. `boschloo`: both runs ran a fixed number of trials (or, for the ablation arm, as many
 * as the skill arm set), so an exact unconditional test applies. `design`: a run stopped the case by its stored
 * sequential design: the exact test under both runs' stopping rules. `anytime`: a run stopped the case short of any
 * known rule: a paired sign e-process and time-uniform confidence sequences, valid under any stopping rule.
 * `canary`: the candidate ran against this very base (`run --baseline`): its one-sided exact test of a drop.
 */
export type ChangeMethod = 'boschloo' | 'design' | 'anytime' | 'canary';

export interface RateDifference extends Interval {
  /** candidate − base. */
  diff: number;
}

/** One case and arm, both runs side by side. */
export interface CaseChange {
  caseId: string;
  arm: Arm;
  base: Rate;
  candidate: Rate;
  difference: RateDifference;
  method: ChangeMethod;
  pValue: number;
  /** Benjamini–Hochberg across every case and arm compared. */
  pAdjusted: number;
  change: Change;
  /** For UNDECIDED: trials per run (in each of the two runs) that would decide it. */
  trialsToDecide?: number;
  reason: string;
}

/** A confusion-matrix cell (a case's trials that fired `column`) that moved. */
export interface RoutingChange {
  caseId: string;
  expect: string;
  /** A family member's folder name, `none`, `multiple` or `other`. */
  column: string;
  base: Rate;
  candidate: Rate;
  difference: RateDifference;
  pValue: number;
  pAdjusted: number;
}

/** One side of the comparison: what produced its numbers. */
export interface ComparedRun {
  runId: string;
  /** The folder as the user named it. */
  dir: string;
  agent: { id: string; cliVersion?: string };
  model: { requested: string; reported?: string };
  simulated: boolean;
  startedAt: string;
  decisionMode: DecisionMode;
  trials: number;
  costUsd?: number;
}

export interface SkillDrift {
  name: string;
  base?: string;
  candidate?: string;
  state: 'same' | 'changed' | 'added' | 'removed';
}

/** Everything that differs between the runs besides the model's behaviour: always printed. */
export interface Drift {
  /** Named facts (model, CLI version, cases hash, decision settings), each with both values and whether it differs. */
  facts: { name: string; base: string; candidate: string; differs: boolean }[];
  skills: SkillDrift[];
}

/** The suite's rates, compared. */
export const SUITE_RATES = ['passRate', 'recall', 'falseTriggers', 'siblingConfusion'] as const;
export type SuiteRateName = (typeof SUITE_RATES)[number];

/** A rate's change across the suite, candidate − base: the mean of the cases' changes, with its interval. */
export interface SuiteDifference extends RateDifference {
  /** Cases that have trials for this rate in both runs. */
  cases: number;
}
export type SuiteRates = Record<SuiteRateName, SuiteDifference>;

/** The suite-level verdict: every case of the skill arm at once, one-sided toward regression. */
export interface SuiteChange {
  change: Change;
  /** Cases combined (those with scored trials in both runs). */
  cases: number;
  /** The truncated product of the cases' one-sided p-values toward a drop, and toward a rise, against their exact nulls. */
  pRegressed: number;
  pImproved: number;
  /** Pass rate, trigger recall, false triggers, sibling confusion. */
  rates: SuiteRates;
  /** The cases whose pass rate moved most. */
  moved: { caseId: string; diff: number; change: Change }[];
  reason: string;
}

export interface Comparison {
  base: ComparedRun;
  candidate: ComparedRun;
  /** Different agents or models: allowed (the point of a canary), named in every report's header. */
  crossAgent: boolean;
  crossModel: boolean;
  /** Significance level for the adjusted p-values. */
  alpha: number;
  /** The smallest change worth detecting; a difference interval inside ±margin is UNCHANGED. */
  margin: number;
  /** The suite-level verdict (skill arm): it gates beside the cases. */
  suite: SuiteChange;
  cases: CaseChange[];
  routing: RoutingChange[];
  drift: Drift;
  /** Cases that only one run has: listed, not compared. */
  onlyIn: { base: string[]; candidate: string[] };
  /**
   * What either run lacks to be compared in full (stopped short, damaged trial files, cases without a scored
   * trial): each named, and never a clean pass.
   */
  missingData: string[];
  /** 1 on a suite-level or any case's significant regression; else 4 when data is missing; 0 otherwise. */
  exitCode: number;
}
