import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { armCosts } from '../src/stats/arm-cost.js';
import { fiellerRatio, sampleMoments, studentQuantile, welchContrast, welchDifference } from '../src/stats/mean-difference.js';
import { modelRequests } from '../src/grade/model-requests.js';
import { worthLines } from '../src/report/arm-cost.js';
import { REPORTERS } from '../src/report/registry.js';
import { agentNotes } from '../src/runner/reports.js';
import { buildResults } from '../src/verdict/results.js';
import type { Arm } from '../src/run/config-schema.js';
import type { TrialOutcome, TrialStatus } from '../src/run/schema.js';
import type { TranscriptEvent } from '../src/transcript/types.js';
import { DECISION, handMadeManifest, quietOutcome } from './run-fixtures.js';
import { expectArmCostsRecalculated } from './arm-cost-recalculation.js';
import { configSchema } from '../src/run/config-schema.js';

describe("Student's t quantile (any real df, through the beta distribution)", () => {
  it.each([
    // The 97.5% points printed in every table of t.
    [1, 12.7062],
    [2, 4.3027],
    [5, 2.5706],
    [10, 2.2281],
    [30, 2.0423],
    [1e6, 1.96],
  ])('df %d: %d', (df, t) => {
    expect(studentQuantile(0.025, df)).toBeCloseTo(t, 3);
  });

  it('moves smoothly between whole df', () => {
    const [four, between, five] = [4, 4.5, 5].map((df) => studentQuantile(0.025, df));
    expect(between).toBeLessThan(four!);
    expect(between).toBeGreaterThan(five!);
  });
});

const moments = (...xs: number[]) => sampleMoments(xs);

describe("Welch's interval on a difference of means", () => {
  it('equal sizes and variances: df 2(n − 1), half-width t × √(2s²/n)', () => {
    // Means 2 and 5, variance 1 each: se² = 2/3, df 4, t(0.975, 4) = 2.7764.
    const d = welchDifference(moments(1, 2, 3), moments(4, 5, 6));
    expect(d.estimate).toBe(-3);
    expect(d.df).toBeCloseTo(4, 10);
    expect(d.lo).toBeCloseTo(-3 - 2.7764 * Math.sqrt(2 / 3), 3);
    expect(d.hi).toBeCloseTo(-3 + 2.7764 * Math.sqrt(2 / 3), 3);
  });

  it('unequal variances: df between the smaller sample’s n − 1 and n₁ + n₂ − 2', () => {
    const d = welchDifference(moments(1, 2, 3, 4, 5), moments(2, 4, 6, 8, 10, 12, 30));
    expect(d.df).toBeGreaterThan(4);
    expect(d.df).toBeLessThan(10);
    expect(d.hi - d.estimate).toBeCloseTo(d.estimate - d.lo, 10);
  });

  it.each([
    ['one value in an arm', moments(5), moments(1, 2), Number.NaN, Number.NaN],
    ['neither arm varies', moments(3, 3), moments(1, 1, 1), 2, 2],
  ])('%s', (_, a, b, lo, hi) => {
    const d = welchDifference(a, b);
    expect(d.lo).toEqual(lo);
    expect(d.hi).toEqual(hi);
  });

  it('a contrast of one case with weights ±1 is the difference itself; of two cases, their average with both variances', () => {
    const [a, b, c, d] = [moments(1, 2, 3), moments(4, 5, 6), moments(10, 14, 12, 11), moments(1, 2, 2, 3)];
    const one = welchContrast([
      { weight: 1, sample: a },
      { weight: -1, sample: b },
    ]);
    expect(one).toEqual(welchDifference(a, b));
    const two = welchContrast([
      { weight: 0.5, sample: a },
      { weight: -0.5, sample: b },
      { weight: 0.5, sample: c },
      { weight: -0.5, sample: d },
    ]);
    expect(two.estimate).toBeCloseTo((-3 + (11.75 - 2)) / 2, 10);
    // More samples behind it: more degrees of freedom than either case alone.
    expect(two.df).toBeGreaterThan(one.df);
  });
});

describe("Fieller's interval on a ratio of means", () => {
  it('its limits are where a − θb is exactly t standard errors from 0', () => {
    const [a, b] = [moments(180, 200, 220, 210), moments(90, 100, 110, 95, 105)];
    const r = fiellerRatio(a, b);
    expect(r.estimate).toBeCloseTo(202.5 / 100, 10);
    const t = studentQuantile(0.025, r.df);
    for (const theta of [r.lo, r.hi]) {
      const gap = (a.mean - theta * b.mean) ** 2;
      expect(gap).toBeCloseTo(t ** 2 * (a.variance / a.n + theta ** 2 * (b.variance / b.n)), 6);
    }
    expect(r.lo).toBeLessThan(r.estimate);
    expect(r.hi).toBeGreaterThan(r.estimate);
  });

  it('is unbounded where the denominator’s mean is not told apart from 0', () => {
    const r = fiellerRatio(moments(5, 6, 7), moments(-1, 1, 0.2));
    expect([r.lo, r.hi]).toEqual([-Infinity, Infinity]);
  });
});

describe('model requests from the canonical transcript', () => {
  const text = (messageId?: string): TranscriptEvent => ({ kind: 'text', source: 'assistant', text: 'x', messageId });
  const call = (id: string, messageId?: string): TranscriptEvent => ({
    kind: 'tool_call',
    source: 'assistant',
    id,
    name: 'Skill',
    input: {},
    intent: 'skill',
    messageId,
  });
  const result = (id: string): TranscriptEvent => ({ kind: 'tool_result', source: 'tool', id, isError: false, text: '' });
  const load = (callId: string): TranscriptEvent => ({ kind: 'skill_load', source: 'harness', callId, name: 'atl', status: 'loaded' });
  const turn = (n: number): TranscriptEvent => ({ kind: 'user_turn', source: 'harness', turn: n, text: 'more' });
  const harness: TranscriptEvent = { kind: 'text', source: 'harness', text: 'SKILL.md body' };

  it.each<[string, TranscriptEvent[], number]>([
    ['nothing said', [], 0],
    ['one plain answer in several blocks', [text('m1'), text('m1'), text()], 1],
    ['a skill call, its load and body, then the answer', [text('m1'), call('c1', 'm1'), load('c1'), harness, result('c1'), text('m2')], 2],
    [
      'parallel calls of one message with a result between them',
      [call('c1', 'm1'), result('c1'), call('c2', 'm1'), result('c2'), text('m2')],
      2,
    ],
    [
      'calls without message ids, each answered before the next (counted apiece)',
      [call('c1'), result('c1'), call('c2'), result('c2'), text()],
      3,
    ],
    ['a conversation: one answer per user turn', [text('m1'), turn(2), text('m2'), turn(3), text('m3')], 3],
  ])('%s: %d', (_, events, n) => {
    expect(modelRequests({ events })).toBe(n);
  });
});

/** A trial with the given spending; `usage` absent when `input` is. */
function trial(
  caseId: string,
  arm: Arm,
  n: number,
  spent: { input?: number; output?: number; wallMs?: number; requests?: number; status?: TrialStatus; passed?: boolean },
): TrialOutcome {
  return quietOutcome({
    caseId,
    arm,
    n,
    status: spent.status ?? 'ok',
    passed: spent.status === 'infra_error' ? null : (spent.passed ?? true),
    ...(spent.wallMs !== undefined ? { wallMs: spent.wallMs } : {}),
    ...(spent.input !== undefined ? { usage: { input: spent.input, cached: spent.input / 2, output: spent.output ?? 0 } } : {}),
    ...(spent.requests !== undefined ? { requests: spent.requests } : {}),
  });
}

const series = (caseId: string, arm: Arm, inputs: number[], over: Partial<Parameters<typeof trial>[3]> = {}) =>
  inputs.map((input, i) => trial(caseId, arm, i + 1, { input, output: input / 10, wallMs: 1000 + input, requests: 1, ...over }));

const CASES = [
  { id: 'a', expect: 'atl-jira' },
  { id: 'b', expect: 'atl-jira' },
  { id: 'c', expect: 'atl-confluence' },
  { id: 'neg', expect: 'none' },
];

describe('armCosts: per case and arm, skill − ablation, per skill', () => {
  const outcomes = [
    ...series('a', 'skill', [200, 220, 240]),
    ...series('a', 'ablation', [100, 110, 120]),
    // A fault spends nothing that says anything of the skill: left out.
    trial('a', 'ablation', 4, { input: 5, status: 'infra_error' }),
    // Case b ran longer (its design went on): its 6 trials weigh as much as a's 3 in atl-jira's line.
    ...series('b', 'skill', [1000, 1000, 1100, 1100, 1200, 1200]),
    ...series('b', 'ablation', [400, 500, 400, 500, 400, 500]),
    // Case c: one ablation trial, no interval (and so no difference) for it.
    ...series('c', 'skill', [300, 320]),
    ...series('c', 'ablation', [150]),
    // A trial stopped once settled spends what it spent: counted, and marked.
    trial('a', 'skill', 4, { input: 220, output: 22, wallMs: 1220, requests: 1, status: 'settled' }),
    // A negative case, skill arm only; one trial of it reported no usage.
    ...series('neg', 'skill', [90, 95]),
    trial('neg', 'skill', 3, { wallMs: 900 }),
  ];
  const ablation = [
    { caseId: 'a', difference: { diff: 0.5, lo: 0.1, hi: 0.8 } },
    { caseId: 'b', difference: { diff: 0.3, lo: 0, hi: 0.6 } },
  ];
  const costs = armCosts(CASES, outcomes, ablation, { cli: 'Claude Code', chars: 600, budgetChars: 8000 }, 0.95);
  const row = (id: string) => costs.cases.find((c) => c.caseId === id)!;

  it.each([
    ['a', 'skill', 4, 'input', 4, 220],
    ['a', 'ablation', 3, 'input', 3, 110],
    ['b', 'ablation', 6, 'output', 6, 45],
    ['c', 'ablation', 1, 'wallMs', 1, 1150],
    ['neg', 'skill', 3, 'input', 2, 92.5],
    ['neg', 'skill', 3, 'wallMs', 3, (1090 + 1095 + 900) / 3],
    ['a', 'skill', 4, 'cached', 4, 110],
    ['a', 'skill', 4, 'requests', 4, 1],
  ] as const)('%s/%s: %d trials, %s over %d of them, mean %d', (id, arm, trials, metric, n, mean) => {
    const a = row(id).arms.find((x) => x.arm === arm)!;
    expect(a.trials).toBe(trials);
    expect(a.metrics[metric]!.n).toBe(n);
    expect(a.metrics[metric]!.mean).toBeCloseTo(mean, 10);
  });

  it('counts the settled trials it spent on', () => {
    expect(row('a').arms.map((x) => [x.arm, x.settled])).toEqual([
      ['skill', 1],
      ['ablation', 0],
    ]);
  });

  it('no metric a CLI never reported (cost here), no arm that never ran', () => {
    expect(row('a').arms[0]!.metrics.costUsd).toBeUndefined();
    expect(row('neg').arms.map((x) => x.arm)).toEqual(['skill']);
  });

  it('the difference, where both arms measured it twice or more, is Welch’s with Fieller’s ratio', () => {
    const d = row('a').difference.input!;
    const welch = welchDifference(moments(200, 220, 240, 220), moments(100, 110, 120));
    expect([d.diff, d.lo, d.hi]).toEqual([welch.estimate, welch.lo, welch.hi]);
    expect(d.ratio!.estimate).toBeCloseTo(2, 10);
    expect(d.ratio!.lo).toBeLessThan(2);
    expect(row('c').difference).toEqual({});
    expect(row('neg').difference).toEqual({});
  });

  it('a skill’s line weighs each of its cases the same, and averages their pass-rate differences', () => {
    const jira = costs.skills.find((s) => s.skill === 'atl-jira')!;
    expect(jira.cases).toEqual(['a', 'b']);
    // Case a: +110; case b: +1100 − 450 = +650; the average of the two, not the pooled trials' (which weighs b double).
    expect(jira.difference.input!.diff).toBeCloseTo((110 + 650) / 2, 10);
    expect(jira.passRate).toEqual({ diff: 0.4, cases: 2 });
    // Confluence's one case has no difference: no line.
    expect(costs.skills.map((s) => s.skill)).toEqual(['atl-jira']);
    expect(costs.listing).toEqual({ cli: 'Claude Code', chars: 600, budgetChars: 8000, share: 0.075 });
    // A CLI that lists every skill whole has no budget to share.
    expect(armCosts(CASES, outcomes, ablation, { cli: 'Codex CLI', chars: 600 }, 0.95).listing).toEqual({ cli: 'Codex CLI', chars: 600 });
  });

  it('the worth-its-tokens line says what a trial spends more and what that buys', () => {
    expect(worthLines(costs)).toEqual([
      expect.stringMatching(
        /^atl-jira: \+380 input tokens\/trial \[[-+][\d,]+, \+[\d,]+\], \+38 output, \+0\.4 s \[.*\], pass rate \+40 pts over 2 cases → ~10 input tokens per point$/,
      ),
    ]);
  });
});

describe('the PER ARM section in every report for people', () => {
  const defs = CASES.map((c) => ({ ...c, exclusive: false, tags: [], decision: DECISION }));
  const manifest = handMadeManifest(defs, 0, {
    config: configSchema.parse({ arms: ['skill', 'ablation'] }),
    familyListing: { cli: 'Claude Code', chars: 600, budgetChars: 8000 },
  });
  const outcomes = [...series('a', 'skill', [200, 220, 240]), ...series('a', 'ablation', [100, 110, 120])];
  const results = buildResults(manifest, outcomes, [], new Date('2026-12-04T00:00:00Z'));
  const input = { manifest, results, runDir: 'runs/r1', agentNotes: agentNotes(manifest) };

  it('results.json carries it', () => {
    expect(results.armCosts!.cases.find((c) => c.caseId === 'a')!.difference.input!.diff).toBeCloseTo(110, 10);
  });

  it.each([
    ['terminal', (text: string) => stripVTControlCharacters(text).split('PER ARM · ')[1]],
    // Markdown's escapes taken off.
    ['markdown', (text: string) => text.split('#### Per arm · ')[1]?.replace(/\\(.)/g, '$1')],
    ['html', (text: string) => text.split('id="per-arm"')[1]],
  ] as const)('%s: the skill’s line, the listing’s share and the case’s rows', (name, section) => {
    // Lines wrapped to the terminal's width joined again.
    const text = section(REPORTERS[name]({ colour: false }).render(input))!.replace(/\s+/g, ' ');
    expect(text).toContain('atl-jira: +110 input tokens/trial [');
    expect(text).toContain('listing entries take 600 characters of the ~8,000 Claude Code gives the whole skill listing (8%)');
    expect(text).toMatch(/ablation[^]*difference/);
  });

  it('an independent recalculation from the trials agrees, and catches a table that is off', () => {
    expect(expectArmCostsRecalculated(results)).toBeGreaterThan(10);
    const off = structuredClone(results);
    off.armCosts!.cases[0]!.difference.input!.hi += 5;
    expect(() => expectArmCostsRecalculated(off)).toThrow();
  });

  it('absent from results graded before it was measured', () => {
    const { armCosts: _gone, ...older } = results;
    const text = stripVTControlCharacters(REPORTERS.terminal({ colour: false }).render({ ...input, results: older }));
    expect(text).not.toContain('PER ARM');
  });
});
