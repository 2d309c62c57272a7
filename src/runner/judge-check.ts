import { adapterFor } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import type { Case } from '../load/cases.js';
import type { LoadedConfig } from '../load/config.js';
import type { InputProblem } from '../util/input-error.js';

/** The judge's CLI, when it is another agent than the run's. */
export interface JudgeCli {
  adapter: AgentAdapter;
  binary: string;
}

/**
 * What is wrong with a suite's judge before anything is spent: a judge agent that does not exist, and a judge that
 * is the model under test unless `judge.allowSelf` says so.
 */
export function judgeProblems(
  loaded: LoadedConfig,
  runAgent: AgentAdapter,
  model: string | undefined,
  cases: readonly Case[],
): InputProblem[] {
  const judged = cases.filter((c) => c.expect.judge?.length);
  const config = loaded.config.judge;
  if (!judged.length) return [];
  const at = (key: string) => loaded.where(['judge', key]) ?? loaded.where(['judge']) ?? { file: 'the config' };
  let agent: AgentAdapter;
  try {
    agent = adapterFor(config?.agent ?? runAgent.id, 'judge.agent');
  } catch {
    return [
      {
        ...at('agent'),
        what: `judge.agent "${config?.agent}" is not an agent`,
        todo: 'name one of the agents skillprobe runs (`skillprobe plan` lists them)',
      },
    ];
  }
  const judgeModel = config?.model ?? agent.defaultModel;
  const underTest = model ?? runAgent.defaultModel;
  if (agent.id === runAgent.id && judgeModel === underTest && !config?.allowSelf) {
    return [
      {
        ...(config?.model ? at('model') : (loaded.where(['judge']) ?? { file: judged[0]!.source.file, line: judged[0]!.source.line })),
        what: `the judge would be ${judgeModel}, the model under test: a model grading its own answers (${judged.length} case(s) have expect.judge)`,
        todo: 'name another model in judge.model (or another agent in judge.agent), or set judge.allowSelf: true to allow it',
      },
    ];
  }
  return [];
}
