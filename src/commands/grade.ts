import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adapterFor } from '../agents/registry.js';
import { gradeTrial, type GradeOptions, type TrialOutcome } from '../grade/outcome.js';
import { InputError } from '../load/input-error.js';
import { summarise, type Summary } from '../stats/summary.js';
import { exitCode, fixedVerdicts, sprtVerdict, type CaseVerdict } from '../verdict/verdict.js';
import { RunStore, type TrialRef } from '../store/run-store.js';
import type { RunManifest } from './run.js';

export interface Results {
  runId: string;
  harnessVersion: string;
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

/** Reads in bounded batches: thousands of trials without thousands of open files. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/** Regrades every stored transcript with the current graders and rewrites results.json. Runs nothing. */
export async function gradeRun(dir: string, now = new Date()): Promise<{ manifest: RunManifest; results: Results }> {
  const { store, manifest } = await openRun(dir);
  const opts = gradeOptions(manifest);
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  const byId = new Map(manifest.cases.defs.map((c) => [c.id, c]));
  const refs = (await store.listTrials()).filter((r) => byId.has(r.caseId));
  const outcomes = await mapLimited(refs, 32, async (ref: TrialRef) => {
    const { raw, meta } = await store.readTrial(ref);
    return gradeTrial(adapter.parse(raw), meta, byId.get(ref.caseId)!, ref.arm, ref.n, opts);
  });
  return { manifest, results: await writeResults(store, manifest, outcomes, now) };
}

/** Statistics over graded outcomes, written beside the transcripts; always regenerable from them. */
export async function writeResults(store: RunStore, manifest: RunManifest, outcomes: TrialOutcome[], now: Date): Promise<Results> {
  const opts = gradeOptions(manifest);
  const decision = manifest.config.decision;
  const verdicts =
    decision.mode === 'sprt'
      ? manifest.cases.defs.map((c) => sprtVerdict(c, outcomes))
      : fixedVerdicts(manifest.cases.defs, outcomes, decision.correction);
  const results: Results = {
    runId: manifest.runId,
    harnessVersion: manifest.harness.version,
    gradedAt: now.toISOString(),
    options: { readCountsAsFiring: opts.readCountsAsFiring, budgetStopsFail: opts.budgetStopsFail },
    outcomes: [...outcomes].sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n),
    summary: summarise(manifest.cases.defs, outcomes, manifest.family.map((m) => m.dir), manifest.config.arms, manifest.config.grading.confidence),
    verdicts,
    exitCode: exitCode(verdicts, decision.inconclusive),
  };
  await store.writeJson('results.json', results);
  return results;
}

/** The stored results, or a fresh grading when the run has none yet (e.g. it was interrupted). */
export async function loadResults(dir: string): Promise<{ manifest: RunManifest; results: Results }> {
  const { store, manifest } = await openRun(dir);
  if (!existsSync(join(dir, 'results.json'))) return gradeRun(dir);
  return { manifest, results: await store.readJson<Results>('results.json') };
}
