import { assistantText } from '../grade/judge-answers.js';
import { readStoredTranscript } from '../runner/stored-grades.js';
import type { Results } from '../run/schema.js';
import { RunStore } from '../run/store.js';
import type { CaseRole } from '../tune/splits.js';
import type { CaseTally } from '../tune/score.js';
import type { NestedRun as StepResult } from '../runner/nested-run.js';

/** Each case's passes and scored trials on the skill arm, with its design's stopping-adjusted estimate where it has one. */
export function tallies(results: Results, roleOf: (caseId: string) => CaseRole): CaseTally[] {
  return results.verdicts.map((v) => ({
    caseId: v.caseId,
    role: roleOf(v.caseId),
    passes: v.passes,
    trials: v.scored,
    ...(v.estimate ? { estimate: v.estimate.rate } : {}),
  }));
}

/** What the proposer answered: the assistant's text of the step's one trial, or undefined when it has none. */
export async function proposerAnswer(step: StepResult): Promise<string | undefined> {
  const outcome = step.results.outcomes.find((o) => o.status === 'ok');
  if (!outcome) return undefined;
  const { store } = await RunStore.open(step.dir);
  const read = await readStoredTranscript(store, step.manifest, outcome);
  if (!read.ok) return undefined;
  return assistantText(read.transcript);
}
