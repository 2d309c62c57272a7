import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { judgeStepOf, type StoredJudgeStep } from '../grade/judge-answers.js';
import { gradeJudged, hasJudgedCases } from '../grade/judged.js';
import type { Results, RunManifest } from '../run/schema.js';
import { ORPHAN_TRANSCRIPT, readManifestSync, type RunStore } from '../run/store.js';
import { buildResults } from '../verdict/results.js';
import { checkRunnable, executeRun, prepareRun, type RunOutcome, type RunPlace, type RunTarget, type SuiteToRun } from './execute.js';
import { judgeNestedRun, withJudgeStep } from './judge-stage.js';
import { judgeOf, readJudgeSteps } from './judge-steps.js';
import type { NestedRun, NestedRunRequest } from './nested-run.js';
import { gradeStored, type StoredGrades } from './stored-grades.js';
import { loadResults } from './stored-results.js';
import { namedAs } from '../util/paths.js';

/**
 * A run, as the stages it goes through, each a named function handing its output to the next:
 *
 *   check the machine → open the run folder → run the trials → ask the judge (only when a case is judged) → grade
 *   → store the results
 *
 * The run folder's trials are read once, after the trials ran (a resumed run's replayed trials count too), and handed
 * on: the judge's requests are built from them and the grades applied to them. The judge's requests are a nested run
 * (`startNestedRun`), itself this same pipeline; its answers come back from its own single read of its trials.
 */

export interface FinishedRun {
  store: RunStore;
  manifest: RunManifest;
  results: Results;
  /** A judge's run: its answers, read with its grades. */
  judgeStep?: StoredJudgeStep;
}

/** Runs one agent's suite to its end and grades it; the machine is checked first unless the caller has (`checked`). */
export async function runPipeline(
  suite: SuiteToRun,
  place: RunPlace,
  hooks: { checked?: boolean; onPrepared?: (target: RunTarget) => void } = {},
): Promise<FinishedRun> {
  if (!hooks.checked) await checkRunnable([suite], place);
  const target = await prepareRun(suite, place);
  try {
    hooks.onPrepared?.(target);
    const ran = await executeRun(suite, place, target);
    try {
      const trials = await readTrials(suite, ran);
      const { manifest, judgeSteps } = await askJudge(suite, place, ran, trials);
      return await storeResults(ran.store, manifest, trials, judgeSteps);
    } finally {
      await ran.guard.release();
    }
  } finally {
    target.lock.release();
  }
}

/** The run's stored trials, each read once and graded; a judge's run also reads them as its answers. */
function readTrials(suite: SuiteToRun, ran: RunOutcome): Promise<StoredGrades> {
  return gradeStored(ran.store, ran.manifest, { judgeReads: suite.role === 'judge' });
}

/**
 * The judge stage: asks the judge only once the trials are all in (its requests are theirs). Stopped short, the run is
 * too, and its --resume asks the rest. Returns the run's manifest (its status the judge's when it stopped short) and
 * every judge step's answers (empty when no case is judged).
 */
async function askJudge(
  suite: SuiteToRun,
  place: RunPlace,
  ran: RunOutcome,
  trials: StoredGrades,
): Promise<{ manifest: RunManifest; judgeSteps: StoredJudgeStep[] }> {
  const { store, manifest } = ran;
  if (!hasJudgedCases(manifest)) return { manifest, judgeSteps: [] };
  const { steps } = await readJudgeSteps(store.dir);
  if (manifest.status !== 'completed') return { manifest, judgeSteps: steps };
  const judge = judgeOf(manifest);
  const spent = trials.outcomes.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
  const ask = judgeNestedRun(suite, place, { dir: store.dir, manifest }, trials, steps, judge, spent);
  if (!ask) return { manifest, judgeSteps: steps };
  const cap = suite.config.maxCostUsd;
  // The trials under test spent the whole cap: no judge request is sent, and the run stops capped (a resume with a
  // higher cap asks them).
  if (cap !== undefined && spent >= cap) return { manifest: await stopAs(store, manifest, 'cost_capped'), judgeSteps: steps };
  (place.stderr ?? process.stderr).write(
    `judge: ${judge.agent} ${judge.model} asks ${ask.needed} requests (${ask.asks - ask.needed} answered before), ` +
      `${judge.config.samples} samples each: ${ask.needed * judge.config.samples} judge trials\n`,
  );
  const step = await startNestedRun(ask.suite, ask.place, ask.request);
  const judgeSteps = step.judgeStep ? withJudgeStep(steps, step.judgeStep) : steps;
  if (step.manifest.status === 'completed') return { manifest, judgeSteps };
  return { manifest: await stopAs(store, manifest, step.manifest.status), judgeSteps };
}

/** The run's manifest with the status the judge stopped it at, stored. */
async function stopAs(store: RunStore, manifest: RunManifest, status: RunManifest['status']): Promise<RunManifest> {
  const stopped = { ...manifest, status };
  await store.writeManifest(stopped);
  return stopped;
}

/** Grades the trials read (the judge's answers applied), and stores the results. */
async function storeResults(
  store: RunStore,
  manifest: RunManifest,
  trials: StoredGrades,
  judgeSteps: StoredJudgeStep[],
): Promise<FinishedRun> {
  const { outcomes, damaged, judge, judgeReads } = gradeJudged(manifest, trials, judgeSteps, judgeOf(manifest));
  const results = buildResults(manifest, outcomes, damaged, new Date(), judge);
  await store.writeResults(results);
  const judgeStep = judgeReads && judgeStepOf(store.dir, manifest, judgeReads.reads, judgeReads.listed, ORPHAN_TRANSCRIPT);
  return { store, manifest, results, ...(judgeStep ? { judgeStep } : {}) };
}

/**
 * Starts a nested run (see runner/nested-run.ts), or reads it back: a finished nested run is never run again (a
 * resumed tune replays its finished ones and gets the same answers), an interrupted one is resumed, and a folder a kill
 * left without its run.json (it holds no trial yet) is made anew. Only a completed run's results are read back: an
 * interrupted run's results.json is stale once a resume killed with -9 has stored trials past it, and the resume
 * regrades them all anyway.
 */
export async function startNestedRun(parent: SuiteToRun, place: RunPlace, request: NestedRunRequest): Promise<NestedRun> {
  const manifestFile = join(request.dir, 'run.json');
  const stored = existsSync(manifestFile) ? readManifestSync(request.dir) : undefined;
  if (stored?.ok && stored.value.status === 'completed' && existsSync(join(request.dir, 'results.json')))
    return nestedRun(request.dir, await loadResults(request.dir));
  if (existsSync(request.dir) && !existsSync(manifestFile)) await rm(request.dir, { recursive: true, force: true });
  const resume = existsSync(manifestFile) ? request.dir : undefined;
  const suite: SuiteToRun = {
    ...parent,
    config: { ...request.config, transcriptsDir: namedAs(parent.config.transcriptsDir, place.cwd, dirname(request.dir)) },
    skills: request.skills,
    // A judge or a proposer answers from its request alone: no skill of the user's is offered to it.
    neighbours: request.role === 'trial' ? parent.neighbours : undefined,
    suite: { ...parent.suite, cases: request.cases },
    role: request.role,
  };
  const finished = await runPipeline(suite, { ...place, resume, runId: basename(request.dir) }, { checked: true });
  return nestedRun(request.dir, finished);
}

function nestedRun(dir: string, run: Pick<FinishedRun, 'manifest' | 'results' | 'judgeStep'>): NestedRun {
  return {
    dir,
    manifest: run.manifest,
    results: run.results,
    trials: run.results.outcomes.length,
    ...(run.results.run.costUsd !== undefined ? { costUsd: run.results.run.costUsd } : {}),
    ...(run.judgeStep ? { judgeStep: run.judgeStep } : {}),
  };
}
