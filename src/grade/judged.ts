import { judgeConfigSchema, type JudgeConfig } from '../run/config-schema.js';
import type { DamagedTrial, JudgeGrading, RunManifest, TrialOutcome } from '../run/schema.js';
import { applyJudgements, judgeCalibration } from './judge-apply.js';
import { judgeAnswers, type StoredJudgeStep } from './judge-answers.js';
import { judgeAsks, type JudgeAsk, type JudgedText } from './judge-asks.js';

/** The judge a run uses: its config (defaults filled), its agent and model, and whether that is the model under test. */
export interface JudgeSettings {
  config: JudgeConfig;
  agent: string;
  model: string;
  self: boolean;
}

/** The run's judge settings; `defaultModel` names an agent's default model (the agent registry's, passed in). */
export function judgeSettings(
  manifest: Pick<RunManifest, 'config' | 'agent' | 'model'>,
  defaultModel: (agent: string) => string,
): JudgeSettings {
  const config = manifest.config.judge ?? judgeDefaults;
  const agent = config.agent ?? manifest.agent.id;
  const model = config.model ?? defaultModel(agent);
  return { config, agent, model, self: agent === manifest.agent.id && model === manifest.model };
}

const judgeDefaults: JudgeConfig = judgeConfigSchema.parse({});

/** Whether any case of the run has items for the judge. */
export const hasJudgedCases = (manifest: Pick<RunManifest, 'cases'>) => manifest.cases.defs.some((c) => c.judge?.length);

/** Every judge request the run's stored trials call for. */
export function runJudgeAsks(manifest: Pick<RunManifest, 'cases' | 'config'>, graded: { judgedTexts: readonly JudgedText[] }): JudgeAsk[] {
  return judgeAsks(manifest.cases.defs, graded.judgedTexts, (manifest.config.judge ?? judgeDefaults).calibration);
}

/** A run's trials graded, as `runner/stored-grades.ts` reads them. */
export interface TrialGrades {
  outcomes: TrialOutcome[];
  damaged: DamagedTrial[];
  judgedTexts: JudgedText[];
}

/**
 * The judge's answers (its steps, oldest first) applied to a run's graded trials: the calibration, each judged trial's
 * item verdicts, and, when the judge is calibrated, their part in the pass rule. Pure.
 */
export function gradeJudged<G extends TrialGrades>(
  manifest: RunManifest,
  graded: G,
  steps: readonly StoredJudgeStep[],
  judge: JudgeSettings,
): G & { judge?: JudgeGrading } {
  if (!hasJudgedCases(manifest)) return graded;
  const asks = runJudgeAsks(manifest, graded);
  const answers = judgeAnswers(steps, new Map(asks.map((a) => [a.id, a.prompt])), judge.config.samples);
  const calibration = judgeCalibration(asks, answers);
  const costs = steps.flatMap((s) => (s.costUsd !== undefined ? [s.costUsd] : []));
  return {
    ...graded,
    outcomes: applyJudgements(graded.outcomes, manifest.cases.defs, answers, calibration.calibrated),
    judge: {
      agent: judge.agent,
      ...(steps.at(-1)?.manifest.agent.cliVersion ? { cliVersion: steps.at(-1)!.manifest.agent.cliVersion } : {}),
      model: steps.at(-1)?.manifest.model ?? judge.model,
      self: judge.self,
      samples: judge.config.samples,
      maxFlipRate: judge.config.maxFlipRate,
      calibration: { asked: calibration.asked, missed: calibration.missed },
      calibrated: calibration.calibrated,
      requests: asks.length,
      unanswered: asks.filter((a) => !answers.has(a.id)).length,
      ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
    },
  };
}
