import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { FIELD_ACTING_TOOLS, fieldSettings } from '../src/agents/claude-code/field.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { InvocationRequest } from '../src/agents/types.js';
import { gradeTrial } from '../src/grade/outcome.js';
import type { GradableCase, TrialOutcome } from '../src/run/schema.js';
import { probeProblem } from '../src/runner/field-probe.js';
import type { ToolCallEvent } from '../src/transcript/types.js';
import { treeChanges, treeState } from '../src/workspace/tree-state.js';
import { ClaudeStream } from './claude-stream.js';
import { ROOT } from './helpers.js';
import { claudeGrading, trialMeta } from './run-fixtures.js';

/** The default menu as Claude Code 2.1.197's init event lists it in the field. */
const FIELD_MENU = ['Task', 'Bash', 'Edit', 'NotebookEdit', 'Read', 'Skill', 'WebFetch', 'WebSearch', 'Write', 'TaskCreate'];
const LAB_MENU = ['Glob', 'Grep', 'Read', 'Skill'];
const FAMILY = [{ dir: 'csv-chart', name: 'csv-chart' }];
const OPTS = claudeGrading(FAMILY);
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
const positive: GradableCase = { id: 'p', expect: 'csv-chart', exclusive: false, tags: [], decision: DECISION, context: 'field' };
const negative: GradableCase = { id: 'n', expect: 'none', exclusive: false, tags: [], decision: DECISION, context: 'field' };

const recorded = (name: string) => readFileSync(join(ROOT, 'test/fixtures/claude-field', name), 'utf8');
const field = () => new ClaudeStream('/ws', ['csv-chart'], FIELD_MENU);
const refusedBash = (s: ClaudeStream) => s.answeredCall('Bash', { command: 'python chart.py' }, FIELD_REFUSAL);
const grade = (s: ClaudeStream, c: GradableCase = positive): TrialOutcome =>
  gradeTrial(parseClaudeStream(s.raw()), trialMeta({ evidence: { workspaceChanged: [] } }), c, 'skill', 1, OPTS);
const intents = (raw: string) =>
  parseClaudeStream(raw)
    .events.filter((e): e is ToolCallEvent => e.kind === 'tool_call')
    .map((e) => `${e.name}:${e.intent}`);

describe('the canonical transcript marks acting calls (the adapter decides)', () => {
  it.each([
    ['a Bash call the field offered', field().answeredCall('Bash', { command: 'ls' }, FIELD_REFUSAL), ['Bash:act']],
    [
      'a Write, an Edit and a WebFetch',
      field().answeredCall('Write', {}, FIELD_REFUSAL).answeredCall('Edit', {}, FIELD_REFUSAL).answeredCall('WebFetch', {}, FIELD_REFUSAL),
      ['Write:act', 'Edit:act', 'WebFetch:act'],
    ],
    ['a sub-agent: Agent in the call, Task in the menu', field().answeredCall('Agent', { prompt: 'x' }, FIELD_REFUSAL), ['Agent:act']],
    ['a read of a SKILL.md is a read', field().read('/ws/.claude/skills/csv-chart/SKILL.md', 'x'), ['Read:read']],
    [
      'a tool that neither reads nor acts (a to-do list) is neither',
      field().answeredCall('TaskCreate', {}, FIELD_REFUSAL),
      ['TaskCreate:other'],
    ],
    [
      'in the lab a Bash call to a tool never offered is no choice',
      new ClaudeStream('/ws', ['csv-chart'], LAB_MENU).answeredCall('Bash', {}, 'No such tool available: Bash'),
      ['Bash:other'],
    ],
  ])('%s', (_, s, expected) => {
    expect(intents(s.raw())).toEqual(expected);
  });

  it('the lab sample recorded from the CLI (a Bash call to a removed tool) has no acting call', () => {
    expect(intents(readFileSync(join(ROOT, 'test/fixtures/claude-samples/bash.jsonl'), 'utf8'))).toEqual(['Bash:other']);
  });
});

describe('grading: going around the skill', () => {
  it.each([
    ['acting first, no skill', refusedBash(field()).text('done by hand'), positive, { fired: 'self', firedColumn: 'self', passed: false }],
    [
      'acting first, then the skill',
      refusedBash(field()).skill('csv-chart'),
      positive,
      { fired: 'self', firedColumn: 'self', passed: false },
    ],
    [
      'the skill first, then an acting call',
      refusedBash(field().skill('csv-chart')),
      positive,
      { fired: 'expected', firedColumn: 'csv-chart', passed: true },
    ],
    [
      'reading its SKILL.md first, then acting',
      refusedBash(field().read('/ws/.claude/skills/csv-chart/SKILL.md', 'x')),
      positive,
      { fired: 'expected', passed: true },
    ],
    ['no acting call: the skill', field().skill('csv-chart').text('plan'), positive, { fired: 'expected', passed: true }],
    ['no acting call, no skill', field().text('an answer'), positive, { fired: 'none', passed: false }],
    ['a negative case the model did by hand passes', refusedBash(field()), negative, { fired: 'self', passed: true }],
    [
      'a negative case where the skill fired first fails',
      refusedBash(field().skill('csv-chart')),
      negative,
      { fired: 'sibling', passed: false },
    ],
  ] as const)('%s', (_, s, c, expected) => {
    expect(grade(s.result(), c)).toMatchObject({ status: 'ok', ...expected });
  });

  it('the recorded field trials grade as the CLI showed them: three acting calls refused → self, the skill → expected', () => {
    const graded = ['bash-refused.jsonl', 'write-refused.jsonl', 'webfetch-refused.jsonl', 'skill-loaded.jsonl'].map((f) => {
      const o = gradeTrial(
        parseClaudeStream(recorded(f)),
        trialMeta({ evidence: { workspaceChanged: [] } }),
        { ...positive, expect: 'csv-report' },
        'skill',
        1,
        {
          ...OPTS,
          family: [{ dir: 'csv-report', name: 'csv-report' }],
        },
      );
      return [o.status, o.fired, o.passed];
    });
    expect(graded).toEqual([
      ['ok', 'self', false],
      ['ok', 'self', false],
      ['ok', 'self', false],
      ['ok', 'expected', true],
    ]);
  });
});

describe("the field's evidence check (every trial, fail closed)", () => {
  const problem = (s: ClaudeStream, workspaceChanged: string[] | undefined) =>
    claudeCode.grading.isolationProblem(parseClaudeStream(s.raw()), {
      arm: 'skill',
      family: ['csv-chart'],
      context: 'field',
      workspaceChanged,
    });

  it.each([
    ['every acting call refused, nothing changed', refusedBash(field()), [], undefined],
    [
      'input validation refused the call first',
      field().answeredCall('Edit', {}, '<tool_use_error>File has not been read yet.</tool_use_error>'),
      [],
      undefined,
    ],
    ['reads run', field().read('/ws/data.csv', 'a,b'), [], undefined],
    ['a command ran', field().answeredCall('Bash', { command: 'ls' }, 'data.csv', false), [], /Bash not answered by a refusal/],
    [
      'a command failed after it ran',
      field().answeredCall('Bash', { command: 'ls x' }, 'Exit code 2', true),
      [],
      /Bash not answered by a refusal/,
    ],
    ['an acting call with no answer', field().toolCall('Bash', { command: 'sleep 9' }), [], /Bash not answered/],
    ['the workspace changed', refusedBash(field()), ['skillprobe-canary.txt'], /workspace changed \(skillprobe-canary.txt\)/],
    ['no record of the workspace', refusedBash(field()), undefined, /no record of the workspace/],
    [
      'the lab menu in a field trial',
      new ClaudeStream('/ws', ['csv-chart'], LAB_MENU),
      [],
      /missing Bash, Edit, Write, NotebookEdit, WebFetch, WebSearch, Task/,
    ],
    ['the family missing from the listing', new ClaudeStream('/ws', [], FIELD_MENU), [], /csv-chart not loaded/],
  ] as const)('%s', (_, s, changed, expected) => {
    const found = problem(s.result(), changed === undefined ? undefined : [...changed]);
    if (expected === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(expected);
  });

  it('the lab check is unchanged: an acting tool listed is a lock-down failure there', () => {
    const t = parseClaudeStream(field().result().raw());
    expect(claudeCode.grading.isolationProblem(t, { arm: 'skill', family: ['csv-chart'] })).toMatch(
      /tools that must be locked are available: Bash/,
    );
  });
});

describe('the probe before a field run', () => {
  // Recorded in a trial's workspace; the probe's holds no skill, so its init event lists only the CLI's own.
  const probeRecorded = (file: string) => {
    const [init, ...rest] = recorded(file).split('\n');
    const event = JSON.parse(init!) as { skills: string[]; slash_commands: string[] };
    const notInstalled = (names: string[]) => names.filter((n) => n !== 'csv-report');
    return [
      JSON.stringify({ ...event, skills: notInstalled(event.skills), slash_commands: notInstalled(event.slash_commands) }),
      ...rest,
    ].join('\n');
  };
  it.each([
    ['the recorded refusal of a command', 'bash-refused.jsonl', undefined],
    ['the recorded refusal of a write', 'write-refused.jsonl', undefined],
    ['a CLI without the hook (recorded): `ls` ran, a sub-agent ran', 'no-hook-ls-ran.jsonl', /not answered by a refusal/],
    ['a stand-in model that never acted proves nothing', 'skill-loaded.jsonl', /never got to make the acting call/],
  ])('%s', (_, file, expected) => {
    const found = probeProblem(claudeCode, parseClaudeStream(probeRecorded(file)), []);
    if (expected === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(expected);
  });

  it('a canary file left behind fails it', () => {
    expect(probeProblem(claudeCode, parseClaudeStream(probeRecorded('bash-refused.jsonl')), ['skillprobe-canary.txt'])).toMatch(
      /workspace changed/,
    );
  });
});

describe("Claude Code's field invocation", () => {
  const req = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
    prompt: 'chart it',
    model: 'sonnet',
    maxTurns: 8,
    cliRetries: 2,
    deadlineMs: 120_000,
    workspace: '/w/ws',
    home: '/w/home',
    tmp: '/w/tmp',
    harnessDir: '/w/harness',
    callerEnv: {},
    binary: '/bin/claude',
    role: 'trial',
    ...over,
  });

  it('the field drops the lab argv’s tool list; the settings file, the same path, holds the refusing hook', () => {
    const lab = claudeCode.invocation(req()).args;
    expect(claudeCode.invocation(req({ context: 'field' })).args).toEqual(lab.filter((a) => !a.startsWith('--tools=')));
    expect(lab).toEqual(expect.arrayContaining(['--tools=Read,Glob,Grep,Skill', '--settings=/w/harness/trial-settings.json']));
  });

  it('a judge in a field run still gets no tool at all', () => {
    expect(claudeCode.invocation(req({ context: 'field', role: 'judge' })).args).toContain('--tools=');
  });

  it("the hook's matcher takes every tool but the reads and the skill tool, and its command prints a deny", () => {
    const settings = JSON.parse(fieldSettings()) as {
      disableAllHooks: boolean;
      hooks: { PreToolUse: { matcher: string; hooks: { command: string }[] }[] };
    };
    // A project's settings cannot switch the hook off.
    expect(settings.disableAllHooks).toBe(false);
    const [entry] = settings.hooks.PreToolUse;
    const matcher = new RegExp(entry!.matcher);
    expect([...FIELD_ACTING_TOOLS, 'Agent', 'EnterWorktree', 'TaskCreate', 'ReadX'].filter((t) => !matcher.test(t))).toEqual([]);
    expect(['Read', 'Glob', 'Grep', 'Skill'].filter((t) => matcher.test(t))).toEqual([]);
    const printed = /^printf '%s' '(.*)'$/.exec(entry!.hooks[0]!.command)![1]!;
    expect(JSON.parse(printed)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: FIELD_REFUSAL },
    });
  });
});

describe('what changed in a workspace', () => {
  it.each([
    ['nothing', [['a', 'h1']], [['a', 'h1']], []],
    [
      'a file added',
      [['a', 'h1']],
      [
        ['a', 'h1'],
        ['canary', 'h2'],
      ],
      ['canary'],
    ],
    [
      'a file removed',
      [
        ['a', 'h1'],
        ['b', 'h2'],
      ],
      [['a', 'h1']],
      ['b'],
    ],
    ['a file edited', [['a', 'h1']], [['a', 'h9']], ['a']],
    ['a file turned into a link', [['a', 'h1']], [['a', 'link /etc']], ['a']],
  ])('%s', (_, before, after, expected) => {
    expect(treeChanges(new Map(before as [string, string][]), new Map(after as [string, string][]))).toEqual(expected);
  });

  it('read from disk: an edit deep in the tree, a new file and a new link are each named; an untouched tree is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-tree-'));
    try {
      mkdirSync(join(dir, '.claude/skills/chart'), { recursive: true });
      writeFileSync(join(dir, '.claude/skills/chart/SKILL.md'), 'body');
      const before = await treeState(dir);
      expect(treeChanges(before, await treeState(dir))).toEqual([]);
      writeFileSync(join(dir, '.claude/skills/chart/SKILL.md'), 'edited');
      writeFileSync(join(dir, 'skillprobe-canary.txt'), '');
      symlinkSync('/etc', join(dir, 'out'));
      expect(treeChanges(before, await treeState(dir))).toEqual(['.claude/skills/chart/SKILL.md', 'out', 'skillprobe-canary.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
