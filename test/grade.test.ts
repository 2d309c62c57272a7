import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { canonicalPlan, commandLines, gradePlans } from '../src/grade/plan.js';
import { verbOf } from '../src/checks/verb.js';
import { resolveMember } from '../src/grade/trigger.js';
import type { Arm } from '../src/run/config-schema.js';
import { ClaudeStream } from './claude-stream.js';
import { trialMeta } from './run-fixtures.js';
import type { GradableCase, TrialMeta, TrialOutcome } from '../src/run/schema.js';

const FAMILY = [
  { dir: 'atl', name: 'atl' },
  { dir: 'atl-jira', name: 'atl-jira' },
  { dir: 'atl-confluence', name: 'atl-confluence' },
];
const OPTS: GradeOptions = {
  family: FAMILY,
  skillsFolder: claudeCode.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: claudeCode.grading,
};
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
const jiraCreate: GradableCase = {
  id: 'c',
  expect: 'atl-jira',
  exclusive: false,
  tags: [],
  command: 'atl jira',
  plan: { matches: ['--project OPS'], mustNot: [], verb: 'create-issue' },
  decision: DECISION,
};
const triggerOnly: GradableCase = { id: 't', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION };
const negative: GradableCase = { id: 'n', expect: 'none', exclusive: false, tags: [], decision: DECISION };
const BODY = 'Run:\n```bash\natl jira create-issue --project OPS --summary "x"\n```';

function grade(
  s: ClaudeStream,
  c: GradableCase,
  o: { arm?: Arm; meta?: Partial<TrialMeta>; opts?: Partial<GradeOptions> } = {},
): TrialOutcome {
  return gradeTrial(parseClaudeStream(s.raw()), trialMeta(o.meta), c, o.arm ?? 'skill', 1, { ...OPTS, ...o.opts });
}

interface Trap {
  name: string;
  build: () => ClaudeStream;
  c: GradableCase;
  arm?: Arm;
  meta?: Partial<TrialMeta>;
  opts?: Partial<GradeOptions>;
  expect: Partial<Pick<TrialOutcome, 'passed' | 'status' | 'fired' | 'firedColumn' | 'readOnly' | 'excludedBecause'>> & {
    planPass?: boolean;
    plans?: string[];
  };
}

const TRAPS: Trap[] = [
  {
    name: 'the expected plan only in the injected skill body does not pass',
    build: () => new ClaudeStream().skill('atl-jira', undefined, { body: BODY }).text('Done, I loaded it.').result(),
    c: jiraCreate,
    expect: { passed: false, fired: 'expected', planPass: false, plans: [] },
  },
  {
    name: 'the expected plan only in a tool result (Read echo) does not pass',
    build: () => new ClaudeStream().read('/ws/.claude/skills/atl-jira/SKILL.md').text('I read the instructions.').result(),
    c: jiraCreate,
    expect: { passed: false, fired: 'expected', readOnly: true, planPass: false },
  },
  {
    name: 'the same plan written by the model passes',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira', undefined, { body: BODY })
        .text('Plan:\n```bash\natl jira create-issue --project OPS --summary "x"\n```')
        .result(),
    c: jiraCreate,
    expect: { passed: true, planPass: true, plans: ['atl jira create-issue --project OPS --summary "x"'] },
  },
  {
    name: 'a sibling whose name is a prefix is not the expected skill',
    build: () => new ClaudeStream().skill('atl', 'status').text('ok').result(),
    c: triggerOnly,
    expect: { passed: false, fired: 'sibling', firedColumn: 'atl' },
  },
  {
    name: 'the longer name is not its prefix sibling either',
    build: () => new ClaudeStream().skill('atl-jira', 'search').text('ok').result(),
    c: { ...triggerOnly, expect: 'atl' },
    expect: { passed: false, fired: 'sibling', firedColumn: 'atl-jira' },
  },
  {
    name: 'a leading slash and spaces are normalised away',
    build: () => new ClaudeStream().skill(' /atl-jira ', 'search').text('ok').result(),
    c: triggerOnly,
    expect: { passed: true, fired: 'expected', firedColumn: 'atl-jira' },
  },
  {
    name: 'a plan carried only in Skill args, with the command prefix prepended',
    build: () => new ClaudeStream().skill('atl-jira', "create-issue --project OPS --summary 'x'").text('Created the plan above.').result(),
    c: jiraCreate,
    expect: { passed: true, plans: ['atl jira create-issue --project OPS --summary "x"'] },
  },
  {
    name: 'an abbreviated verb in the text fails even when the args were right',
    build: () => new ClaudeStream().skill('atl-jira', 'create-issue --project OPS').text('Plan: `atl jira create --project OPS`').result(),
    c: jiraCreate,
    expect: { passed: false, planPass: false },
  },
  {
    name: 'parallel Skill and Read calls in one message: one firing of the expected skill, plan from args',
    build: () =>
      new ClaudeStream()
        .parallelSkillAndRead('atl-jira', 'create-issue --project OPS', '/ws/.claude/skills/atl-jira/SKILL.md')
        .text('Plan ready.')
        .result(),
    c: { ...jiraCreate, exclusive: true },
    expect: { passed: true, fired: 'expected', firedColumn: 'atl-jira', readOnly: false },
  },
  {
    name: 'a synthetic API-error message is never a plan, and the trial is infra missing data',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira', undefined, { body: BODY })
        .apiError(500, 'API Error: 500 `atl jira create-issue --project OPS`')
        .result({ is_error: true, api_error_status: 500, result: 'API Error: 500 `atl jira create-issue --project OPS`' }),
    c: jiraCreate,
    expect: { passed: null, status: 'infra_error', excludedBecause: 'infra_error' },
  },
  {
    name: 'result.result holds only the last text block: the plan in the first block still counts',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira')
        .text('```bash\natl jira create-issue --project OPS\n```', 'Let me know if you want changes.')
        .result({ result: 'Let me know if you want changes.' }),
    c: jiraCreate,
    expect: { passed: true, planPass: true },
  },
  {
    name: 'a killed run with no result line is not scored as "did not trigger"',
    build: () => new ClaudeStream().text('Let me'),
    c: triggerOnly,
    meta: { exitCode: 0, signal: null, interrupted: true },
    expect: { passed: null, status: 'killed', excludedBecause: 'killed' },
  },
  {
    name: 'a run past the harness deadline after the model acted is a timeout, a failure under the budget',
    build: () => new ClaudeStream().text('Let me check the tracker first.'),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true },
    expect: { passed: false, status: 'timeout' },
  },
  {
    name: 'a stream that stalled after the expected skill loaded is missing data (re-run), never a miss',
    build: () => new ClaudeStream().skill('atl-jira', 'search'),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true, wallMs: 20_000, quietMs: 18_000 },
    expect: { passed: null, status: 'infra_error', excludedBecause: 'infra_error', fired: 'expected' },
  },
  {
    name: 'a stream that stalled before the skill fired is missing data too: a stall is the service, whatever came before',
    build: () => new ClaudeStream().text('Let me look into it.'),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true, wallMs: 20_000, quietMs: 18_000 },
    expect: { passed: null, status: 'infra_error', excludedBecause: 'infra_error' },
  },
  {
    name: 'silent at the deadline while a tool call has no result yet: the trial waited on a tool, a budget stop',
    build: () => new ClaudeStream().skill('atl-jira', 'search').toolCall('Grep', { pattern: 'x' }),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true, wallMs: 20_000, quietMs: 18_000 },
    expect: { passed: false, status: 'timeout' },
  },
  {
    name: 'busy to the deadline (printing, not stalled) after the skill fired is a timeout, a failure under the budget',
    build: () => new ClaudeStream().skill('atl-jira', 'search').text('Working on it.'),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true, wallMs: 20_000, quietMs: 2_000 },
    expect: { passed: false, status: 'timeout' },
  },
  {
    name: 'killed at the deadline before the model produced anything is missing data, not "did not trigger"',
    build: () => new ClaudeStream(),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true },
    expect: { passed: null, status: 'infra_error', excludedBecause: 'infra_error' },
  },
  {
    name: 'a negative case killed before the model acted is missing data too, never a pass',
    build: () => new ClaudeStream(),
    c: { ...triggerOnly, expect: 'none' },
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true },
    expect: { passed: null, status: 'infra_error' },
  },
  {
    name: 'a budget stop (max budget) after the model acted is a failure under the budget, like max turns',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira')
        .result({ subtype: 'error_max_budget_usd', is_error: true, errors: ['Reached maximum budget ($0.0003)'] }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    expect: { passed: false, status: 'max_budget', fired: 'expected' },
  },
  {
    name: 'a budget stop is left out when budget stops are excluded',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira')
        .result({ subtype: 'error_max_budget_usd', is_error: true, errors: ['Reached maximum budget ($0.0003)'] }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    opts: { budgetStopsFail: false },
    expect: { passed: null, excludedBecause: 'max_budget' },
  },
  {
    name: 'a budget stop before the model acted is missing data (the CLI ended the trial)',
    build: () =>
      new ClaudeStream().result({ subtype: 'error_max_budget_usd', is_error: true, errors: ['Reached maximum budget ($0.0003)'] }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    expect: { passed: null, status: 'agent_error' },
  },
  {
    name: 'a timeout is left out when budget stops are excluded',
    build: () => new ClaudeStream().text('Let me check.'),
    c: triggerOnly,
    meta: { exitCode: null, signal: 'SIGTERM', timedOut: true },
    opts: { budgetStopsFail: false },
    expect: { passed: null, excludedBecause: 'timeout' },
  },
  {
    name: 'a denied skill still counts as the model choosing it',
    build: () => new ClaudeStream().skill('atl-jira', 'x', { status: 'denied' }).text('I could not run it.').result(),
    c: triggerOnly,
    expect: { passed: true, fired: 'expected' },
  },
  {
    name: 'an unknown skill is "other", not a trigger',
    build: () => new ClaudeStream().skill('jira', 'x', { status: 'unknown' }).text('Hmm.').result(),
    c: triggerOnly,
    expect: { passed: false, fired: 'other', firedColumn: 'other' },
  },
  {
    name: 'an empty final answer after the skill fails the plan checks',
    build: () => new ClaudeStream().skill('atl-jira', undefined, { body: BODY }).text('').result({ result: '' }),
    c: jiraCreate,
    expect: { passed: false, fired: 'expected', planPass: false },
  },
  {
    name: 'invocation by frontmatter name counts as the folder',
    build: () => new ClaudeStream('/ws', ['atl', 'atl-jira', 'atl-confluence', 'jira-dir']).skill('jira-fm', 'x').text('ok').result(),
    c: { ...triggerOnly, expect: 'jira-dir' },
    opts: { family: [...FAMILY, { dir: 'jira-dir', name: 'jira-fm' }] },
    expect: { passed: true, fired: 'expected', firedColumn: 'jira-dir' },
  },
  {
    name: 'invocation by folder name when the frontmatter differs',
    build: () => new ClaudeStream('/ws', ['atl', 'atl-jira', 'atl-confluence', 'jira-dir']).skill('jira-dir', 'x').text('ok').result(),
    c: { ...triggerOnly, expect: 'jira-dir' },
    opts: { family: [...FAMILY, { dir: 'jira-dir', name: 'jira-fm' }] },
    expect: { passed: true, firedColumn: 'jira-dir' },
  },
  {
    name: 'exclusive: the expected skill plus a sibling fails, column multiple',
    build: () => new ClaudeStream().skill('atl').skill('atl-jira', 'search').text('ok').result(),
    c: { ...triggerOnly, exclusive: true },
    expect: { passed: false, fired: 'expected', firedColumn: 'multiple' },
  },
  {
    name: 'not exclusive: the expected skill after a sibling passes',
    build: () => new ClaudeStream().skill('atl').skill('atl-jira', 'search').text('ok').result(),
    c: triggerOnly,
    expect: { passed: true, firedColumn: 'multiple' },
  },
  {
    name: 'a read-trigger counts as firing by default',
    build: () => new ClaudeStream().read('.claude/skills/atl-jira/SKILL.md').text('ok').result(),
    c: triggerOnly,
    expect: { passed: true, readOnly: true, firedColumn: 'atl-jira' },
  },
  {
    name: 'a read-trigger is only reported when reads are separate',
    build: () => new ClaudeStream().read('.claude/skills/atl-jira/SKILL.md').text('ok').result(),
    c: triggerOnly,
    opts: { readCountsAsFiring: false },
    expect: { passed: false, fired: 'none', firedColumn: 'none' },
  },
  {
    name: 'reading a file that merely resembles a skill path is not a read-trigger',
    build: () => new ClaudeStream().read('/ws/docs/my.claude/skills/atl-jira/SKILL.md').text('ok').result(),
    c: triggerOnly,
    expect: { passed: false, fired: 'none' },
  },
  {
    name: 'negative case: silence passes',
    build: () => new ClaudeStream().text('Jira was released in 2002.').result(),
    c: negative,
    expect: { passed: true, fired: 'none', firedColumn: 'none' },
  },
  {
    name: 'negative case: any family firing fails',
    build: () => new ClaudeStream().skill('atl-confluence', 'search').text('ok').result(),
    c: negative,
    expect: { passed: false, fired: 'sibling', firedColumn: 'atl-confluence' },
  },
  {
    name: 'ablation arm: a loaded family skill means isolation failed',
    build: () => new ClaudeStream('/ws', []).skill('atl-jira', 'x').text('ok').result(),
    c: jiraCreate,
    arm: 'ablation',
    expect: { passed: null, status: 'isolation_error' },
  },
  {
    name: 'ablation arm: a read of a skill path that fails (no such file, as it should be) loaded nothing: no isolation error',
    build: () =>
      new ClaudeStream('/ws', [])
        .read('/ws/.claude/skills/atl-jira/SKILL.md', { error: 'File does not exist.' })
        .text('Try `atl jira create-issue --project OPS`.')
        .result(),
    c: jiraCreate,
    arm: 'ablation',
    expect: { passed: true, status: 'ok', planPass: true },
  },
  {
    name: 'ablation arm: a read of a skill path that returns the file is an isolation error',
    build: () => new ClaudeStream('/ws', []).read('/ws/.claude/skills/atl-jira/SKILL.md').text('ok').result(),
    c: jiraCreate,
    arm: 'ablation',
    expect: { passed: null, status: 'isolation_error' },
  },
  {
    name: 'ablation arm: plan checks are scored on the whole answer',
    build: () => new ClaudeStream('/ws', []).text('Try `atl jira create-issue --project OPS`.').result(),
    c: jiraCreate,
    arm: 'ablation',
    expect: { passed: true, planPass: true },
  },
  {
    name: 'skill arm whose init lacks a family member is an isolation error',
    build: () => new ClaudeStream('/ws', ['atl']).skill('atl-jira').text('ok').result(),
    c: triggerOnly,
    expect: { passed: null, status: 'isolation_error' },
  },
  {
    name: 'a locked tool left available is an isolation error',
    build: () =>
      new ClaudeStream('/ws', ['atl', 'atl-jira', 'atl-confluence'], ['Bash', 'Read', 'Skill']).skill('atl-jira').text('ok').result(),
    c: triggerOnly,
    expect: { passed: null, status: 'isolation_error' },
  },
  {
    name: 'max turns is a failure under the budget',
    build: () =>
      new ClaudeStream()
        .skill('atl-jira')
        .result({ subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (1)'] }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    expect: { passed: false, status: 'max_turns', fired: 'expected' },
  },
  {
    name: 'a 429 after the CLI gave up is missing data',
    build: () => new ClaudeStream().retry(429).apiError(429).result({ is_error: true, api_error_status: 429, result: 'API Error' }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    expect: { passed: null, status: 'infra_error' },
  },
  {
    name: 'an auth failure is an agent error, excluded and reported',
    build: () =>
      new ClaudeStream().apiError(401, 'Failed to authenticate. API Error: 401').result({ is_error: true, api_error_status: 401 }),
    c: triggerOnly,
    meta: { exitCode: 1 },
    expect: { passed: null, status: 'agent_error' },
  },
];

describe('grader on the shared samples', () => {
  const sample = (name: string) => parseClaudeStream(readFileSync(join(import.meta.dirname, 'fixtures/claude-samples', name), 'utf8'));
  const pdf: GradableCase = { id: 'p', expect: 'pdf-tool', exclusive: false, tags: [], decision: DECISION };
  const family = { family: [{ dir: 'pdf-tool', name: 'pdf-tool' }] };

  it('an empty fallback answer after a stream error is missing data, not "did not trigger"', () => {
    const o = gradeTrial(sample('sse-error-with-bad-fallback.jsonl'), trialMeta(), pdf, 'skill', 1, { ...OPTS, ...family });
    expect(o).toMatchObject({ status: 'infra_error', passed: null });
  });

  it('the skill sample passes and the text sample does not', () => {
    expect(gradeTrial(sample('skill.jsonl'), trialMeta(), pdf, 'skill', 1, { ...OPTS, ...family }).passed).toBe(true);
    expect(gradeTrial(sample('text.jsonl'), trialMeta(), pdf, 'skill', 1, { ...OPTS, ...family }).passed).toBe(false);
  });

  it('an error after the skill loaded is infra, though the skill fired', () => {
    expect(gradeTrial(sample('s500.jsonl'), trialMeta({ exitCode: 1 }), pdf, 'skill', 1, { ...OPTS, ...family })).toMatchObject({
      status: 'infra_error',
      fired: 'expected',
      passed: null,
    });
  });
});

describe('grader traps', () => {
  it.each(TRAPS)('$name', (trap) => {
    const o = grade(trap.build(), trap.c, { arm: trap.arm, meta: trap.meta, opts: trap.opts });
    const { planPass, plans, ...rest } = trap.expect;
    expect(o).toMatchObject(rest);
    if (planPass !== undefined) expect(o.plan?.pass).toBe(planPass);
    if (plans !== undefined) expect(o.plan?.plans).toEqual(plans);
  });

  it('flags a clarifying question and a no-op', () => {
    expect(grade(new ClaudeStream().text('Which project do you mean?').result(), triggerOnly).flags).toEqual({
      noop: false,
      clarifying: true,
    });
    expect(grade(new ClaudeStream().text('').result(), triggerOnly).flags).toEqual({ noop: true, clarifying: false });
  });
});

describe('plan canonicalisation', () => {
  it.each([
    ['  atl   jira  search\t--jql  "x"  ', 'atl jira search --jql "x"'],
    ["atl jira add-comment OPS-1 --body 'hi'", 'atl jira add-comment OPS-1 --body "hi"'],
    ['atl jira add-comment OPS-1 --body “hi”', 'atl jira add-comment OPS-1 --body "hi"'],
    ['$ atl jira search', 'atl jira search'],
    ['11\tpython scripts/x.py', 'python scripts/x.py'],
    ['python /tmp/ws/.claude/skills/csv/scripts/r.py --input /tmp/ws/data.csv', 'python <skill>/scripts/r.py --input <workspace>/data.csv'],
  ])('%j → %j', (raw, want) => {
    expect(
      canonicalPlan(raw, {
        workspace: '/tmp/ws',
        skillPaths: ['/tmp/ws/.claude/skills/csv'],
        echoPrefix: claudeCode.grading.readEchoPrefix,
      }),
    ).toBe(want);
  });

  it('strips a read echo only as the adapter defines it: a CLI whose reads print no line numbers keeps them', () => {
    expect(canonicalPlan('11\tpython x.py', { skillPaths: [] })).toBe('11 python x.py');
  });

  it('finds fenced lines, $ lines and inline code, skipping comments', () => {
    expect(commandLines('Run `a b`.\n```sh\n# note\nc d\n```\n$ e f\nplain text')).toEqual(['a b', 'c d', 'e f']);
  });

  it.each([
    ['atl jira create-issue --project X', 'atl jira', 'create-issue'],
    ['atl jira create --project X', 'atl jira', 'create'],
    ['atl confluence create-page', 'atl jira', undefined],
    ['atl jiraX create', 'atl jira', undefined],
    ['git status', undefined, 'git'],
  ])('verb of %j with prefix %j is %j', (plan, prefix, verb) => {
    expect(verbOf(plan, prefix)).toBe(verb);
  });

  it('checks matches, mustNot and verb', () => {
    const g = gradePlans(
      ['atl jira create-issue --project OPS --force'],
      { matches: ['--project OPS', 'nope'], mustNot: ['--force'], verb: 'create-issue' },
      'atl jira',
    );
    expect(g.checks.map((c) => c.pass)).toEqual([true, false, false, true]);
    expect(g.pass).toBe(false);
  });

  it('fails a verb check when no plan calls the command', () => {
    expect(gradePlans([], { matches: [], mustNot: [], verb: 'x' }, 'atl').checks[0]).toMatchObject({
      pass: false,
      detail: 'no call of the command found',
    });
  });
});

describe('skill name resolution', () => {
  it.each([
    ['atl-jira', 'atl-jira'],
    ['/atl-jira', 'atl-jira'],
    ['  atl-jira ', 'atl-jira'],
    ['plugin:atl-jira', 'atl-jira'],
    ['atl', 'atl'],
    ['atl-j', undefined],
    ['ATL-JIRA', undefined],
    ['jira', undefined],
  ])('%j resolves to %j', (requested, want) => {
    expect(resolveMember(requested, FAMILY, claudeCode.grading)).toBe(want);
  });

  it('resolves a name the way the CLI does: Claude Code drops a leading slash and a plugin prefix', () => {
    expect(claudeCode.grading.skillName(' /x ')).toBe('x');
    expect(claudeCode.grading.skillName('plugin:x')).toBe('x');
    // Another CLI's rules come from its adapter: with none, `/atl-jira` names nothing in the family.
    expect(resolveMember('/atl-jira', FAMILY, { ...claudeCode.grading, skillName: (s) => s })).toBeUndefined();
  });
});

describe('grading across the conversation', () => {
  const inConversation = (by?: number): GradableCase => ({
    ...jiraCreate,
    conversation: { hash: 'h', history: 0, followUps: 1 },
    ...(by !== undefined ? { by } : {}),
  });
  const plan = 'Plan:\n```bash\natl jira create-issue --project OPS\n```';
  const asksThenFires = () =>
    new ClaudeStream()
      .userTurn('file the login bug')
      .text('Which project?')
      .result()
      .userTurn('OPS')
      .skill('atl-jira', 'create-issue --project OPS', { body: BODY })
      .text(plan)
      .result();
  const firesAtOnce = () =>
    new ClaudeStream()
      .userTurn('file the login bug in OPS')
      .skill('atl-jira', 'create-issue --project OPS', { body: BODY })
      .text(plan)
      .result();
  it.each([
    ['asks once, then fires: passes with no `by`', asksThenFires, undefined, { passed: true, firedTurn: 2 }],
    ['asks once, then fires: passes by turn 2', asksThenFires, 2, { passed: true, firedTurn: 2 }],
    ['asks once, then fires: fails by turn 1', asksThenFires, 1, { passed: false, fired: 'expected', firedTurn: 2 }],
    ['fires at once: passes by turn 1', firesAtOnce, 1, { passed: true, firedTurn: 1 }],
  ] as const)('%s', (_, stream, by, want) => {
    const o = grade(stream(), inConversation(by));
    expect(o).toMatchObject(want);
    // The plan checks read what the assistant wrote after the skill loaded, on whichever turn that was.
    expect(o.plan).toMatchObject({ pass: true, plans: expect.arrayContaining(['atl jira create-issue --project OPS']) });
  });
});
