import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readStoredTranscript } from '../grade/stored.js';
import type { Case } from '../load/cases.js';
import type { Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { Results, RunManifest } from '../run/schema.js';
import { RunStore } from '../run/store.js';
import type { RunPlace } from '../runner/execute.js';
import type { CaseRole } from '../tune/splits.js';
import type { CaseTally } from '../tune/score.js';
import { loadResults } from './grade.js';
import type { LoadedSuite } from './run.js';
import { runAndGrade } from './run-agents.js';

/** One run a tune makes: a family's description(s) on some cases, in a regular run folder of the tune's. */
export interface StepRequest {
  /** The run folder. */
  dir: string;
  skills: Skill[];
  cases: Case[];
  config: Config;
}

export interface StepResult {
  dir: string;
  manifest: RunManifest;
  results: Results;
  /** Trials this step ran (scored or not). */
  trials: number;
  costUsd?: number;
}

/**
 * Runs a step, or reads it back: a finished run folder is never run again (a resumed tune replays its finished steps
 * and gets the same answers), an interrupted one is resumed, and a folder a kill left without its run.json (it holds
 * no trial yet) is made anew.
 */
export async function runStep(base: LoadedSuite, place: RunPlace, step: StepRequest): Promise<StepResult> {
  const manifestFile = join(step.dir, 'run.json');
  if (existsSync(join(step.dir, 'results.json')) && existsSync(manifestFile)) {
    const stored = await loadResults(step.dir);
    if (stored.manifest.status === 'completed') return stepResult(step.dir, stored.manifest, stored.results);
  }
  if (existsSync(step.dir) && !existsSync(manifestFile)) await rm(step.dir, { recursive: true, force: true });
  const resume = existsSync(manifestFile) ? step.dir : undefined;
  const loaded: LoadedSuite = {
    ...base,
    config: { ...step.config, transcriptsDir: dirname(step.dir) },
    skills: step.skills,
    suite: { ...base.suite, cases: step.cases },
  };
  const { manifest, results } = await runAndGrade(
    loaded,
    { ...place, overrides: {}, resume, runId: basename(step.dir) },
    { checked: true },
  );
  return stepResult(step.dir, manifest, results);
}

function stepResult(dir: string, manifest: RunManifest, results: Results): StepResult {
  return {
    dir,
    manifest,
    results,
    trials: results.outcomes.length,
    ...(results.run.costUsd !== undefined ? { costUsd: results.run.costUsd } : {}),
  };
}

/** Each case's passes and scored trials on the skill arm, with its design's stopping-adjusted estimate where it has one. */
export function tallies(results: Results, roleOf: (caseId: string) => CaseRole): CaseTally[] {
  return results.verdicts.map((v) => ({
    caseId: v.caseId,
    role: roleOf(v.caseId),
    passes: v.passes,
    trials: v.scored,
    ...(v.estimate ? { estimate: v.estimate.rate } : {}),
  }));
}

/** What the proposer answered: the assistant's text of the step's one trial, or undefined when it has none. */
export async function proposerAnswer(step: StepResult): Promise<string | undefined> {
  const outcome = step.results.outcomes.find((o) => o.status === 'ok');
  if (!outcome) return undefined;
  const { store } = await RunStore.open(step.dir);
  const read = await readStoredTranscript(store, step.manifest, outcome);
  if (!read.ok) return undefined;
  return read.transcript.events.flatMap((e) => (e.kind === 'text' && e.source === 'assistant' ? [e.text] : [])).join('\n');
}
