import pMap from 'p-map';
import { adapterFor } from '../agents/registry.js';
import { gradeTrial, type GradeOptions } from '../grade/outcome.js';
import type { DamagedTrial, Results, RunManifest, TrialOutcome, TrialRef } from '../run/schema.js';
import { RunStore } from '../run/store.js';
import { buildResults } from '../verdict/results.js';

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

export interface StoredGrades {
  outcomes: TrialOutcome[];
  /** Trials that could not be read or belong to no case of the run: listed, left out. */
  damaged: DamagedTrial[];
}

/** Grades every intact stored transcript with the current graders, in memory. Runs nothing, writes nothing. */
export async function gradeStored(store: RunStore, manifest: RunManifest): Promise<StoredGrades> {
  const opts = gradeOptions(manifest);
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  const byId = new Map(manifest.cases.defs.map((c) => [c.id, c]));
  const listed = await store.listTrials();
  const damaged = [...listed.damaged];
  const known = listed.trials.filter((r) => byId.has(r.caseId));
  for (const r of listed.trials.filter((t) => !byId.has(t.caseId))) {
    damaged.push({ path: `trials/${r.caseId}/${r.arm}/${r.n}.jsonl`, problem: `a trial of case "${r.caseId}", which run.json does not list` });
  }
  // Bounded, so thousands of trials never hold thousands of open files.
  const read = await pMap(known, async (ref: TrialRef) => {
    const t = await store.readTrial(ref);
    return t.ok ? gradeTrial(adapter.parse(t.raw), t.meta, byId.get(ref.caseId)!, ref.arm, ref.n, opts) : t.damaged;
  }, { concurrency: 32 });
  const outcomes = read.filter((x): x is TrialOutcome => 'caseId' in x);
  damaged.push(...read.filter((x): x is DamagedTrial => 'problem' in x));
  return { outcomes, damaged };
}

/** Regrades every stored transcript with the current graders and rewrites results.json. Runs nothing. */
export async function gradeRun(dir: string, now = new Date()): Promise<{ manifest: RunManifest; results: Results }> {
  const { store, manifest } = await RunStore.open(dir);
  const { outcomes, damaged } = await gradeStored(store, manifest);
  const results = buildResults(manifest, outcomes, damaged, now);
  await store.writeResults(results);
  return { manifest, results };
}

/**
 * The stored results; when they are missing (an interrupted or live run) or unusable, the stored transcripts
 * graded in memory, with why in `regraded`. Writes nothing: `skillprobe grade` stores them.
 */
export async function loadResults(dir: string): Promise<{ manifest: RunManifest; results: Results; regraded?: string }> {
  const { store, manifest } = await RunStore.open(dir);
  const stored = await store.readResults();
  if (stored.ok) return { manifest, results: stored.value };
  const { outcomes, damaged } = await gradeStored(store, manifest);
  return { manifest, results: buildResults(manifest, outcomes, damaged, new Date()), regraded: stored.problem };
}
