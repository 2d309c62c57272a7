import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pMap from 'p-map';
import { readJudgeReply, type JudgeSample } from '../checks/judge-prompt.js';
import type { DamagedTrial, RunManifest, TrialMeta, TrialRef } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import { trialStatus, type IsolationContext } from './status.js';
import { ORPHAN_TRANSCRIPT, RunFolderError, RunStore } from '../run/store.js';
import { assistantText, gradeOptions, readStoredTranscript } from './stored.js';

/**
 * The judge's stored answers. Every judge request is a case of a run folder of the judge's own, under the run's
 * `judge/` folder (one per judge step: its prompts are the cases' prompts, its raw replies the transcripts), so a
 * regrade reads the answers back instead of asking again, and `report` can show each one.
 */

/** The folder inside a run folder that holds its judge steps. */
export const JUDGE_DIR = 'judge';

export interface StoredJudgeStep {
  dir: string;
  manifest: RunManifest;
  /** Samples per request id, in trial order, with the prompt they answered. */
  answers: Map<string, { prompt: string; samples: JudgeSample[] }>;
  costUsd?: number;
  /** The step's trial files that could not be read (a damaged one's sample is `error`), paths inside the step. */
  damaged: DamagedTrial[];
}

/** What a run folder's `judge/` holds: its readable steps, and every file there that should hold answers and cannot be read. */
export interface StoredJudgeSteps {
  steps: StoredJudgeStep[];
  /** Paths from the run folder: a step that cannot be opened, or a trial file of a step that cannot be read. */
  unreadable: DamagedTrial[];
}

/**
 * One sample from a judge trial: its reply read when the trial ended normally; `error` when the CLI failed or the
 * provider refused (an API error is never a verdict), or when the judge called a tool (it is offered none, so its
 * answer would rest on more than the item and the text); undefined for a trial the user stopped (asked again on
 * resume).
 */
export function judgeSample(
  t: Transcript,
  meta: TrialMeta,
  isolationProblem: IsolationContext['isolationProblem'],
): JudgeSample | undefined {
  const { status } = trialStatus(t, meta, { arm: 'ablation', family: [], isolationProblem });
  if (status === 'killed') return undefined;
  if (status !== 'ok' || t.events.some((e) => e.kind === 'tool_call')) return 'error';
  return readJudgeReply(assistantText(t));
}

/**
 * Every judge step stored in a run folder, oldest first; a step that cannot be read is left out of `steps` and named in
 * `unreadable`. A file where the `judge` folder belongs is refused: nothing of the judge could be kept there.
 */
export async function readJudgeSteps(runDir: string): Promise<StoredJudgeSteps> {
  const root = join(runDir, JUDGE_DIR);
  if (!existsSync(root)) return { steps: [], unreadable: [] };
  if (!(await stat(root)).isDirectory())
    throw new RunFolderError(
      root,
      "not a folder: the run's judge answers are kept in a folder of that name",
      `move the file away, then \`skillprobe run --resume ${runDir}\` asks the judge again`,
    );
  const steps: StoredJudgeStep[] = [];
  const unreadable: DamagedTrial[] = [];
  for (const name of (await readdir(root)).sort()) {
    const dir = join(root, name);
    const step = await readJudgeStep(dir);
    if (step === undefined) continue;
    if ('problem' in step) unreadable.push({ path: join(JUDGE_DIR, name, step.path), problem: step.problem });
    else {
      steps.push(step);
      unreadable.push(...step.damaged.map((d) => ({ path: join(JUDGE_DIR, name, d.path), problem: d.problem })));
    }
  }
  return { steps, unreadable };
}

/**
 * One judge step's answers (a run folder of judge requests), or why it holds no readable run (a path inside it);
 * undefined where no answer was ever kept: no folder (a stray file beside the steps), or an empty one.
 */
export async function readJudgeStep(dir: string): Promise<StoredJudgeStep | DamagedTrial | undefined> {
  const folder = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!folder) return undefined;
  if (!existsSync(join(dir, 'run.json')))
    // An empty folder is a step that died before it began (it is made again); anything in it is answers now unreadable.
    return (await readdir(dir)).length ? { path: 'run.json', problem: 'missing: the judge step holds no readable run' } : undefined;
  let opened: Awaited<ReturnType<typeof RunStore.open>>;
  try {
    opened = await RunStore.open(dir);
  } catch (e) {
    if (e instanceof RunFolderError) return { path: 'run.json', problem: e.what };
    throw e;
  }
  const { store, manifest } = opened;
  const { isolationProblem } = gradeOptions(manifest).conventions;
  const prompts = new Map(manifest.cases.defs.map((c) => [c.id, c.prompt ?? '']));
  const { trials, damaged } = await store.listTrials();
  const read = await pMap(
    trials.filter((r) => prompts.has(r.caseId)),
    async (ref: TrialRef) => {
      const t = await readStoredTranscript(store, manifest, ref);
      if (!t.ok) return { ref, sample: 'error' as const, costUsd: undefined, damaged: t.damaged };
      const result = t.transcript.events.find((e) => e.kind === 'result');
      return {
        ref,
        sample: judgeSample(t.transcript, t.meta, isolationProblem),
        costUsd: result?.kind === 'result' ? result.costUsd : undefined,
      };
    },
    { concurrency: 16 },
  );
  const answers = new Map<string, { prompt: string; samples: JudgeSample[] }>();
  for (const r of read.sort((a, b) => a.ref.n - b.ref.n)) {
    if (r.sample === undefined) continue;
    const entry = answers.get(r.ref.caseId) ?? { prompt: prompts.get(r.ref.caseId)!, samples: [] };
    entry.samples.push(r.sample);
    answers.set(r.ref.caseId, entry);
  }
  const costs = read.flatMap((r) => (r.costUsd !== undefined ? [r.costUsd] : []));
  return {
    dir,
    manifest,
    answers,
    ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
    // A trial killed before it finished answered nothing: its leftover transcript loses no answer.
    damaged: [
      ...damaged.filter((d) => d.problem !== ORPHAN_TRANSCRIPT),
      ...read.flatMap((r) => ('damaged' in r && r.damaged ? [r.damaged] : [])),
    ],
  };
}

/**
 * The samples of each request, from the steps that answered it with the same prompt (a request whose prompt changed
 * is not the same question); only requests with all `samples` answered count as answered.
 */
export function judgeAnswers(
  steps: readonly StoredJudgeStep[],
  prompts: ReadonlyMap<string, string>,
  samples: number,
): Map<string, JudgeSample[]> {
  const out = new Map<string, JudgeSample[]>();
  for (const step of steps) {
    for (const [id, a] of step.answers) {
      if (prompts.get(id) !== a.prompt || out.has(id)) continue;
      if (a.samples.length >= samples) out.set(id, a.samples.slice(0, samples));
    }
  }
  return out;
}
