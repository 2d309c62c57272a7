import { readJudgeReply, type JudgeSample } from '../checks/judge-prompt.js';
import type { DamagedTrial, RunManifest, TrialMeta, TrialRef } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import { trialStatus, type IsolationContext } from './status.js';

/**
 * The judge's answers. Every judge request is a case of a run folder of the judge's own (a judge step: its prompts
 * are the cases' prompts, its raw replies the transcripts), so a regrade reads the answers back instead of asking
 * again. Pure: the step's trials come in read (`runner/judge-steps.ts` reads them).
 */

export interface StoredJudgeStep {
  dir: string;
  manifest: RunManifest;
  /** Samples per request id, in trial order, with the prompt they answered. */
  answers: Map<string, { prompt: string; samples: JudgeSample[] }>;
  costUsd?: number;
  /** The step's trial files that could not be read (a damaged one's sample is `error`), paths inside the step. */
  damaged: DamagedTrial[];
}

/** The assistant's own text in a trial, in order: never tool results or injected skill bodies, which echo SKILL.md. */
export const assistantText = (t: Transcript) =>
  t.events.flatMap((e) => (e.kind === 'text' && e.source === 'assistant' ? [e.text] : [])).join('\n');

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

/** One judge trial as read: its sample (undefined: stopped, asked again), its cost, and why it could not be read. */
export interface JudgeTrialRead {
  ref: TrialRef;
  sample: JudgeSample | undefined;
  costUsd: number | undefined;
  damaged?: DamagedTrial;
}

/**
 * A judge step's answers from its trials as read: each request's samples in trial order, the step's cost, and its
 * damaged files (`listed`: those its folder listing found; a trial killed before it finished answered nothing, so its
 * leftover transcript loses no answer and is not named).
 */
export function judgeStepOf(
  dir: string,
  manifest: RunManifest,
  reads: readonly JudgeTrialRead[],
  listed: readonly DamagedTrial[],
  orphan: string,
): StoredJudgeStep {
  const prompts = new Map(manifest.cases.defs.map((c) => [c.id, c.prompt ?? '']));
  const answers = new Map<string, { prompt: string; samples: JudgeSample[] }>();
  for (const r of [...reads].sort((a, b) => a.ref.n - b.ref.n)) {
    if (r.sample === undefined || !prompts.has(r.ref.caseId)) continue;
    const entry = answers.get(r.ref.caseId) ?? { prompt: prompts.get(r.ref.caseId)!, samples: [] };
    entry.samples.push(r.sample);
    answers.set(r.ref.caseId, entry);
  }
  const costs = reads.flatMap((r) => (r.costUsd !== undefined ? [r.costUsd] : []));
  return {
    dir,
    manifest,
    answers,
    ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
    damaged: [...listed.filter((d) => d.problem !== orphan), ...reads.flatMap((r) => (r.damaged ? [r.damaged] : []))],
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
