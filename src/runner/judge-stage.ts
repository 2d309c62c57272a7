import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { judgeAnswers, type StoredJudgeStep } from '../grade/judge-answers.js';
import type { JudgeAsk } from '../grade/judge-asks.js';
import { runJudgeAsks, type JudgeSettings } from '../grade/judged.js';
import type { Case } from '../load/cases.js';
import type { Config } from '../run/config-schema.js';
import type { RunManifest } from '../run/schema.js';
import type { RunPlace, SuiteToRun } from './execute.js';
import { JUDGE_DIR } from './judge-steps.js';
import type { NestedRunRequest } from './nested-run.js';
import type { StoredGrades } from './stored-grades.js';

/**
 * The judge stage: after a run's trials, every judge request its judged trials and the judge's controls call for,
 * asked of the judge's agent CLI (headless, in the judge role: no tool; in a sealed workspace with none of the skills,
 * its model pinned), each `judge.samples` times. The requests are the cases of a nested run under the run's `judge/`,
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

/**
 * The config the judge's trials run with: its agent and model, `samples` trials a request, no judge. Its one arm is
 * `ablation` (none of the skills installed), as every judge step has stored since judging began.
 */
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

/** The judge's nested run for the requests a completed run still needs answered; undefined when it needs none. */
export interface JudgeNestedRun {
  suite: SuiteToRun;
  place: RunPlace;
  request: NestedRunRequest;
  /** The requests not answered yet, and how many the run calls for in all. */
  needed: number;
  asks: number;
}

/**
 * What the judge must still be asked for a completed run: the requests its graded trials call for without a stored
 * answer in `steps`, as the step that holds every request no finished step answered. Its folder's name is a hash of
 * those requests, so a step stopped short (Ctrl-C, the cost cap) is resumed by the run's `--resume` in the same folder
 * with the same requests, those it answered before the stop replayed; a finished step is never run again, and what it
 * left unanswered (a damaged answer) is asked in a step of its own. `spentUsd`: what the trials under test spent.
 */
export function judgeNestedRun(
  suite: SuiteToRun,
  place: RunPlace,
  run: { dir: string; manifest: RunManifest },
  graded: Pick<StoredGrades, 'judgedTexts'>,
  steps: readonly StoredJudgeStep[],
  judge: JudgeSettings,
  spentUsd: number,
): JudgeNestedRun | undefined {
  const asks = runJudgeAsks(run.manifest, graded);
  const prompts = new Map(asks.map((a) => [a.id, a.prompt]));
  const unanswered = (by: readonly StoredJudgeStep[]) => {
    const answered = judgeAnswers(by, prompts, judge.config.samples);
    return asks.filter((a) => !answered.has(a.id));
  };
  const needed = unanswered(steps);
  if (!needed.length) return undefined;
  // A stopped step's answers do not shrink its own requests: they name its folder, and it resumes with them all.
  const requests = unanswered(steps.filter((s) => s.manifest.status === 'completed'));
  const key = createHash('sha256')
    .update(
      requests
        .map((a) => `${a.id}\u0000${a.prompt}`)
        .sort()
        .join('\u0001'),
    )
    .digest('hex')
    .slice(0, 12);
  const cli = suite.judgeCli ?? { adapter: suite.adapter, binary: suite.binary };
  // The cap in force now (a resume may raise it), less what the trials under test spent (the caller starts no step
  // once they spent it all).
  const cap = suite.config.maxCostUsd === undefined ? undefined : suite.config.maxCostUsd - spentUsd;
  return {
    suite: { ...suite, adapter: cli.adapter, binary: cli.binary },
    place: { ...place, resume: undefined, runId: undefined, canary: undefined, canaryMaxTrials: undefined, addTrials: undefined },
    request: {
      dir: join(run.dir, JUDGE_DIR, `step-${key}`),
      skills: suite.skills,
      cases: requests.map(askCase),
      config: judgeConfig(suite.config, judge.agent, judge.model, judge.config.samples, cap),
      role: 'judge',
    },
    needed: needed.length,
    asks: asks.length,
  };
}

/** The judge's steps after a step ran: `step` in place of what was read of its folder before, oldest first. */
export function withJudgeStep(steps: readonly StoredJudgeStep[], step: StoredJudgeStep): StoredJudgeStep[] {
  const name = (s: StoredJudgeStep) => basename(s.dir);
  return [...steps.filter((s) => name(s) !== name(step)), step].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}
