import { itemVerdict, type ItemVerdict } from '../checks/judge.js';
import type { JudgeSample } from '../checks/judge-prompt.js';
import { JUDGE_ERROR, type CalibrationMiss, type GradableCase, type TrialOutcome } from '../run/schema.js';
import { trialAskId, type JudgeAsk } from './judge-asks.js';

/**
 * The judge's answers applied to graded trials. Pure: outcomes, the requests and the samples answered in.
 *
 * A judge earns trust first: every control and example must get its right answer (a miss, or one still unanswered,
 * leaves the judge uncalibrated, and then its verdicts are shown and never scored). A calibrated judge's verdicts
 * join the pass rule: a trial passes only if every item is judged yes; an item without a verdict (a tie, unreadable
 * replies, a request never answered) leaves the trial out as `judge_error`, never a pass or a fail.
 */

export interface JudgeCalibration {
  asked: number;
  missed: CalibrationMiss[];
  /** Controls not answered yet (a judge step stopped short). */
  unanswered: number;
  calibrated: boolean;
}

/** How many characters of a control's answer a miss shows. */
const SHOWN = 160;
const cut = (s: string) => (s.length > SHOWN ? `${s.slice(0, SHOWN - 1)}…` : s);

export function judgeCalibration(asks: readonly JudgeAsk[], answers: ReadonlyMap<string, readonly JudgeSample[]>): JudgeCalibration {
  const verdictOf = (id: string): ItemVerdict | undefined => {
    const samples = answers.get(id);
    return samples ? itemVerdict(samples) : undefined;
  };
  const missed: CalibrationMiss[] = [];
  let [asked, unanswered] = [0, 0];
  for (const a of asks) {
    if (a.purpose.kind !== 'control') continue;
    asked++;
    const p = a.purpose;
    const got = verdictOf(a.id);
    // A consistency control keeps the verdict of the request it rewords; when that one has none, neither can it.
    const expected = p.expected ?? verdictOf(p.against!);
    if (got === undefined || expected === undefined) {
      unanswered++;
      continue;
    }
    if (expected === 'judge_error') continue;
    if (got !== expected) missed.push({ kind: p.control, item: p.item, answer: cut(p.answer), expected, got });
  }
  return { asked, missed, unanswered, calibrated: missed.length === 0 && unanswered === 0 };
}

/**
 * Each judged trial's item verdicts, scored into its pass when the judge is calibrated. Trials of cases without
 * items, and trials not scored (no evidence, nothing to score), are returned as they were.
 */
export function applyJudgements(
  outcomes: readonly TrialOutcome[],
  defs: readonly GradableCase[],
  answers: ReadonlyMap<string, readonly JudgeSample[]>,
  calibrated: boolean,
): TrialOutcome[] {
  const rubricOf = new Map(defs.flatMap((c) => (c.judge?.length ? [[c.id, c.judge] as const] : [])));
  return outcomes.map((o) => {
    const rubric = rubricOf.get(o.caseId);
    if (!rubric || o.passed === null) return o;
    const items = rubric.map((item, k) => {
      const samples = answers.get(trialAskId(o, k));
      return { item, samples: [...(samples ?? [])], verdict: samples ? itemVerdict(samples) : ('judge_error' as const) };
    });
    const judged = { ...o, judge: { scored: calibrated, items, passedWithoutItems: o.passed } };
    if (!calibrated) return judged;
    const missing = items.filter((i) => i.verdict === 'judge_error');
    if (missing.length) {
      const unasked = missing.filter((i) => i.samples.length === 0).length;
      return {
        ...judged,
        passed: null,
        excludedBecause: JUDGE_ERROR,
        statusDetail: unasked
          ? `${unasked} judged item(s) not answered yet`
          : `the judge gave no verdict on ${missing.length} item(s) (a tie or unreadable replies)`,
      };
    }
    return { ...judged, passed: o.passed && items.every((i) => i.verdict === 'yes') };
  });
}
