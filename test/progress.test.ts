import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { explainOutcome } from '../src/report/explain.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import type { Arm } from '../src/run/config-schema.js';
import { createProgress, duration, fit, startLine } from '../src/runner/progress.js';
import { waldDesign } from '../src/stats/sprt.js';
import { designOperating, expectedRemainingTrials } from '../src/stats/sequential-design.js';
import { FixedScheduler, SequentialScheduler } from '../src/trials/schedule.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { ClaudeStream } from './claude-stream.js';
import type { GradableCase, TrialMeta } from '../src/run/schema.js';

const P = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 20 };
const FAMILY = ['atl', 'atl-jira', 'atl-confluence'].map((dir) => ({ dir, name: dir }));
const OPTS: GradeOptions = {
  family: FAMILY,
  skillsFolder: claudeCode.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: claudeCode.grading,
};
const META: TrialMeta = {
  exitCode: 0,
  signal: null,
  wallMs: 300,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '2026-11-30T00:00:00.000Z',
};
const jira: GradableCase = {
  id: 'c',
  expect: 'atl-jira',
  exclusive: true,
  tags: [],
  decision: P,
  command: 'atl jira',
  plan: { matches: [], mustNot: [], verb: 'create-issue' },
};

describe('each trial says pass, fail and why, or not scored and why — never just "ok"', () => {
  const s = () => new ClaudeStream();
  it.each<[string, ClaudeStream, GradableCase, Arm, Partial<TrialMeta>, string]>([
    [
      'a pass',
      s().skill('atl-jira', 'create-issue --project OPS').text('```bash\natl jira create-issue --project OPS\n```').result(),
      jira,
      'skill',
      {},
      'pass',
    ],
    [
      'a read-only pass',
      s().read('.claude/skills/atl-jira/SKILL.md').text('```bash\natl jira create-issue --project OPS\n```').result(),
      jira,
      'skill',
      {},
      'pass (read-only)',
    ],
    ['nothing fired', s().text('Done, I think.').result(), jira, 'skill', {}, 'fail: did not fire'],
    ['a question instead', s().text('Which project?').result(), jira, 'skill', {}, 'fail: did not fire (asked a question)'],
    ['a sibling', s().skill('atl-confluence', 'x').text('ok').result(), jira, 'skill', {}, 'fail: sibling fired: atl-confluence'],
    [
      'a plan with the wrong verb',
      s().skill('atl-jira', 'create --project OPS').text('ok').result(),
      jira,
      'skill',
      {},
      'fail: plan: verb create-issue: used create',
    ],
    [
      'a false trigger',
      s().skill('atl').text('ok').result(),
      { ...jira, expect: 'none', plan: undefined },
      'skill',
      {},
      'fail: false trigger: atl fired',
    ],
    [
      'max turns',
      s()
        .skill('atl-jira', 'create-issue')
        .result({ subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (2)'] }),
      jira,
      'skill',
      { exitCode: 1 },
      'fail: max turns (Reached maximum number of turns (2))',
    ],
    [
      'an infra error',
      s().retry(429).apiError(429).result({ is_error: true, api_error_status: 429 }),
      jira,
      'skill',
      { exitCode: 1 },
      'not scored: infra_error',
    ],
    [
      'a stream stalled after the skill fired',
      s().skill('atl-jira', 'x'),
      jira,
      'skill',
      { exitCode: null, signal: 'SIGTERM', timedOut: true, wallMs: 9000, quietMs: 8000 },
      'not scored: infra_error (the stream went silent after the model acted',
    ],
    [
      'nothing to score in the ablation arm',
      new ClaudeStream('/ws', []).text('no').result(),
      { ...jira, plan: undefined },
      'ablation',
      {},
      'not scored: nothing to score without the skill',
    ],
    [
      'the ablation arm failing its plan checks, as expected',
      new ClaudeStream('/ws', []).text('Try the tracker.').result(),
      jira,
      'ablation',
      {},
      'fail without the skill: plan: verb create-issue: no call of the command found',
    ],
  ])('%s', (_, stream, c, arm, meta, says) => {
    const line = explainOutcome(gradeTrial(parseClaudeStream(stream.raw()), { ...META, ...meta }, c, arm, 1, OPTS), c);
    expect(line.slice(0, says.length)).toBe(says);
  });
});

describe('expected trials, for the progress estimate', () => {
  it('from a reached state: one more pass accepts after 13 straight passes; nothing is left at the maximum', () => {
    const s = waldDesign({ ...P, minTrials: 1, maxTrials: 50 });
    expect(designOperating(s, 1, { trials: 13, passes: 13 }).expectedTrials).toBe(1);
    expect(expectedRemainingTrials(s, { trials: 50, passes: 40 })).toBe(0);
    expect(expectedRemainingTrials(s, { trials: 10, passes: 10 })).toBeLessThan(expectedRemainingTrials(s, { trials: 0, passes: 0 }));
  });

  it('a sequential schedule expects far fewer trials than its upper bound, and counts decided cases', () => {
    const decision = { ...P, minTrials: 5, maxTrials: 50 };
    const s = new SequentialScheduler(
      [
        { id: 'a', expect: 'x', decision },
        { id: 'b', expect: 'x', decision },
      ],
      ['skill'],
      'scored',
    );
    expect(s.plannedTotal()).toBe(100);
    const before = s.expectedTotal();
    expect(before).toBeGreaterThan(40);
    expect(before).toBeLessThan(100);
    expect(s.casesDecided()).toEqual({ decided: 0, cases: 2 });
    // Five straight fails reject case a (Λ = 5 × log(0.1/0.2) ≈ −3.47 below −2.77); case b has passed five times.
    for (let i = 0; i < 10; i++) {
      const r = s.next()!;
      s.finished(r, r.caseId === 'b');
    }
    expect(s.casesDecided()).toEqual({ decided: 1, cases: 2 });
    const after = s.expectedTotal();
    expect(after).toBeGreaterThanOrEqual(10);
    expect(after).toBeLessThan(before);
  });

  it('a fixed schedule expects exactly its trials and decides a case when all its trials finished', () => {
    const s = new FixedScheduler([{ id: 'a', expect: 'x', exclusive: false, tags: [], decision: P }], ['skill'], 2, 'scored');
    expect(s.expectedTotal()).toBe(2);
    s.finished(s.next()!);
    expect(s.casesDecided()).toEqual({ decided: 0, cases: 1 });
    s.finished(s.next()!);
    expect(s.casesDecided()).toEqual({ decided: 1, cases: 1 });
  });
});

describe('progress output', () => {
  const state = { done: 3, expectedTotal: 40, plannedTotal: 90, decided: 1, cases: 5, failures: 2 };

  it('off a terminal: one line per trial with the graded result, expected total and cases decided', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(out as unknown as NodeJS.WriteStream);
    p.start({ ...state, done: 0 });
    p.trialDone({ caseId: 'jira', arm: 'skill', n: 3 }, 'fail: plan: verb create-issue: used create', 812, state);
    p.stop();
    expect(text).toContain(
      "running about 40 trials over 5 cases (at most 90; updated as cases decide)\n  40 is the designs' expected number if each case's rate sits at its threshold",
    );
    expect(text).toContain('[3/~40 · 1/5 decided] jira/skill#3: fail: plan: verb create-issue: used create · 812 ms · 2 failed so far');
  });

  it('off a terminal: the ETA, the spend and its projection once known, and each change of the limit on a line of its own', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const p = createProgress(out as unknown as NodeJS.WriteStream);
    p.trialDone({ caseId: 'jira', arm: 'skill', n: 4 }, 'pass', 900, {
      ...state,
      etaSeconds: 185,
      cost: { spentUsd: 0.4, projectedUsd: 5.25 },
    });
    p.note('concurrency 8 → 6: HTTP 429: cut to 6 (×0.8)');
    expect(text).toBe(
      '[3/~40 · 1/5 decided] jira/skill#4: pass · 900 ms · 2 failed so far · ETA 3m05s · $0.40 → ~$5.25\nconcurrency 8 → 6: HTTP 429: cut to 6 (×0.8)\n',
    );
  });

  it.each([
    [0, '0s'],
    [59.4, '59s'],
    [60, '1m00s'],
    [3599, '59m59s'],
    [3720, '1h02m'],
  ])('a duration of %s s reads %s', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });

  it('a fixed design says its exact count, with nothing to explain', () => {
    expect(startLine({ ...state, done: 0, expectedTotal: 60, plannedTotal: 60 })).toBe('running 60 trials over 5 cases\n');
  });

  it('fits long text to a width', () => {
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('abc', 4)).toBe('abc');
  });
});

describe('progress bar on a terminal', () => {
  const state = { done: 7, expectedTotal: 96, plannedTotal: 200, decided: 2, cases: 11, failures: 3 };
  const longVerdict = 'fail: plan: verb create-issue: used create, and a long tail of detail that will not fit';

  /** The bar's last line on a terminal of `columns` (undefined: one that does not say), after one trial. */
  function lastLine(columns: number | undefined): string {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    Object.assign(out, { isTTY: true, columns });
    const p = createProgress(out as unknown as NodeJS.WriteStream);
    p.start({ ...state, done: 0 });
    p.trialDone({ caseId: 'trap-comment-on-ticket-about-page', arm: 'skill', n: 7 }, longVerdict, 900, state);
    p.stop();
    // Each redraw starts by moving the cursor to column 1: split there, then drop the escape codes.
    return text
      .split(/\u001b\[\d*G|\r|\n/)
      .map((l) => stripVTControlCharacters(l))
      .filter((l) => l.includes('trials ·'))
      .at(-1)!;
  }

  it.each([120, 100, 80])('fills a %i-column terminal with the bar and the last trial, never more', (columns) => {
    const last = lastLine(columns);
    expect(last).toMatch(/7\/~96 trials · 2\/11 decided · ETA \S+ · ×\S+ · 3 failed · trap-/);
    expect(last.length).toBeLessThanOrEqual(columns);
    expect(last.length).toBeGreaterThan(columns - 12); // the last trial's text takes the room there is
  });

  it('a terminal that does not report its width gets 100 columns, not a cut at 80', () => {
    const last = lastLine(undefined);
    expect(last.length).toBeGreaterThan(80);
    expect(last.length).toBeLessThanOrEqual(100);
  });
});
