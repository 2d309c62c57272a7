import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { historyHeld, seededSession, sessionIdFor } from '../src/agents/claude-code/session.js';
import { historyHeldIn, seededChat } from '../src/agents/gemini/session.js';
import { historyHeldInRollout, seededRollout, threadIdFor } from '../src/agents/codex/session.js';
import type { AgentAdapter, InvocationRequest } from '../src/agents/types.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { firedInTime, trialCostUsd } from '../src/grade/outcome.js';
import { followUpDue, userTurnOfEvents } from '../src/grade/turns.js';
import { firings } from '../src/grade/trigger.js';
import { firingTurns } from '../src/stats/firing-turns.js';
import { clopperPearsonInterval } from '../src/stats/clopper-pearson.js';
import { conversationHash, conversationProblems, type HistoryTurn } from '../src/load/conversation.js';
import { resumeChanges } from '../src/runner/resume.js';
import { handMadeManifest } from './run-fixtures.js';
import type { CaseSuite } from '../src/load/cases.js';
import { checkConversation } from '../src/runner/suite-checks.js';
import { anthropicView } from '../src/sim/dialects/anthropic-view.js';
import { decideReply } from '../src/sim/policy.js';
import { parseProfile } from '../src/sim/profile.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';
import { ProblemList } from '../src/util/input-error.js';
import { firingTurnTable } from '../src/report/wording.js';
import type { CaseArmSummary, GradableCase } from '../src/run/schema.js';

/** Claude Code's follow-ups: stream-JSON lines on its stdin. */
const claudeStdin = (() => {
  const take = claudeCode.conversation?.followUps;
  if (take?.via !== 'stdin') throw new Error('Claude Code takes follow-ups on its stdin');
  return take;
})();

const text = (t: string): TranscriptEvent => ({ kind: 'text', source: 'assistant', text: t });
const turn = (n: number): TranscriptEvent => ({ kind: 'user_turn', source: 'harness', turn: n, text: `turn ${n}` });
const call = (intent: 'skill' | 'read' | 'act' | 'mcp' | 'other', path?: string): TranscriptEvent => ({
  kind: 'tool_call',
  source: 'assistant',
  id: `c-${intent}`,
  name: intent,
  input: {},
  intent,
  ...(intent === 'skill' ? { skill: 'alpha' } : {}),
  ...(path ? { path } : {}),
});
const result = (status: 'success' | 'api_error' | 'max_turns' = 'success'): TranscriptEvent => ({
  kind: 'result',
  source: 'system',
  status,
});
const transcript = (events: TranscriptEvent[]): Transcript => ({ agent: 'claude-code', events, warnings: [] });

describe("a conversation's cost: its last result's running total, the one progress and the cap read", () => {
  const priced = (costUsd: number): TranscriptEvent => ({ ...result(), costUsd }) as TranscriptEvent;
  it.each([
    ['one turn', [turn(1), text('a'), priced(0.034)], 0.034],
    [
      'two turns: the second result holds the session total',
      [turn(1), text('q?'), priced(0.034), turn(2), call('skill'), priced(0.0377)],
      0.0377,
    ],
    ['no result (a killed trial)', [turn(1), text('a')], undefined],
  ])('%s', (_, events, cost) => {
    expect(trialCostUsd(transcript(events as TranscriptEvent[]))).toBe(cost);
  });
});

describe('the user turn each event belongs to', () => {
  it.each([
    ['no markers: all turn 1', [text('a'), result()], [1, 1]],
    ['one marker', [turn(1), text('a'), result()], [1, 1, 1]],
    [
      'events before the first marker are turn 1',
      [text('init'), turn(1), text('q?'), turn(2), call('skill'), result()],
      [1, 1, 1, 2, 2, 2],
    ],
    ['three turns', [turn(1), text('q?'), turn(2), text('q2?'), turn(3), call('skill')], [1, 1, 2, 2, 3, 3]],
  ])('%s', (_, events, turns) => {
    expect(userTurnOfEvents(transcript(events as TranscriptEvent[]))).toEqual(turns);
  });
});

describe('a follow-up is due when the assistant ended its turn without acting', () => {
  it.each([
    ['a question', [text('Which one?'), result()], true],
    ['a plain answer', [text('Here it is.'), result()], true],
    ['a read of a user file', [call('read', 'notes.md'), text('I see.'), result()], true],
    ['a skill fired', [call('skill'), text('plan'), result()], false],
    ['an acting call', [call('act'), text('done'), result()], false],
    ['a read of a skill file', [call('read', '/ws/.claude/skills/alpha/SKILL.md'), result()], false],
    ['a read of a skill file, Windows slashes', [call('read', 'C:\\ws\\.claude\\skills\\alpha\\SKILL.md'), result()], false],
    [
      'a read of a folder that only ends like the skills folder',
      [call('read', '/ws/my.claude/skills/notes.md'), text('I see.'), result()],
      true,
    ],
    ['an MCP tool used (graded as the tool already)', [call('mcp'), text('filed'), result()], false],
    ['the turn failed', [text('x'), result('api_error')], false],
    ['a budget stop', [text('x'), result('max_turns')], false],
    ['no result yet', [text('Which one?')], false],
  ])('%s → %s', (_, events, due) => {
    expect(followUpDue(transcript(events as TranscriptEvent[]), '.claude/skills')).toBe(due);
  });
});

describe('`by:` gates a pass on the turn the expected skill first fired', () => {
  it.each([
    [undefined, undefined, true],
    [undefined, 1, false],
    [{}, 1, true],
    [{ turn: 1 }, 1, true],
    [{ turn: 2 }, 1, false],
    [{ turn: 2 }, 2, true],
    [{ turn: 3 }, 2, false],
    [{ turn: 3 }, undefined, true],
  ])('first firing %j, by %s → %s', (first, by, pass) => {
    expect(firedInTime(first, by)).toBe(pass);
  });

  it('each firing records the user turn it came in, in a conversation only', () => {
    const family = [{ dir: 'alpha', name: 'alpha' }];
    const fire = (events: TranscriptEvent[]) =>
      firings(transcript(events), family, '.claude/skills', claudeCode.grading).map((f) => [f.skill, f.turn]);
    expect(fire([turn(1), text('Which?'), turn(2), call('skill')])).toEqual([['alpha', 2]]);
    expect(fire([call('skill')])).toEqual([['alpha', undefined]]);
  });
});

describe('the distribution of the firing turn', () => {
  it.each<[string, (number | undefined)[], number, number[], number[]]>([
    ['all on turn 1', [1, 1, 1, 1], 2, [4, 0], [4, 4]],
    ['asks first', [2, 2, 1, undefined], 2, [1, 2], [1, 3]],
    ['never', [undefined, undefined], 3, [0, 0, 0], [0, 0, 0]],
    ['three turns', [3, 1, 2, 3, undefined], 3, [1, 1, 2], [1, 2, 4]],
  ])('%s', (_, first, turns, counts, byTurn) => {
    const d = firingTurns(first, turns, 0.95);
    expect(d.counts).toEqual(counts);
    expect(d.byTurn.map((r) => [r.successes, r.n])).toEqual(byTurn.map((k) => [k, first.length]));
  });
  it('each interval at the Bonferroni level, so the curve holds jointly at the level asked', () => {
    const d = firingTurns([1, 2, 2, undefined, 2, 1, 1, 2, undefined, 2], 2, 0.9);
    expect(d.pointwiseConfidence).toBeCloseTo(0.95, 12);
    expect(d.byTurn[1]).toEqual(clopperPearsonInterval(8, 10, d.pointwiseConfidence));
    expect(d.byTurn[1]!.lo).toBeLessThan(clopperPearsonInterval(8, 10, 0.9).lo);
  });
});

describe("a case's conversation is part of its identity", () => {
  const c = (conversation?: { history?: HistoryTurn[]; followUps?: string[] }): GradableCase => ({
    id: 'ship',
    expect: 'deploy',
    exclusive: false,
    tags: [],
    decision: { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 },
    ...(conversation ? { conversation: { hash: conversationHash(conversation)!, history: 0, followUps: 0 } } : {}),
  });
  const run = (k: GradableCase) => handMadeManifest([k], 0);
  it.each<[string, GradableCase, GradableCase, string[]]>([
    [
      'a follow-up edited',
      c({ followUps: ['production'] }),
      c({ followUps: ['staging'] }),
      ["a case's conversation (history or follow-ups of ship)"],
    ],
    [
      'a history added',
      c(),
      c({ history: [{ user: 'a' }, { assistant: 'b' }] }),
      ["a case's conversation (history or follow-ups of ship)"],
    ],
    ['the same conversation', c({ followUps: ['production'] }), c({ followUps: ['production'] }), []],
    ['none in either', c(), c(), []],
  ])('resume names %s', (_, stored, now, want) => {
    expect(resumeChanges(run(stored), run(now), undefined)).toEqual(want);
  });
  it('a changed history is a changed hash; none without a conversation', () => {
    expect(conversationHash({ history: [{ user: 'a' }, { assistant: 'b' }] })).not.toBe(
      conversationHash({ history: [{ user: 'a' }, { assistant: 'c' }] }),
    );
    expect(conversationHash({})).toBeUndefined();
  });
});

describe('the firing-turn table every reporter shows', () => {
  const row = (caseId: string, first?: (number | undefined)[], turns = 2) =>
    ({ caseId, ...(first ? { firingTurns: firingTurns(first, turns, 0.95) } : {}) }) as unknown as CaseArmSummary;
  it('a row per case with follow-ups, a column per turn of the longest', () => {
    const t = firingTurnTable([row('a', [1, 2, 2, undefined]), row('b'), row('c', [3], 3)], (r) => `${r.successes}/${r.n}`);
    expect(t).toEqual({
      head: ['case', 'n', 'by turn 1', 'by turn 2', 'by turn 3'],
      body: [
        ['a', '4', '1/4', '3/4', '—'],
        ['c', '1', '0/1', '0/1', '1/1'],
      ],
    });
  });
  it('none without a case with follow-ups', () => {
    expect(firingTurnTable([row('b')], () => '')).toBeUndefined();
  });
});

describe("a case's conversation as it loads", () => {
  const problems = (c: { history?: HistoryTurn[]; followUps?: string[]; by?: number }, negative = false, maxTurns = 8) =>
    conversationProblems(
      { id: 'c', history: c.history, followUps: c.followUps, expect: { skill: negative ? 'none' : 'alpha', by: c.by } },
      negative,
      maxTurns,
      (at, what) => ({ file: at.join('.'), what, todo: '' }),
    ).map((p) => `${p.file}: ${p.what}`);
  it.each<[string, Parameters<typeof problems>, string[]]>([
    ['a valid history and follow-ups', [{ history: [{ user: 'a' }, { assistant: 'b' }], followUps: ['c'], by: 2 }], []],
    [
      'starts with the assistant',
      [{ history: [{ assistant: 'b' }, { user: 'a' }] }],
      [expect.stringMatching(/^history\.0: .*turn 1 is the assistant's/)],
    ],
    ['two users in a row', [{ history: [{ user: 'a' }, { user: 'b' }] }], [expect.stringMatching(/^history\.1: .*turn 2 is the user's/)]],
    [
      'ends with the user',
      [{ history: [{ user: 'a' }, { assistant: 'b' }, { user: 'c' }] }],
      [expect.stringMatching(/^history\.2: .*ends with/)],
    ],
    ['an empty turn', [{ history: [{ user: ' ' }, { assistant: 'b' }] }], [expect.stringMatching(/^history\.0\.user: .*is empty/)]],
    ['an empty follow-up', [{ followUps: ['ok', ''] }], [expect.stringMatching(/^followUps\.1: .*follow-up 2 is empty/)]],
    [
      'more user turns than maxTurns',
      [{ followUps: ['a', 'b'] }, false, 2],
      [expect.stringMatching(/^followUps: .*3 user turns.*maxTurns \(2\)/)],
    ],
    ['as many as maxTurns', [{ followUps: ['a'] }, false, 2], []],
    ['by past the last turn', [{ followUps: ['a'], by: 3 }], [expect.stringMatching(/^expect\.by: .*past its last user turn \(2/)]],
    ['by 2 without follow-ups', [{ by: 2 }], [expect.stringMatching(/^expect\.by: /)]],
    ['by on a negative case', [{ by: 1 }, true], [expect.stringMatching(/^expect\.by: .*is negative/)]],
  ])('%s', (_, args, want) => {
    expect(problems(...args)).toEqual(want);
  });
});

describe('an agent that cannot take a history or follow-ups refuses such a case before anything starts', () => {
  const suite = (c: object) => ({ cases: [{ id: 'c', source: { file: 'cases/main.yaml', line: 3 }, ...c }] }) as unknown as CaseSuite;
  const history = [{ user: 'a' }, { assistant: 'b' }];
  /** An agent like Codex that would take a history only: what is still refused, and where to run it instead. */
  const historyOnly: AgentAdapter = { ...codex, conversation: { history: true } };
  const neither: AgentAdapter = { ...gemini, conversation: undefined };
  it.each([
    [
      'history only',
      { followUps: ['x'] },
      historyOnly,
      /^cases\/main\.yaml:3:1: case "c" has `followUps`, but Codex CLI cannot take follow-ups yet — run it with an agent that can \(claude-code, codex, gemini\), or remove `followUps`$/,
    ],
    ['history only', { history }, historyOnly, undefined],
    ['neither', { history, followUps: ['x'] }, neither, /case "c" has `history`, but Gemini CLI cannot take a history yet/],
    ['codex', { history, followUps: ['x'] }, codex, undefined],
    ['gemini', { history, followUps: ['x'] }, gemini, undefined],
    ['claude-code', { history, followUps: ['x'] }, claudeCode, undefined],
  ] as const)('%s: %j', (_, c, adapter, says) => {
    const problems = new ProblemList();
    checkConversation(adapter, suite(c), problems);
    if (says) expect(() => problems.throwIfAny()).toThrow(says);
    else expect(() => problems.throwIfAny()).not.toThrow();
  });
});

describe("Codex's history: the seeded thread and its session record", () => {
  const history = [
    { role: 'user' as const, text: 'I keep alpha records.' },
    { role: 'assistant' as const, text: 'Understood.' },
  ];
  const message = (role: string, text: string) =>
    JSON.stringify({ type: 'response_item', payload: { type: 'message', role, content: [{ type: 'input_text', text }] } });
  const seeded = seededRollout(history, '/ws');
  it('seeds the thread a trial in the workspace resumes, the turns as its messages', () => {
    const lines = seeded
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(lines[0]).toMatchObject({ type: 'session_meta', payload: { id: threadIdFor('/ws'), cwd: '/ws' } });
    expect(lines.slice(1).map((l) => l.payload.role)).toEqual(['user', 'assistant']);
  });
  it.each([
    [
      'the prompt after the history',
      seeded + [message('developer', 'x'), message('user', '<environment_context>…'), message('user', 'now create it')].join('\n'),
      { held: true },
    ],
    [
      'only what Codex injects after it',
      seeded + message('user', '<environment_context>…'),
      { held: false, detail: expect.stringMatching(/no user turn/) },
    ],
    [
      'a record that does not start with it',
      message('user', 'now create it'),
      { held: false, detail: expect.stringMatching(/does not start/) },
    ],
    ['no single record', undefined, { held: false, detail: expect.stringMatching(/not exactly one/) }],
  ])('%s', (_, rollout, want) => {
    expect(historyHeldInRollout(rollout, history)).toMatchObject(want);
  });
});

describe("the Gemini CLI's history: the seeded chat and the record it imports it into", () => {
  const history = [
    { role: 'user' as const, text: 'I keep alpha records.' },
    { role: 'assistant' as const, text: 'Understood.' },
  ];
  const seeded = '/h/history.jsonl';
  it('seeds a chat record of the turns, the assistant as the model', () => {
    const lines = seededChat(history)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(1).map((l) => [l.type, l.content])).toEqual([
      ['user', [{ text: 'I keep alpha records.' }]],
      ['gemini', 'Understood.'],
    ]);
  });
  const record = (messages: string[], withImport = true, userAfter = true) =>
    [
      { sessionId: 's', kind: 'main' },
      ...(withImport ? [{ id: 'i', type: 'info', content: `Imported session from ${seeded}` }] : []),
      { $set: { messages: messages.map((id) => ({ id })) } },
      ...(userAfter ? [{ id: 'new', type: 'user', content: [{ text: 'now create it' }] }] : []),
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
  it.each([
    ['the history before the first new user turn', record(['ctx', 'skillprobe-history-0', 'skillprobe-history-1']), { held: true }],
    ['only part of it', record(['ctx', 'skillprobe-history-1']), { held: false }],
    [
      'no new user turn',
      record(['ctx', 'skillprobe-history-0', 'skillprobe-history-1'], true, false),
      { held: false, detail: expect.stringMatching(/no user turn/) },
    ],
    ['a record of another session', record(['ctx'], false), undefined],
  ])('%s', (_, text, want) => {
    const found = historyHeldIn(text, history, seeded);
    if (want === undefined) expect(found).toBeUndefined();
    else expect(found).toMatchObject(want);
  });
});

describe("Claude Code's conversation: the seeded session, its record, the stream", () => {
  const ws = mkdtempSync(join(tmpdir(), 'sp-conv-'));
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  const history = [
    { role: 'user' as const, text: 'I keep alpha records.' },
    { role: 'assistant' as const, text: 'Understood.' },
  ];
  const seeded = seededSession(history, ws)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { uuid: string; parentUuid: string | null; sessionId: string; type: string });

  it('seeds each turn linked to the one before, under the session the trial resumes', () => {
    expect(seeded.map((e) => e.type)).toEqual(['user', 'assistant']);
    expect(seeded.map((e) => e.parentUuid)).toEqual([null, seeded[0]!.uuid]);
    expect(seeded.every((e) => e.sessionId === sessionIdFor(ws))).toBe(true);
  });

  const appended = (parent: string | null) => `${JSON.stringify({ type: 'user', uuid: 'new', parentUuid: parent, message: {} })}\n`;
  it.each([
    ['the first new user turn follows the history', () => appended(seeded[1]!.uuid), { held: true }],
    ['it follows nothing', () => appended(null), { held: false, detail: expect.stringMatching(/followed nothing/) }],
    ['it follows the history’s first turn', () => appended(seeded[0]!.uuid), { held: false }],
    ['no new user turn', () => '', { held: false, detail: expect.stringMatching(/no user turn/) }],
  ])('%s', (_, after, want) => {
    expect(historyHeld(seededSession(history, ws) + after(), history, ws)).toMatchObject(want);
  });

  const req = (conversation?: InvocationRequest['conversation']): InvocationRequest => ({
    prompt: 'now create it',
    model: 'sonnet',
    maxTurns: 3,
    cliRetries: 0,
    deadlineMs: 60_000,
    workspace: ws,
    home: ws,
    tmp: ws,
    harnessDir: ws,
    callerEnv: {},
    binary: 'claude',
    role: 'trial',
    ...(conversation ? { conversation } : {}),
  });
  it.each([
    [
      'one user message: the prompt as the last argument, no session kept',
      undefined,
      ['--no-session-persistence', '--', 'now create it'],
      [],
    ],
    [
      'follow-ups: turns on stdin, no session kept',
      { history: [] },
      ['--no-session-persistence', '--input-format', 'stream-json', '--replay-user-messages'],
      ['--resume', 'now create it'],
    ],
    [
      'a history: the seeded session resumed and kept',
      { history },
      ['--resume', sessionIdFor(ws), '--input-format', 'stream-json'],
      ['--no-session-persistence', 'now create it'],
    ],
  ])('%s', (_, conversation, has, hasNot) => {
    const { args } = claudeCode.invocation(req(conversation));
    const at = args.indexOf(has[0]!);
    expect(args.slice(at, at + has.length)).toEqual(has);
    for (const a of hasNot) expect(args).not.toContain(a);
  });

  it('marks each user turn where it starts (its echo, or a later init), keeps one init, and ends turns at their result lines', () => {
    const init = { type: 'system', subtype: 'init', cwd: '/ws', tools: ['Skill'], skills: ['alpha'], slash_commands: [] };
    const replay = (content: string) => ({ type: 'user', message: { role: 'user', content }, isReplay: true });
    const answer = (t: string) => ({
      type: 'assistant',
      message: { id: t, role: 'assistant', content: [{ type: 'text', text: t }] },
      parent_tool_use_id: null,
    });
    const done = { type: 'result', subtype: 'success', is_error: false, total_cost_usd: 0.1 };
    const lines = [init, replay('handle it'), answer('Which one?'), done, init, replay('the demo one'), answer('ok'), done].map((l) =>
      JSON.stringify(l),
    );
    const t = parseClaudeStream(lines.join('\n'));
    expect(t.events.map((e) => (e.kind === 'user_turn' ? `turn ${e.turn}: ${e.text}` : e.kind === 'other' ? e.type : e.kind))).toEqual([
      'init',
      'turn 1: handle it',
      'text',
      'result',
      'system/init',
      'turn 2: the demo one',
      'text',
      'result',
    ]);
    expect(lines.filter((l) => claudeStdin.endsTurn(l))).toHaveLength(2);
    // A turn whose model stalls before answering: the CLI has not echoed it yet, but its init opened it.
    const stalled = parseClaudeStream(lines.slice(0, 5).join('\n'));
    expect(stalled.events.filter((e) => e.kind === 'user_turn')).toEqual([
      { kind: 'user_turn', source: 'harness', turn: 1, text: 'handle it' },
      { kind: 'user_turn', source: 'harness', turn: 2, text: '' },
    ]);
    expect(JSON.parse(claudeStdin.userLine('the demo one'))).toEqual({
      type: 'user',
      message: { role: 'user', content: 'the demo one' },
    });
  });
});

describe('the simulator reads the conversation from the request and asks first', () => {
  const reminder = {
    type: 'text',
    text: '<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- alpha: Alpha.\n</system-reminder>',
  };
  const request = (...messages: object[]) => ({ model: 'm', tools: [{ name: 'Skill' }, { name: 'Read' }], messages });
  const first = { role: 'user', content: [reminder, { type: 'text', text: 'handle it' }] };
  const asked = { role: 'assistant', content: [{ type: 'text', text: 'Which one?' }] };
  const followUp = { role: 'user', content: [{ type: 'text', text: 'the demo one' }] };
  const skillCall = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'alpha' } }] };
  const skillResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: alpha' }] };

  it.each([
    ['the first turn', request(first), { userTurn: 1, turn: 0, earlier: [], prompt: 'handle it' }],
    [
      'a follow-up',
      request(first, asked, followUp),
      {
        userTurn: 2,
        turn: 0,
        earlier: [
          { role: 'user', text: 'handle it' },
          { role: 'assistant', text: 'Which one?' },
        ],
      },
    ],
    ['a tool result is no user turn', request(first, asked, followUp, skillCall, skillResult), { userTurn: 2, turn: 1 }],
    [
      "the CLI's nudge after an empty answer is no user turn",
      request(
        first,
        { role: 'assistant', content: [] },
        { role: 'user', content: '[Your previous response had no visible output. Continue.]' },
      ),
      { userTurn: 1, turn: 1 },
    ],
  ])('%s', (_, body, want) => {
    expect(anthropicView(body)).toMatchObject(want);
  });

  const profile = parseProfile({ seed: 1, rules: [{ case: 'c', do: [{ skill: 'alpha', args: 'x', onTurn: 2, ask: 'Which one?' }] }] });
  const reply = (body: object) => decideReply(profile, anthropicView(body), { key: 'k', caseId: 'c' });
  it('asks on the turns before its own, then acts', () => {
    expect(reply(request(first))).toEqual({ type: 'message', blocks: [{ type: 'text', text: 'Which one?' }] });
    expect(reply(request(first, asked, followUp))).toMatchObject({
      blocks: [expect.anything(), { type: 'skill', name: 'alpha', args: 'x' }],
    });
  });
  it('answers at once where the skill it asks for is not offered (the ablation arm)', () => {
    const ablation = (body: { tools: object[] }) => ({ ...body, tools: [{ name: 'Read' }] });
    expect(reply(ablation(request(first)))).toEqual({
      type: 'message',
      blocks: [{ type: 'text', text: expect.not.stringMatching(/Which one/) }],
    });
  });
  it('refuses `ask` without `onTurn`', () => {
    expect(() => parseProfile({ rules: [{ case: 'c', do: [{ answer: true, ask: 'Which?' }] }] })).toThrow(/give the behaviour `onTurn`/);
  });
});
