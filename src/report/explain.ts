import type { JudgeSample } from '../checks/judge-prompt.js';
import { BUDGET_STOPS, NONE, type GradableCase, type TrialOutcome } from '../run/schema.js';
import { exclusionText } from './wording.js';

/** Why a scored trial failed, in a few words: what a progress line or a report cell says. */
function failure(o: TrialOutcome, c: Pick<GradableCase, 'expect' | 'not' | 'exclusive'>): string {
  if (BUDGET_STOPS.has(o.status)) return `${o.status.replace('_', ' ')}${o.statusDetail ? ` (${o.statusDetail})` : ''}`;
  if (o.arm === 'skill' && c.expect === NONE) return `false trigger: ${c.not ?? o.firedColumn} fired`;
  if (o.arm === 'skill' && o.fired === 'self') return 'went around the skill: acted by itself before any skill fired';
  if (o.arm === 'skill' && o.fired === 'tool') return `used the tool instead: ${o.firedColumn} before any skill fired`;
  if (o.arm === 'skill' && o.fired === 'none') return o.flags.clarifying ? 'did not fire (asked a question)' : 'did not fire';
  if (o.arm === 'skill' && o.fired === 'sibling') return `sibling fired: ${o.firedColumn}`;
  if (o.arm === 'skill' && o.fired === 'neighbour')
    return `went to a neighbour: ${[...new Set(o.firings.flatMap((f) => (f.neighbour !== undefined ? [f.neighbour] : [])))].join(', ')}`;
  if (o.arm === 'skill' && o.fired === 'other')
    return `called a skill outside the family: ${o.firings.find((f) => f.skill === undefined && f.neighbour === undefined)?.requested ?? '?'}`;
  const check = o.plan?.checks.find((x) => !x.pass);
  if (check) return `plan: ${check.check}${check.detail ? `: ${check.detail}` : ''}`;
  // An uncalibrated judge's no failed nothing: its verdicts are only shown.
  const judgedNo = o.judge?.scored ? o.judge.items.find((i) => i.verdict === 'no') : undefined;
  if (judgedNo) return `the judge said no to "${judgedNo.item}"`;
  if (c.exclusive && o.firedColumn !== c.expect) {
    const others = [...new Set(o.firings.filter((f) => f.skill !== undefined && f.skill !== c.expect).map((f) => f.skill!))];
    return `another family member fired too (${others.join(', ')})`;
  }
  return 'failed';
}

/** One line per trial: pass, fail and why, or not scored and why. Pure. */
export function explainOutcome(o: TrialOutcome, c: Pick<GradableCase, 'expect' | 'not' | 'exclusive'>): string {
  // The ablation arm is expected to fail its plan checks: say which arm, so it never reads like a regression.
  const arm = o.arm === 'ablation' ? ' without the skill' : '';
  if (o.passed === true) return o.readOnly ? 'pass (read-only)' : `pass${arm}`;
  if (o.passed === false) return `fail${arm}: ${failure(o, c)}`;
  return `not scored: ${o.excludedBecause ? exclusionText(o.excludedBecause) : o.status}${o.statusDetail ? ` (${o.statusDetail})` : ''}`;
}

/** One line per judge trial: its answer, or why it gave none. Pure. */
export function explainJudgeSample(sample: JudgeSample | undefined): string {
  if (sample === undefined) return 'judge stopped: asked again on resume';
  if (sample === 'error') return 'judge gave no verdict (an error, no YES or NO on its last line, or a tool call)';
  return `judge answered ${sample.toUpperCase()}`;
}
