import pMap from 'p-map';
import { adapterFor } from '../agents/registry.js';
import { metaPath, transcriptPath, type DamagedTrial, type RunManifest, type TrialOutcome, type TrialRef } from '../run/schema.js';
import type { RunStore } from '../run/store.js';
import { gradeTrial, type GradeOptions } from './outcome.js';

export function gradeOptions(manifest: RunManifest): GradeOptions {
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  return {
    family: manifest.family,
    skillsFolder: adapter.skillsFolder,
    readCountsAsFiring: manifest.config.grading.readTriggers === 'fire',
    budgetStopsFail: manifest.config.grading.budgetStops === 'fail',
    conventions: adapter.grading,
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
    damaged.push({ path: transcriptPath(r), problem: `a trial of case "${r.caseId}", which run.json does not list` });
  }
  // Bounded, so thousands of trials never hold thousands of open files.
  const read = await pMap(known, async (ref: TrialRef) => {
    const t = await store.readTrial(ref);
    if (!t.ok) return t.damaged;
    // run.json edited to name another agent: its trials are never read with that CLI's parser.
    if (t.meta.agent !== undefined && t.meta.agent !== manifest.agent.id) {
      return { path: metaPath(ref), problem: `written by the ${t.meta.agent} agent, but run.json names ${manifest.agent.id}: not read with another CLI's parser` };
    }
    return gradeTrial(adapter.parse(t.lines, t.meta), t.meta, byId.get(ref.caseId)!, ref.arm, ref.n, opts);
  }, { concurrency: 32 });
  const outcomes = read.filter((x): x is TrialOutcome => 'caseId' in x);
  damaged.push(...read.filter((x): x is DamagedTrial => 'problem' in x));
  return { outcomes, damaged };
}
