import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { judgeAnswers, JUDGE_DIR, readJudgeSteps } from '../grade/judge-answers.js';
import type { JudgeAsk } from '../grade/judge-asks.js';
import { runJudge, runJudgeAsks } from '../grade/judged.js';
import { gradeStored } from '../grade/stored.js';
import type { Case } from '../load/cases.js';
import type { Config } from '../run/config-schema.js';
import type { RunManifest, RunStatus } from '../run/schema.js';
import type { RunStore } from '../run/store.js';
import type { RunPlace, SuiteToRun } from '../runner/execute.js';
import type { StepRequest, StepResult } from './step.js';
import type { JudgeCli } from './judge-check.js';

/**
 * The judge stage: after a run's trials, every judge request its judged trials and the judge's controls call for,
 * asked of the judge's agent CLI (headless, with no tool, in a sealed workspace with none of the skills, its model
 * pinned), each `judge.samples` times. The requests are the cases of a regular run folder under the run's `judge/`,
 * so the judge's trials are resumable, capped by `--max-cost`, reaped on a kill, and kept byte for byte like any
 * other.
 */

/** A request as a case of the judge's run folder: its id, its prompt, nothing expected of skills. */
export const askCase = (a: Pick<JudgeAsk, 'id' | 'prompt'>): Case => ({
  id: a.id,
  prompt: a.prompt,
  expect: { skill: 'none' },
  tags: [],
  exclusive: false,
  source: { file: 'judge', line: 0, at: { id: { line: 0, col: 0 }, prompt: { line: 0, col: 0 } } },
});

/** The config the judge's trials run with: its agent and model, `samples` trials a request, no skills, no judge. */
export function judgeConfig(config: Config, agent: string, model: string, samples: number, maxCostUsd: number | undefined): Config {
  return {
    ...config,
    agent,
    model,
    trials: samples,
    arms: ['ablation'],
    ablation: 'always',
    decision: { ...config.decision, mode: 'fixed' },
    maxCostUsd,
    judge: undefined,
  };
}

/**
 * Asks the judge every request of a completed run that has no stored answer yet; returns how the judge's step ended
 * (`completed` when there was nothing to ask). A step stopped short (Ctrl-C, the cost cap) is resumed by the run's
 * `--resume`, in the same folder: its name is a hash of the requests it holds.
 */
export async function askJudge(
  loaded: SuiteToRun & { judgeCli?: JudgeCli },
  place: RunPlace,
  store: RunStore,
  manifest: RunManifest,
  spentUsd: number,
  runStep: (base: SuiteToRun, place: RunPlace, step: StepRequest) => Promise<StepResult>,
): Promise<RunStatus> {
  const judge = runJudge(manifest);
  const graded = await gradeStored(store, manifest);
  const asks = runJudgeAsks(manifest, graded);
  const answered = judgeAnswers((await readJudgeSteps(store.dir)).steps, new Map(asks.map((a) => [a.id, a.prompt])), judge.config.samples);
  const needed = asks.filter((a) => !answered.has(a.id));
  if (!needed.length) return 'completed';
  const key = createHash('sha256')
    .update(
      needed
        .map((a) => `${a.id}\u0000${a.prompt}`)
        .sort()
        .join('\u0001'),
    )
    .digest('hex')
    .slice(0, 12);
  const cli = loaded.judgeCli ?? { adapter: loaded.adapter, binary: loaded.binary };
  // The cap in force now (a resume may raise it), less what the trials under test spent.
  const cap = loaded.config.maxCostUsd === undefined ? undefined : Math.max(0, loaded.config.maxCostUsd - spentUsd);
  const config = judgeConfig(loaded.config, judge.agent, judge.model, judge.config.samples, cap);
  (place.stderr ?? process.stderr).write(
    `judge: ${judge.agent} ${judge.model} asks ${needed.length} requests (${asks.length - needed.length} answered before), ` +
      `${judge.config.samples} samples each: ${needed.length * judge.config.samples} judge trials\n`,
  );
  const step = await runStep(
    { ...loaded, adapter: cli.adapter, binary: cli.binary },
    { ...place, resume: undefined, runId: undefined, canary: undefined, addTrials: undefined },
    { dir: join(store.dir, JUDGE_DIR, `step-${key}`), skills: loaded.skills, cases: needed.map(askCase), config, noTools: true },
  );
  return step.manifest.status;
}
