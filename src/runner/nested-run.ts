import type { TrialRole } from '../agents/types.js';
import type { StoredJudgeStep } from '../grade/judge-answers.js';
import type { Case } from '../load/cases.js';
import type { Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { Results, RunManifest } from '../run/schema.js';

/**
 * A nested run: a run inside another run's folder, a regular run folder of its own (resumable, capped, reaped on a
 * kill, kept byte for byte). A judge's requests (`judge/step-<hash>/` of a run), a tune's candidate evaluations and its
 * proposer's request (`iterations/<i>/<split>/` of a tune) are each one. `startNestedRun` (runner/pipeline.ts) starts
 * one, or reads it back when it finished before.
 */
export interface NestedRunRequest {
  /** Its run folder, inside the parent's. */
  dir: string;
  skills: Skill[];
  cases: Case[];
  config: Config;
  /** What its trials are for: trials under test, a judge's requests or a proposer's. */
  role: TrialRole;
}

export interface NestedRun {
  dir: string;
  manifest: RunManifest;
  results: Results;
  /** Trials this nested run ran (scored or not). */
  trials: number;
  costUsd?: number;
  /** A judge's nested run: its answers, from the same single read of its trials that graded it. */
  judgeStep?: StoredJudgeStep;
}
