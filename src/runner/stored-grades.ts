import pMap from 'p-map';
import { adapterFor } from '../agents/registry.js';
import {
  metaPath,
  transcriptPath,
  type DamagedTrial,
  type RunManifest,
  type TrialMeta,
  type TrialOutcome,
  type TrialRef,
} from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import type { RunStore } from '../run/store.js';
import { gradeTrial, trialCostUsd, type GradeOptions } from '../grade/outcome.js';
import type { JudgedText } from '../grade/judge-asks.js';
import { assistantText, judgeSample, type JudgeTrialRead } from '../grade/judge-answers.js';

export function gradeOptions(manifest: RunManifest): GradeOptions {
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  return {
    family: manifest.family,
    neighbours: (manifest.neighbours ?? []).map((n) => ({ dir: n.dir, name: n.name })),
    skillsFolder: adapter.skillsFolder,
    readCountsAsFiring: manifest.config.grading.readTriggers === 'fire',
    budgetStopsFail: manifest.config.grading.budgetStops === 'fail',
    conventions: adapter.grading,
  };
}

/**
 * A stored trial's canonical transcript, parsed by the agent that wrote it, or why it cannot be: unreadable, a read
 * that fails half-way (the file removed meanwhile, an I/O error), or a meta.json naming another agent than run.json
 * (an edited run.json), whose trials are never read with the other CLI's parser.
 */
export async function readStoredTranscript(
  store: RunStore,
  manifest: RunManifest,
  ref: TrialRef,
): Promise<{ ok: true; transcript: Transcript; meta: TrialMeta } | { ok: false; damaged: DamagedTrial }> {
  const t = await store.readTrial(ref);
  if (!t.ok) return t;
  if (t.meta.agent !== undefined && t.meta.agent !== manifest.agent.id) {
    return {
      ok: false,
      damaged: {
        path: metaPath(ref),
        problem: `written by the ${t.meta.agent} agent, but run.json names ${manifest.agent.id}: not read with another CLI's parser`,
      },
    };
  }
  try {
    return { ok: true, transcript: adapterFor(manifest.agent.id, 'run.json').parse(t.lines, t.meta), meta: t.meta };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined) throw e;
    return { ok: false, damaged: { path: transcriptPath(ref), problem: `cannot be read (${code})` } };
  }
}

export interface StoredGrades {
  outcomes: TrialOutcome[];
  /** Trials that could not be read or belong to no case of the run: listed, left out. */
  damaged: DamagedTrial[];
  /** What the assistant wrote in each scored trial of a case with `expect.judge` items: what the judge is shown. */
  judgedTexts: JudgedText[];
  /**
   * With `judgeReads` (a judge step): each trial read as a judge's answer, from the same single read, and the damaged
   * files the folder listing found.
   */
  judgeReads?: { reads: JudgeTrialRead[]; listed: DamagedTrial[] };
}

/**
 * Grades every intact stored transcript with the current graders, in memory, each read once; with `judgeReads` (a
 * judge step) also reads each as a judge's answer. Runs nothing, writes nothing.
 */
export async function gradeStored(store: RunStore, manifest: RunManifest, want: { judgeReads?: boolean } = {}): Promise<StoredGrades> {
  const opts = gradeOptions(manifest);
  const byId = new Map(manifest.cases.defs.map((c) => [c.id, c]));
  const listed = await store.listTrials();
  const damaged = [...listed.damaged];
  const known = listed.trials.filter((r) => byId.has(r.caseId));
  for (const r of listed.trials.filter((t) => !byId.has(t.caseId))) {
    damaged.push({ path: transcriptPath(r), problem: `a trial of case "${r.caseId}", which run.json does not list` });
  }
  // Bounded, so thousands of trials never hold thousands of open files.
  const judgedTexts: JudgedText[] = [];
  const judgeReads: JudgeTrialRead[] = [];
  const read = await pMap(
    known,
    async (ref: TrialRef, i: number) => {
      const t = await readStoredTranscript(store, manifest, ref);
      // In listing order, whatever order the reads end in: the step's cost is summed in that order.
      if (want.judgeReads) judgeReads[i] = judgeRead(ref, t, opts.conventions.isolationProblem);
      if (!t.ok) return t.damaged;
      const c = byId.get(ref.caseId)!;
      const outcome = gradeTrial(t.transcript, t.meta, c, ref.arm, ref.n, opts);
      if (c.judge?.length && outcome.passed !== null) judgedTexts.push({ ref, text: assistantText(t.transcript) });
      return outcome;
    },
    { concurrency: 32 },
  );
  const outcomes = read.filter((x): x is TrialOutcome => 'caseId' in x);
  damaged.push(...read.filter((x): x is DamagedTrial => 'problem' in x));
  return { outcomes, damaged, judgedTexts, ...(want.judgeReads ? { judgeReads: { reads: judgeReads, listed: listed.damaged } } : {}) };
}

function judgeRead(
  ref: TrialRef,
  t: Awaited<ReturnType<typeof readStoredTranscript>>,
  isolationProblem: GradeOptions['conventions']['isolationProblem'],
): JudgeTrialRead {
  if (!t.ok) return { ref, sample: 'error', costUsd: undefined, damaged: t.damaged };
  return {
    ref,
    sample: judgeSample(t.transcript, t.meta, isolationProblem),
    costUsd: trialCostUsd(t.transcript),
  };
}
