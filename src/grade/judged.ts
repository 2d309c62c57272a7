import { adapterFor } from '../agents/registry.js';
import { judgeConfigSchema, type JudgeConfig } from '../run/config-schema.js';
import type { JudgeGrading, RunManifest } from '../run/schema.js';
import type { RunStore } from '../run/store.js';
import { applyJudgements, judgeCalibration } from './judge-apply.js';
import { judgeAnswers, readJudgeSteps } from './judge-answers.js';
import { judgeAsks, type JudgeAsk } from './judge-asks.js';
import { gradeStored, type StoredGrades } from './stored.js';

/** The judge a run uses: its config (defaults filled), its agent and model, and whether that is the model under test. */
export function runJudge(manifest: Pick<RunManifest, 'config' | 'agent' | 'model'>): {
  config: JudgeConfig;
  agent: string;
  model: string;
  self: boolean;
} {
  const config = manifest.config.judge ?? judgeDefaults;
  const agent = config.agent ?? manifest.agent.id;
  const model = config.model ?? adapterFor(agent, 'the config').defaultModel;
  return { config, agent, model, self: agent === manifest.agent.id && model === manifest.model };
}

const judgeDefaults: JudgeConfig = judgeConfigSchema.parse({});

/** Whether any case of the run has items for the judge. */
export const hasJudgedCases = (manifest: Pick<RunManifest, 'cases'>) => manifest.cases.defs.some((c) => c.judge?.length);

/** Every judge request the run's stored trials call for. */
export function runJudgeAsks(manifest: RunManifest, graded: Pick<StoredGrades, 'judgedTexts'>): JudgeAsk[] {
  return judgeAsks(manifest.cases.defs, graded.judgedTexts, runJudge(manifest).config.calibration);
}

/**
 * Grades every stored trial and applies the judge's stored answers (`judge/` in the run folder): the calibration,
 * each judged trial's item verdicts, and, when the judge is calibrated, their part in the pass rule. Runs nothing.
 */
export async function gradeStoredJudged(store: RunStore, manifest: RunManifest): Promise<StoredGrades & { judge?: JudgeGrading }> {
  const graded = await gradeStored(store, manifest);
  if (!hasJudgedCases(manifest)) return graded;
  const judge = runJudge(manifest);
  const asks = runJudgeAsks(manifest, graded);
  const { steps } = await readJudgeSteps(store.dir);
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
