import type { Arm, DecisionMode } from '../run/config-schema.js';
import type { Interval, Rate } from '../run/schema.js';

/** What became of a case between two runs. A change's verdict, not a run's verdict. */
export const CHANGES = ['REGRESSED', 'IMPROVED', 'UNCHANGED', 'UNDECIDED'] as const;
export type Change = (typeof CHANGES)[number];

/**
 * How a difference was tested. `boschloo`: both runs ran a fixed number of trials, so an exact unconditional test
 * applies. `anytime`: a run was sequential (SPRT stops cases early, which makes fixed-sample p-values wrong): a
 * paired sign e-process and time-uniform confidence sequences, valid under any stopping rule.
 */
export type ChangeMethod = 'boschloo' | 'anytime';

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
  /** 1 on any significant regression; else 4 when data is missing; 0 otherwise. */
  exitCode: number;
}
