import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pMap from 'p-map';
import { adapterFor } from '../agents/registry.js';
import { gradeTrial, type GradeOptions, type TrialOutcome } from '../grade/outcome.js';
import { InputError } from '../load/input-error.js';
import { summarise, type Summary } from '../stats/summary.js';
import { exitCode, fixedVerdicts, sprtVerdict, type CaseVerdict } from '../verdict/verdict.js';
import { RunStore, type TrialRef } from '../store/run-store.js';
import type { RunManifest } from './run.js';

/** The run's essentials, from the manifest: what made these numbers, so results.json stands on its own. */
export interface RunFacts {
  agent: { id: string; cliVersion?: string };
  model: { requested: string; reported?: string };
  /** A skillprobe model simulator answered, not a model: the numbers echo its profile. */
  simulated: boolean;
  simulator: RunManifest['simulator'];
  status: RunManifest['status'];
  startedAt: string;
  endedAt?: string;
  trials: RunManifest['trials'];
  decision: RunManifest['config']['decision'];
  grading: RunManifest['config']['grading'];
}

export function runFacts(m: RunManifest): RunFacts {
  return {
    agent: { id: m.agent.id, cliVersion: m.agent.cliVersion },
    model: { requested: m.model, reported: m.reportedModel },
    simulated: m.simulator !== null,
    simulator: m.simulator,
    status: m.status,
    startedAt: m.startedAt,
    endedAt: m.endedAt,
    trials: m.trials,
    decision: m.config.decision,
    grading: m.config.grading,
  };
}

export interface Results {
  runId: string;
  harnessVersion: string;
  run: RunFacts;
  gradedAt: string;
  options: Omit<GradeOptions, 'family' | 'deniedTools' | 'skillsFolder'>;
  outcomes: TrialOutcome[];
  summary: Summary;
  verdicts: CaseVerdict[];
  /** The exit code these verdicts give under the run's inconclusive policy. */
  exitCode: number;
}

export async function openRun(dir: string): Promise<{ store: RunStore; manifest: RunManifest }> {
  if (!existsSync(join(dir, 'run.json'))) {
    throw new InputError({ file: dir, what: 'not a run folder (no run.json)', todo: 'pass a folder under transcripts/, e.g. transcripts/<run-id>' });
  }
  const store = new RunStore(dir);
  return { store, manifest: await store.readJson<RunManifest>('run.json') };
}

export function gradeOptions(manifest: RunManifest): GradeOptions {
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  return {
    family: manifest.family,
    skillsFolder: adapter.skillsFolder,
    deniedTools: adapter.deniedTools,
    readCountsAsFiring: manifest.config.grading.readTriggers === 'fire',
    budgetStopsFail: manifest.config.grading.budgetStops === 'fail',
  };
}

/** Grades every stored transcript with the current graders, in memory. Runs nothing, writes nothing. */
async function gradeStored(dir: string): Promise<{ store: RunStore; manifest: RunManifest; outcomes: TrialOutcome[] }> {
  const { store, manifest } = await openRun(dir);
  const opts = gradeOptions(manifest);
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  const byId = new Map(manifest.cases.defs.map((c) => [c.id, c]));
  const refs = (await store.listTrials()).filter((r) => byId.has(r.caseId));
  // Bounded, so thousands of trials never hold thousands of open files.
  const outcomes = await pMap(refs, async (ref: TrialRef) => {
    const { raw, meta } = await store.readTrial(ref);
    return gradeTrial(adapter.parse(raw), meta, byId.get(ref.caseId)!, ref.arm, ref.n, opts);
  }, { concurrency: 32 });
  return { store, manifest, outcomes };
}

/** Regrades every stored transcript with the current graders and rewrites results.json. Runs nothing. */
export async function gradeRun(dir: string, now = new Date()): Promise<{ manifest: RunManifest; results: Results }> {
  const { store, manifest, outcomes } = await gradeStored(dir);
  return { manifest, results: await writeResults(store, manifest, outcomes, now) };
}

/** Statistics over graded outcomes, written beside the transcripts; always regenerable from them. */
export async function writeResults(store: RunStore, manifest: RunManifest, outcomes: TrialOutcome[], now: Date): Promise<Results> {
  const results = buildResults(manifest, outcomes, now);
  await store.writeJson('results.json', results);
  return results;
}

/** Verdicts and statistics over graded outcomes. Pure: the manifest and outcomes in, the results out. */
export function buildResults(manifest: RunManifest, graded: TrialOutcome[], now: Date): Results {
  const opts = gradeOptions(manifest);
  const decision = manifest.config.decision;
  // One order, whatever order the trials finished in: a regrade reproduces a run's results exactly.
  const outcomes = [...graded].sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n);
  const verdicts =
    decision.mode === 'sprt'
      ? manifest.cases.defs.map((c) => sprtVerdict(c, outcomes))
      : fixedVerdicts(manifest.cases.defs, outcomes, decision.correction);
  return {
    runId: manifest.runId,
    harnessVersion: manifest.harness.version,
    run: runFacts(manifest),
    gradedAt: now.toISOString(),
    options: { readCountsAsFiring: opts.readCountsAsFiring, budgetStopsFail: opts.budgetStopsFail },
    outcomes,
    summary: summarise(manifest.cases.defs, outcomes, manifest.family.map((m) => m.dir), manifest.config.arms, {
      confidence: manifest.config.grading.confidence,
      readCountsAsFiring: opts.readCountsAsFiring,
    }),
    verdicts,
    exitCode: exitCode(verdicts, decision.inconclusive),
  };
}

/**
 * The stored results; when there are none (an interrupted run) or they predate the `run` block, the stored
 * transcripts graded in memory, with `regraded` set. Writes nothing: `skillprobe grade` stores them.
 */
export async function loadResults(dir: string): Promise<{ manifest: RunManifest; results: Results; regraded: boolean }> {
  const { store, manifest } = await openRun(dir);
  const stored = existsSync(join(dir, 'results.json')) ? await store.readJson<Results>('results.json') : undefined;
  if (stored?.run) return { manifest, results: stored, regraded: false };
  const graded = await gradeStored(dir);
  return { manifest, results: buildResults(manifest, graded.outcomes, new Date()), regraded: true };
}
