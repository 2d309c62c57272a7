import type { Case } from '../load/cases.js';
import type { Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { Results, RunManifest } from '../run/schema.js';

/** A run inside another's folder (a tune's steps, a run's judge): a family on some cases, in a regular run folder. */
export interface StepRequest {
  /** The run folder. */
  dir: string;
  skills: Skill[];
  cases: Case[];
  config: Config;
  /** Its trials run with no tool at all (a judge's requests). */
  noTools?: boolean;
}

export interface StepResult {
  dir: string;
  manifest: RunManifest;
  results: Results;
  /** Trials this step ran (scored or not). */
  trials: number;
  costUsd?: number;
}
