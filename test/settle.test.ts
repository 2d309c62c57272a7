import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { settledAt, settles, settlingSkills } from '../src/grade/settle.js';
import type { Arm } from '../src/run/config-schema.js';
import type { GradableCase, SkillLoadStatus } from '../src/run/schema.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';
import { DECISION, trialMeta } from './run-fixtures.js';

const FAMILY = [
  { dir: 'atl', name: 'atl' },
  { dir: 'atl-jira', name: 'jira' },
  { dir: 'atl-confluence', name: 'atl-confluence' },
];
const SKILLS = '.claude/skills';
const OPTS: GradeOptions = {
  family: FAMILY,
  skillsFolder: SKILLS,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  // The graders' own view of a CLI: names as written, nothing to find wrong with its isolation.
  conventions: { skillName: (n) => n.trim(), isolationProblem: () => undefined, bundledSkills: [] },
};

const base = { exclusive: false, tags: [], decision: DECISION };
const CASES = {
  positive: { id: 'p', expect: 'atl-jira', ...base },
  exclusive: { id: 'x', expect: 'atl-jira', ...base, exclusive: true },
  negative: { id: 'n', expect: 'none', ...base },
  notJira: { id: 'nj', expect: 'none', not: 'atl-jira', ...base },
  field: { id: 'f', expect: 'atl-jira', ...base, context: 'field' },
  plan: { id: 'pl', expect: 'atl-jira', ...base, plan: { matches: ['OPS'], mustNot: [] } },
  followUps: { id: 'fu', expect: 'atl-jira', ...base, conversation: { hash: 'h', history: 0, followUps: 1 } },
  off: { id: 'o', expect: 'atl-jira', ...base, settle: false },
} satisfies Record<string, GradableCase>;

/** Builds canonical transcripts a step at a time: each call as the CLI answers it. */
class Events {
  readonly events: TranscriptEvent[] = [
    { kind: 'init', source: 'system', model: 'm', cliVersion: '1', cwd: '/ws', tools: ['Read', 'Skill', 'Bash'], skills: [] },
  ];
  private id = 0;
  skill(name: string, status: SkillLoadStatus = 'loaded', answered = true): this {
    const id = `c${++this.id}`;
    this.events.push({ kind: 'tool_call', source: 'assistant', id, name: 'Skill', input: { skill: name }, intent: 'skill', skill: name });
    if (answered) this.events.push({ kind: 'skill_load', source: 'harness', callId: id, name, status });
    return this;
  }
  read(path: string): this {
    const id = `c${++this.id}`;
    this.events.push({ kind: 'tool_call', source: 'assistant', id, name: 'Read', input: { file_path: path }, intent: 'read', path });
    this.events.push({ kind: 'tool_result', source: 'tool', id, isError: false, text: '# body' });
    return this;
  }
  act(answered = true): this {
    const id = `c${++this.id}`;
    this.events.push({ kind: 'tool_call', source: 'assistant', id, name: 'Bash', input: { command: 'ls' }, intent: 'act' });
    if (answered) this.events.push({ kind: 'tool_result', source: 'tool', id, isError: true, text: 'refused' });
    return this;
  }
  text(text = 'Here is how.'): this {
    this.events.push({ kind: 'text', source: 'assistant', text });
    return this;
  }
  result(): this {
    this.events.push({ kind: 'result', source: 'system', status: 'success' });
    return this;
  }
  get t(): Transcript {
    return { agent: 'test', events: this.events, warnings: [] };
  }
}

const at = (e: Events, c: GradableCase, arm: Arm = 'skill', opts: Partial<GradeOptions> = {}) =>
  settledAt(e.t, c, arm, { ...OPTS, ...opts });
const read = (dir: string) => `/ws/${SKILLS}/${dir}/SKILL.md`;

describe('settledAt: when no later event can change the outcome', () => {
  const rows: { name: string; e: () => Events; c: GradableCase; arm?: Arm; opts?: Partial<GradeOptions>; settles: number | undefined }[] = [
    {
      name: 'the expected skill loaded: at its load status',
      e: () => new Events().text().skill('atl-jira').text().result(),
      c: CASES.positive,
      settles: 3,
    },
    { name: 'by its frontmatter name too', e: () => new Events().skill('jira'), c: CASES.positive, settles: 2 },
    { name: 'denied is still its choice', e: () => new Events().skill('atl-jira', 'denied'), c: CASES.positive, settles: 2 },
    {
      name: 'a call not answered yet: not before its status',
      e: () => new Events().skill('atl-jira', 'loaded', false),
      c: CASES.positive,
      settles: undefined,
    },
    {
      name: 'a sibling first: the expected one may follow',
      e: () => new Events().skill('atl').text(),
      c: CASES.positive,
      settles: undefined,
    },
    {
      name: 'a sibling, then the expected one: at the second',
      e: () => new Events().skill('atl').skill('atl-jira'),
      c: CASES.positive,
      settles: 4,
    },
    { name: 'a plain answer: the turn ends anyway', e: () => new Events().text().result(), c: CASES.positive, settles: undefined },
    { name: 'a read of its SKILL.md fires it', e: () => new Events().read(read('atl-jira')), c: CASES.positive, settles: 2 },
    {
      name: 'a read that does not count as firing settles nothing',
      e: () => new Events().read(read('atl-jira')),
      c: CASES.positive,
      opts: { readCountsAsFiring: false },
      settles: undefined,
    },
    {
      name: 'exclusive: the expected one alone may still be joined',
      e: () => new Events().skill('atl-jira'),
      c: CASES.exclusive,
      settles: undefined,
    },
    {
      name: 'exclusive: a sibling after it fails it',
      e: () => new Events().skill('atl-jira').skill('atl'),
      c: CASES.exclusive,
      settles: 4,
    },
    {
      name: 'exclusive: a sibling before it, then it',
      e: () => new Events().skill('atl').skill('atl-jira'),
      c: CASES.exclusive,
      settles: 4,
    },
    {
      name: 'negative: a member fired is a false trigger',
      e: () => new Events().text().skill('atl-confluence'),
      c: CASES.negative,
      settles: 3,
    },
    {
      name: 'negative: a name outside the family is no false trigger',
      e: () => new Events().skill('pdf', 'unknown'),
      c: CASES.negative,
      settles: undefined,
    },
    { name: 'negative: a plain answer settles nothing early', e: () => new Events().text(), c: CASES.negative, settles: undefined },
    { name: 'not this skill: a sibling is free', e: () => new Events().skill('atl-confluence'), c: CASES.notJira, settles: undefined },
    { name: 'not this skill: the one it names is not', e: () => new Events().skill('atl-jira'), c: CASES.notJira, settles: 2 },
    { name: 'an acting call first: at its refusal', e: () => new Events().act().skill('atl-jira'), c: CASES.field, settles: 2 },
    { name: 'an acting call not answered yet', e: () => new Events().act(false), c: CASES.field, settles: undefined },
    {
      name: 'an acting call after the skill: the skill settled it',
      e: () => new Events().skill('atl-jira').act(),
      c: CASES.field,
      settles: 2,
    },
    {
      name: 'an acting call on a negative case: a skill may still follow',
      e: () => new Events().act(),
      c: CASES.negative,
      settles: undefined,
    },
    { name: 'plan checks grade what comes after', e: () => new Events().skill('atl-jira'), c: CASES.plan, settles: undefined },
    { name: 'a follow-up may come', e: () => new Events().skill('atl-jira'), c: CASES.followUps, settles: undefined },
    { name: 'settle: false', e: () => new Events().skill('atl-jira'), c: CASES.off, settles: undefined },
    {
      name: 'the ablation arm scores plans only',
      e: () => new Events().skill('atl-jira'),
      c: CASES.positive,
      arm: 'ablation',
      settles: undefined,
    },
  ];
  it.each(rows)('$name', ({ e, c, arm, opts, settles: want }) => expect(at(e(), c, arm, opts)).toBe(want));

  it('the skills a CLI may stop on by itself: the expected one by both names, the forbidden ones; none for exclusive', () => {
    expect(settlingSkills(CASES.positive, 'skill', FAMILY)).toEqual(['atl-jira', 'jira']);
    expect(settlingSkills(CASES.negative, 'skill', FAMILY)).toEqual(['atl', 'atl-jira', 'jira', 'atl-confluence']);
    expect(settlingSkills(CASES.notJira, 'skill', FAMILY)).toEqual(['atl-jira', 'jira']);
    expect(settlingSkills(CASES.exclusive, 'skill', FAMILY)).toEqual([]);
    expect(settlingSkills(CASES.plan, 'skill', FAMILY)).toEqual([]);
    expect(settles(CASES.positive, 'ablation')).toBe(false);
  });
});

describe('a trial stopped as settled grades as the whole trial would', () => {
  const settledMeta = trialMeta({ settled: true, exitCode: null, signal: 'SIGKILL' });

  it('a settled pass: status settled, passed, fired expected', () => {
    const e = new Events().text().skill('atl-jira');
    expect(gradeTrial(e.t, settledMeta, CASES.positive, 'skill', 1, OPTS)).toMatchObject({
      status: 'settled',
      passed: true,
      fired: 'expected',
    });
  });

  it('a trial recorded as settled whose transcript shows no settled outcome is an agent error, never a score', () => {
    const e = new Events().text();
    const o = gradeTrial(e.t, settledMeta, CASES.positive, 'skill', 1, OPTS);
    expect(o).toMatchObject({ status: 'agent_error', passed: null, excludedBecause: 'agent_error' });
  });

  // Any trial, cut where settledAt says, grades as the trial left to its end: settling never precedes an event that
  // changes the outcome, and the watch of the stream finds the same moment on the stream so far.
  type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('skill' as const),
      name: fc.constantFrom('atl', 'atl-jira', 'jira', 'atl-confluence', 'pdf'),
      status: fc.constantFrom<SkillLoadStatus>('loaded', 'loaded', 'denied', 'unknown'),
    }),
    fc.record({ kind: fc.constant('read' as const), dir: fc.constantFrom('atl', 'atl-jira', 'atl-confluence', 'notes') }),
    fc.record({ kind: fc.constant('act' as const) }),
    fc.record({ kind: fc.constant('text' as const) }),
  );
  const build = (steps: readonly Step[]): Events => {
    const e = new Events();
    for (const s of steps) {
      if (s.kind === 'skill') e.skill(s.name, s.status);
      else if (s.kind === 'read') e.read(read(s.dir));
      else if (s.kind === 'act') e.act();
      else e.text();
    }
    return e.result();
  };
  const settlingCases = [CASES.positive, CASES.exclusive, CASES.negative, CASES.notJira, CASES.field];

  it('holds for every case kind, with reads firing or not', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 8 }), fc.constantFrom(...settlingCases), fc.boolean(), (steps, c, readFires) => {
        const opts = { ...OPTS, readCountsAsFiring: readFires };
        const whole = build(steps).t;
        const cut = settledAt(whole, c, 'skill', opts);
        if (cut === undefined) return;
        const prefix = (n: number): Transcript => ({ ...whole, events: whole.events.slice(0, n + 1) });
        for (let i = 0; i < cut; i++) expect(settledAt(prefix(i), c, 'skill', opts)).toBeUndefined();
        expect(settledAt(prefix(cut), c, 'skill', opts)).toBe(cut);
        const full = gradeTrial(whole, trialMeta(), c, 'skill', 1, opts);
        const stopped = gradeTrial(prefix(cut), trialMeta({ settled: true }), c, 'skill', 1, opts);
        expect(stopped.status).toBe('settled');
        expect({ passed: stopped.passed, fired: stopped.fired }).toEqual({ passed: full.passed, fired: full.fired });
      }),
      { seed: 37, numRuns: 1500 },
    );
  });
});
