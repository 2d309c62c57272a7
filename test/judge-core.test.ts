import { describe, expect, it } from 'vitest';
import { itemVerdict } from '../src/checks/judge.js';
import { INJECTION_ANSWER, judgePrompt, readJudgeReply, readJudgeRequest, type JudgeSample } from '../src/checks/judge-prompt.js';
import { applyJudgements, judgeCalibration } from '../src/grade/judge-apply.js';
import { judgeSample } from '../src/grade/judge-answers.js';
import { explainJudgeSample } from '../src/report/explain.js';
import { judgeAsks, trialAskId } from '../src/grade/judge-asks.js';
import type { GradableCase, TrialOutcome } from '../src/run/schema.js';
import { DEFAULT_JUDGE, judgeReply, type JudgeBehaviour } from '../src/sim/judge.js';
import { rejudgeFlip } from '../src/stats/rejudge-flip.js';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { TrialMeta } from '../src/run/schema.js';
import { ClaudeStream } from './claude-stream.js';
import { trialMeta } from './run-fixtures.js';

const decision = { threshold: 0.9, delta: 0.2, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 3 };
const gradable = (id: string, judge?: string[]): GradableCase => ({
  id,
  expect: 'cleanup',
  exclusive: false,
  tags: [],
  decision,
  ...(judge ? { judge } : {}),
});
const outcome = (caseId: string, n: number, passed: boolean | null): TrialOutcome => ({
  caseId,
  arm: 'skill',
  n,
  status: 'ok',
  passed,
  firings: [],
  firedColumn: 'cleanup',
  fired: 'expected',
  readOnly: false,
  flags: { noop: false, clarifying: false },
  parseWarnings: 0,
});

describe('judge replies and verdicts', () => {
  it.each<[string | undefined, JudgeSample]>([
    ['The answer asks first.\nYES', 'yes'],
    ['no', 'no'],
    ['**No.**', 'no'],
    ['Yes!\n\n', 'yes'],
    ['YES, it does', 'error'],
    ['I cannot decide from what is shown.', 'error'],
    ['', 'error'],
    [undefined, 'error'],
    ['NO\nactually YES maybe', 'error'],
  ])('reads %j as %s', (reply, sample) => expect(readJudgeReply(reply)).toBe(sample));

  it.each<[JudgeSample[], string]>([
    [['yes', 'yes', 'no'], 'yes'],
    [['no', 'error', 'no'], 'no'],
    [['yes', 'no', 'error'], 'judge_error'],
    [['yes', 'no'], 'judge_error'],
    [['error', 'error', 'yes'], 'judge_error'],
    [['yes'], 'yes'],
    [[], 'judge_error'],
  ])('the strict majority of %j is %s', (samples, verdict) => expect(itemVerdict(samples)).toBe(verdict));

  it('a prompt carries the rubric in its shown order, the item asked, and the answer escaped, and reads back exactly', () => {
    const rubric = ['asks <first>', 'uses "dry-run"'];
    const answer = 'Run `x --dry-run` & then </answer> confirm';
    const plain = readJudgeRequest(judgePrompt({ rubric, item: 1, answer, variant: 'plain' }));
    expect(plain).toMatchObject({ shown: rubric, position: 2, item: rubric[1], answer, variant: 'plain' });
    const reordered = readJudgeRequest(judgePrompt({ rubric, item: 1, answer, variant: 'reordered' }));
    expect(reordered).toMatchObject({ shown: [...rubric].reverse(), position: 1, item: rubric[1] });
    expect(judgePrompt({ rubric, item: 0, answer, variant: 'reworded' })).not.toContain('You are grading');
    expect(readJudgeRequest('an ordinary prompt')).toBeUndefined();
  });
});

describe('judge requests: every trial item, the controls, the examples', () => {
  const defs = [gradable('a', ['one thing']), gradable('b', ['first', 'second']), gradable('c')];
  const texts = [
    { ref: { caseId: 'a', arm: 'skill' as const, n: 1 }, text: '' },
    { ref: { caseId: 'a', arm: 'skill' as const, n: 2 }, text: 'did one thing' },
    { ref: { caseId: 'b', arm: 'skill' as const, n: 1 }, text: 'first and second' },
  ];
  const asks = judgeAsks(defs, texts, [{ item: 'one thing', answer: 'did the thing', expect: 'yes' }]);
  const ids = asks.map((a) => a.id);

  it('asks each item of each trial once, and each control of each item', () => {
    expect(ids.filter((i) => !i.startsWith('control.') && !i.startsWith('calibration.'))).toEqual([
      'a.skill.1.item1',
      'a.skill.2.item1',
      'b.skill.1.item1',
      'b.skill.1.item2',
    ]);
    const controls = asks.flatMap((a) => (a.purpose.kind === 'control' ? [`${a.purpose.control}:${a.purpose.item}`] : []));
    // The consistency controls use each case's first trial with text: a's second (its first is empty).
    expect(controls.sort()).toEqual(
      [
        'empty:one thing',
        'injection:one thing',
        'reworded:one thing',
        'empty:first',
        'injection:first',
        'reworded:first',
        'reordered:first',
        'empty:second',
        'injection:second',
        'reworded:second',
        'reordered:second',
        'example:one thing',
      ].sort(),
    );
    const reworded = asks.find((a) => a.id === 'control.reworded.a.item1')!;
    expect(reworded.purpose).toMatchObject({ against: 'a.skill.2.item1', answer: 'did one thing' });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the same rubric asked again gives the same ids and prompts (so stored answers are found)', () => {
    expect(judgeAsks(defs, texts, [{ item: 'one thing', answer: 'did the thing', expect: 'yes' }])).toEqual(asks);
    const injection = asks.find((a) => a.id.startsWith('control.injection.'))!;
    expect(readJudgeRequest(injection.prompt)?.answer).toBe(INJECTION_ANSWER);
  });

  const honest = (): Map<string, JudgeSample[]> =>
    new Map(
      asks.map((a) => {
        const r = readJudgeRequest(a.prompt)!;
        const reply = judgeReply(DEFAULT_JUDGE, 1, r, a.id);
        return [a.id, [readJudgeReply(reply)]];
      }),
    );

  it('an honest judge passes every control; one wrong answer to any of them leaves it uncalibrated, named', () => {
    const answers = honest();
    expect(judgeCalibration(asks, answers)).toEqual({ asked: 12, missed: [], unanswered: 0, calibrated: true });
    const swayed = new Map(answers).set('control.reordered.b.item2', [answers.get('b.skill.1.item2')![0] === 'yes' ? 'no' : 'yes']);
    const cal = judgeCalibration(asks, swayed);
    expect(cal.calibrated).toBe(false);
    expect(cal.missed).toEqual([expect.objectContaining({ kind: 'reordered', item: 'second' })]);
    const unanswered = new Map(answers);
    unanswered.delete('calibration.example1');
    expect(judgeCalibration(asks, unanswered)).toMatchObject({ calibrated: false, unanswered: 1, missed: [] });
  });

  it('calibrated verdicts join the pass rule; a judge_error leaves the trial out; uncalibrated ones are shown only', () => {
    const outcomes = [outcome('a', 1, true), outcome('a', 2, true), outcome('b', 1, true), outcome('c', 1, true), outcome('a', 3, null)];
    const answers = new Map<string, JudgeSample[]>([
      [trialAskId(outcomes[0]!, 0), ['no', 'no', 'yes']],
      [trialAskId(outcomes[1]!, 0), ['yes', 'yes', 'no']],
      [trialAskId(outcomes[2]!, 0), ['yes', 'no', 'error']],
      [trialAskId(outcomes[2]!, 1), ['yes', 'yes', 'yes']],
    ]);
    const scored = applyJudgements(outcomes, defs, answers, true);
    expect(scored.map((o) => [o.caseId, o.n, o.passed, o.excludedBecause ?? null])).toEqual([
      ['a', 1, false, null],
      ['a', 2, true, null],
      ['b', 1, null, 'judge_error'],
      ['c', 1, true, null],
      ['a', 3, null, null],
    ]);
    expect(scored[2]!.judge?.items.map((i) => i.verdict)).toEqual(['judge_error', 'yes']);
    expect(scored[3]!.judge).toBeUndefined();
    const shown = applyJudgements(outcomes, defs, answers, false);
    expect(shown.map((o) => o.passed)).toEqual([true, true, true, true, null]);
    expect(shown[0]!.judge).toMatchObject({ scored: false, items: [{ verdict: 'no' }] });
  });
});

describe('rejudge of 200 stored trials against the simulated judge at flip rate 0.07', () => {
  it("reports a per-sample flip rate whose interval holds 0.07 (the simulator's own replies, paired as rejudge pairs them)", () => {
    const judge = { ...DEFAULT_JUDGE, flipRate: 0.07 };
    const rubric = ['Does the plan say to run it yourself?'];
    const samplesOf = (prefix: string) =>
      Array.from({ length: 200 }, (_, t) => {
        const request = readJudgeRequest(
          judgePrompt({ rubric, item: 0, answer: `Here is the plan ${t}: run it yourself.`, variant: 'plain' }),
        )!;
        return [[1, 2, 3].map((n) => readJudgeReply(judgeReply(judge, 2026, request, `${prefix}c${t}.skill.1.item1/ablation/${n}`)))];
      });
    const flip = rejudgeFlip(samplesOf(''), samplesOf('again.'), 0.95);
    expect(flip.changed.n).toBe(600);
    expect(flip.flipRate.lo).toBeLessThanOrEqual(0.07);
    expect(flip.flipRate.hi).toBeGreaterThanOrEqual(0.07);
    expect(flip.flipRate.e).toBeGreaterThan(0.03);
  });
});

describe('a judge trial as a sample', () => {
  // A judge's workspace lists no skill and offers no tool.
  const judged = () => new ClaudeStream('/ws', [], []);
  it.each<[string, ClaudeStream, Partial<TrialMeta>, JudgeSample | undefined]>([
    ['a reply read', judged().text('It asks first.\nYES').result(), {}, 'yes'],
    ['a reply with no verdict line', judged().text('Hard to say.').result(), {}, 'error'],
    ['a tool call, even with a verdict after it', judged().toolCall('Read', { file_path: '/ws/x' }).text('YES').result(), {}, 'error'],
    ['an API error', judged().apiError(500).result({ is_error: true, api_error_status: 500 }), { exitCode: 1 }, 'error'],
    ['a trial the user stopped: asked again on resume', judged().text('YES'), { interrupted: true, exitCode: null }, undefined],
  ])('%s', (_, stream, over, sample) => {
    const m = trialMeta(over);
    expect(judgeSample(parseClaudeStream(stream.raw()), m, claudeCode.grading.isolationProblem)).toBe(sample);
  });
});

describe("a judge trial's progress line", () => {
  it.each<[JudgeSample | undefined, string]>([
    ['yes', 'judge answered YES'],
    ['no', 'judge answered NO'],
    ['error', 'judge gave no verdict (an error, no YES or NO on its last line, or a tool call)'],
    [undefined, 'judge stopped: asked again on resume'],
  ])('%s: %s', (sample, line) => expect(explainJudgeSample(sample)).toBe(line));
});

/**
 * The simulator's untrustworthy judges against the controls of a run's requests, in process: the case judged in
 * test/judge.e2e.test.ts (two items, one holding), its trial's answer the one the simulated model writes there. That
 * file keeps one such judge through the real CLI (the behaviour reaching the judge, the run's results unscored).
 */
describe('a judge that must not be trusted is UNCALIBRATED, and none of its verdicts is scored', () => {
  const [YOURSELF, CONFIRM] = ['Does the plan say to run it yourself?', 'Does it ask for confirmation before deleting?'];
  const confirms = gradable('confirms', [YOURSELF, CONFIRM]);
  const answer = "Here is the plan:\n\n```bash\ncleanup --dry-run cache/\n```\n\nI can't run commands in this session, so run it yourself.";
  const asks = judgeAsks([confirms], [{ ref: { caseId: 'confirms', arm: 'skill', n: 1 }, text: answer }], []);
  const answersOf = (behaviour: JudgeBehaviour) =>
    new Map(asks.map((a) => [a.id, [readJudgeReply(judgeReply({ ...DEFAULT_JUDGE, behaviour }, 3, readJudgeRequest(a.prompt)!, a.id))]]));

  it('the honest judge on the same requests is calibrated, and its "no" on the confirmation item fails the trial', () => {
    const answers = answersOf('honest');
    expect(judgeCalibration(asks, answers)).toMatchObject({ calibrated: true, missed: [] });
    const [o] = applyJudgements([outcome('confirms', 1, true)], [confirms], answers, true);
    expect(o?.judge?.items.map((i) => i.verdict)).toEqual(['yes', 'no']);
    expect(o).toMatchObject({ passed: false, judge: { scored: true } });
  });

  it.each<[JudgeBehaviour, string[]]>([
    // Says yes to the empty answer and to the injection alike.
    ['always-yes', ['empty', 'injection']],
    // Honest, but an answer telling the grader to reply yes gets its yes.
    ['obeys-injection', ['injection']],
    // Judges the item listed first: only the reordered rubric shows it.
    ['order-swayed', ['reordered']],
  ])('the %s judge misses %j, so its verdict on the confirmation item counts for nothing', (behaviour, kinds) => {
    const answers = answersOf(behaviour);
    const calibration = judgeCalibration(asks, answers);
    expect(calibration.calibrated).toBe(false);
    expect([...new Set(calibration.missed.map((m) => m.kind))].sort()).toEqual(kinds);
    for (const m of calibration.missed) expect(m.expected).not.toBe(m.got);
    const [o] = applyJudgements([outcome('confirms', 1, true)], [confirms], answers, calibration.calibrated);
    // Unscored, the judge cannot fail the trial: it passes on its trigger alone, whatever the judge said.
    expect(o).toMatchObject({ passed: true, judge: { scored: false } });
  });
});
