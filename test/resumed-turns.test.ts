import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { threadStartedIn } from '../src/agents/codex/parse.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { sessionStartedIn } from '../src/agents/gemini/parse.js';
import { turnMarkLine } from '../src/agents/turn-mark.js';
import type { AgentAdapter, Invocation, InvocationRequest, ResumedFollowUps } from '../src/agents/types.js';
import { trialStatus } from '../src/grade/status.js';
import { followUpDue } from '../src/grade/turns.js';
import type { TrialMeta } from '../src/run/schema.js';
import { endedCleanly, joinedTurns, runResumedTurns } from '../src/runner/resumed-turns.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';

const lines = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const resumed = (a: AgentAdapter): ResumedFollowUps => {
  const take = a.conversation?.followUps;
  if (take?.via !== 'resume') throw new Error(`${a.id} takes follow-ups as resumed processes`);
  return take;
};

const req = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
  prompt: 'handle it',
  model: 'm',
  maxTurns: 8,
  cliRetries: 0,
  deadlineMs: 60_000,
  workspace: '/t/ws',
  home: '/t/home',
  tmp: '/t/tmp',
  harnessDir: '/t/harness',
  callerEnv: {},
  binary: '/bin/agent',
  role: 'trial',
  ...over,
});
const history = { history: [{ role: 'user' as const, text: 'earlier' }] };

describe('the process each follow-up is', () => {
  const flags = ['--json', '--strict-config', '--skip-git-repo-check', '--ignore-rules'];
  it.each([
    ['codex, lab', codex, req(), ['exec', 'resume', ...flags, '--', 'T-1', 'the demo one']],
    ['codex, lab, after a history', codex, req({ conversation: history }), ['exec', 'resume', ...flags, '--', 'T-1', 'the demo one']],
    [
      'codex, field: the refusing hook trusted',
      codex,
      req({ context: 'field' }),
      ['exec', 'resume', ...flags, '--dangerously-bypass-hook-trust', '--', 'T-1', 'the demo one'],
    ],
  ])('%s', (_, adapter, r, args) => {
    const inv = resumed(adapter).resumeInvocation(r, 'T-1', 'the demo one');
    expect(inv.args).toEqual(args);
    expect(inv.env).toEqual(adapter.invocation(r).env);
  });

  it.each([
    ['without a history', req()],
    ['after a history: resumed, never the seeded file again (the CLI refuses both)', req({ conversation: history })],
  ])('gemini, %s', (_, r) => {
    const first = gemini.invocation(r).args;
    const inv = resumed(gemini).resumeInvocation(r, 'S-1', '-the demo one');
    // The first turn's argv, its session flag replaced by `--resume <id>`, its prompt by the follow-up.
    const common = first.filter((a, i) => a !== '--session-file' && first[i - 1] !== '--session-file' && !a.startsWith('--prompt='));
    expect(inv.args).toEqual([...common, '--resume', 'S-1', '--prompt=-the demo one']);
    expect(inv.env).toEqual(gemini.invocation(r).env);
  });

  it.each([
    ['codex', threadStartedIn, lines({ type: 'thread.started', thread_id: 'T-1' }, { type: 'turn.started' }), 'T-1'],
    ['codex, no thread', threadStartedIn, lines({ type: 'turn.started' }), undefined],
    ['gemini', sessionStartedIn, lines({ type: 'init', session_id: 'S-1', model: 'm' }, { type: 'result', status: 'success' }), 'S-1'],
    ['gemini, a cut line first', sessionStartedIn, '{"type":"ini\n' + lines({ type: 'init', session_id: 'S-2' }), 'S-2'],
  ])('the session a turn names: %s', (_, sessionOf, stdout, id) => {
    expect(sessionOf(stdout)).toBe(id);
  });
});

const of = <K extends TranscriptEvent['kind']>(t: Transcript, kind: K) =>
  t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);

describe('a transcript of several processes, between user-turn marks', () => {
  const nonces = { alpha: 'NONCE-ALPHA' };
  const codexTurn = (thread: string, ...items: object[]) =>
    lines({ type: 'thread.started', thread_id: thread }, { type: 'turn.started' }, ...items, {
      type: 'turn.completed',
      usage: { input_tokens: 10, output_tokens: 2 },
    });
  const command = (id: string, cmd: string, output: string) => [
    { type: 'item.started', item: { id, type: 'command_execution', command: cmd, status: 'in_progress' } },
    { type: 'item.completed', item: { id, type: 'command_execution', command: cmd, aggregated_output: output, exit_code: 0 } },
  ];
  const message = (id: string, text: string) => ({ type: 'item.completed', item: { id, type: 'agent_message', text } });
  const turn1 = codexTurn('T-1', ...command('item_0', 'ls', 'notes.txt'), message('item_1', 'Which alpha record do you mean?'));
  const turn2 = codexTurn(
    'T-1',
    ...command('item_0', 'cat /t/ws/.agents/skills/alpha/SKILL.md', `# alpha\n${nonces.alpha}`),
    message('item_1', 'Plan: alpha create --name demo'),
  );
  const raw = turnMarkLine(1, 'handle it') + turn1 + turnMarkLine(2, 'the demo one') + turn2;

  it('Codex: each process numbers its items afresh, the ids stay apart, one init, the skill fires on turn 2', () => {
    const t = codex.parse(raw, { evidence: { skillNonces: nonces }, exitCode: 0 });
    expect(t.warnings).toEqual([]);
    expect(of(t, 'user_turn')).toEqual([
      { kind: 'user_turn', source: 'harness', turn: 1, text: 'handle it' },
      { kind: 'user_turn', source: 'harness', turn: 2, text: 'the demo one' },
    ]);
    expect(of(t, 'init')).toHaveLength(1);
    expect(of(t, 'tool_call').map((c) => [c.id, c.intent, c.skill])).toEqual([
      ['item_0', 'other', undefined],
      ['2/item_0', 'skill', 'alpha'],
    ]);
    expect(of(t, 'tool_result').map((r) => [r.id, r.text])).toEqual([
      ['item_0', 'notes.txt'],
      ['2/item_0', expect.stringContaining(nonces.alpha)],
    ]);
    expect(of(t, 'text').map((e) => e.messageId)).toEqual(['item_1', '2/item_1']);
    expect(of(t, 'result').map((r) => [r.status, r.turns])).toEqual([
      ['success', 1],
      ['success', 2],
    ]);
  });

  it('Codex: a follow-up is due after turn 1 (a question), never after turn 2 (the skill read, proven by its secret)', () => {
    const due = (stdout: string) =>
      followUpDue(codex.parse(stdout, { evidence: { skillNonces: nonces }, exitCode: null }), codex.skillsFolder);
    expect([due(turn1), due(turn2)]).toEqual([true, false]);
    // Read without the planted secret, the skill's read is just a command: the runner must hand the parser the evidence.
    expect(followUpDue(codex.parse(turn2), codex.skillsFolder)).toBe(true);
  });

  it('Gemini: one init, a later process’s tool ids carry its turn, the skill fires on turn 2', () => {
    const geminiTurn = (...events: object[]) =>
      lines({ type: 'init', session_id: 'S-1', model: 'm' }, ...events, { type: 'result', status: 'success', stats: {} });
    const ask = geminiTurn({ type: 'message', role: 'assistant', content: 'Which one?', delta: true });
    const fire = geminiTurn(
      { type: 'tool_use', tool_name: 'activate_skill', tool_id: 'activate_skill_0', parameters: { name: 'alpha' } },
      { type: 'tool_result', tool_id: 'activate_skill_0', status: 'success', output: 'Skill **alpha** activated.' },
      { type: 'message', role: 'assistant', content: 'Plan: alpha create', delta: true },
    );
    const t = gemini.parse(turnMarkLine(1, 'handle it') + ask + turnMarkLine(2, 'the demo one') + fire);
    expect(of(t, 'user_turn').map((e) => e.turn)).toEqual([1, 2]);
    expect(of(t, 'init')).toHaveLength(1);
    expect(of(t, 'tool_call').map((c) => [c.id, c.skill])).toEqual([['2/activate_skill_0', 'alpha']]);
    expect(of(t, 'skill_load').map((l) => [l.callId, l.name, l.status])).toEqual([['2/activate_skill_0', 'alpha', 'loaded']]);
    expect(of(t, 'text').map((e) => e.text)).toEqual(['Which one?', 'Plan: alpha create']);
  });
});

const meta = (over: Partial<TrialMeta> = {}): TrialMeta => ({
  exitCode: 0,
  signal: null,
  wallMs: 100,
  quietMs: 5,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  outputBytes: 10,
  ...over,
});

describe('the trial’s process facts from its turns’ processes', () => {
  it.each([
    ['exit 0', meta(), true],
    ['exit 1', meta({ exitCode: 1 }), false],
    ['a signal', meta({ exitCode: null, signal: 'SIGKILL' }), false],
    ['the deadline', meta({ timedOut: true }), false],
    ['Ctrl-C', meta({ interrupted: true }), false],
    ['not started', meta({ spawnError: 'ENOENT' }), false],
    ['the output cap', meta({ outputTruncated: true }), false],
    ['the tool-call limit', meta({ turnLimitHit: true }), false],
  ])('a turn that ended by %s ended cleanly: %s', (_, m, clean) => {
    expect(endedCleanly(m)).toBe(clean);
  });

  it('how the last ended, the time and output of all, from the first one’s start', () => {
    const joined = joinedTurns([
      meta({ wallMs: 100, outputBytes: 10 }),
      meta({ wallMs: 40, outputBytes: 3, exitCode: 1, stderrTail: 'boom', startedAt: '2026-01-01T00:00:01.000Z', quietMs: 40 }),
    ]);
    expect(joined).toEqual(
      meta({ wallMs: 140, outputBytes: 13, exitCode: 1, stderrTail: 'boom', startedAt: '2026-01-01T00:00:00.000Z', quietMs: 40 }),
    );
  });
});

describe('a follow-up sent and never answered is missing data, never a miss', () => {
  const events = (...more: TranscriptEvent[]): Transcript => ({
    agent: 'codex',
    warnings: [],
    events: [
      { kind: 'user_turn', source: 'harness', turn: 1, text: 'handle it' },
      { kind: 'init', source: 'system', model: 'm', cliVersion: '', cwd: '/ws', tools: [], skills: [] },
      { kind: 'text', source: 'assistant', text: 'Which one?' },
      { kind: 'result', source: 'system', status: 'success', turns: 1 },
      ...more,
    ],
  });
  const turn2: TranscriptEvent = { kind: 'user_turn', source: 'harness', turn: 2, text: 'the demo one' };
  const status = (t: Transcript, m: TrialMeta) => trialStatus(t, m, { arm: 'skill', family: ['alpha'], isolationProblem: () => undefined });
  it.each([
    ['its process crashed', events(turn2), meta({ exitCode: 1 }), 'infra_error', /user turn 2 got no answer \(exit 1\)/],
    ['its process was killed', events(turn2), meta({ exitCode: null, signal: 'SIGKILL' }), 'infra_error', /exit SIGKILL/],
    [
      'its process hung to the deadline, after the model began',
      events(turn2, { kind: 'text', source: 'assistant', text: 'Sure' }),
      meta({ timedOut: true, quietMs: 10 }),
      'infra_error',
      /user turn 2 got no answer \(deadline/,
    ],
    [
      'its process failed as the deadline struck, the model silent since the follow-up',
      events(
        turn2,
        { kind: 'error', source: 'system', errorKind: 'connection', message: 'idle timeout waiting for SSE', retrying: false },
        { kind: 'result', source: 'system', status: 'api_error', turns: 2 },
      ),
      meta({ timedOut: true, quietMs: 60, wallMs: 8000 }),
      'infra_error',
      /the model sent nothing before the harness deadline/,
    ],
    ['Ctrl-C', events(turn2), meta({ interrupted: true }), 'killed', /stopped by the user/],
    ['answered', events(turn2, { kind: 'result', source: 'system', status: 'success', turns: 2 }), meta(), 'ok', undefined],
    ['no follow-up was due', events(), meta(), 'ok', undefined],
  ])('%s', (_, t, m, want, detail) => {
    const v = status(t, m);
    expect(v.status).toBe(want);
    if (detail) expect(v.detail).toMatch(detail);
  });
});

describe('the runner’s turns, with stand-in processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-resumed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A process that prints `out` (its last line left without a newline when `cut`), then exits with `code`, or hangs. */
  const proc = (out: string, end: 'exit 0' | 'exit 3' | 'hang'): Invocation => ({
    file: process.execPath,
    args: [
      '-e',
      `process.stdout.write(${JSON.stringify(out)}); ${end === 'hang' ? 'setInterval(() => {}, 1000)' : `process.exitCode = ${end.slice(5)}`}`,
    ],
    env: { PATH: process.env.PATH ?? '' },
  });
  const asks = lines({ type: 'thread.started', thread_id: 'T-1' }, { type: 'ask' });
  /** Follow-ups by their text: how the stand-in for that turn behaves. */
  const behaviours: Record<string, Invocation> = {
    'ask again': proc(lines({ type: 'ask' }), 'exit 0'),
    'fire now': proc(lines({ type: 'fired' }), 'exit 0'),
    crash: proc('{"type":"half', 'exit 3'),
    hang: proc(lines({ type: 'started' }), 'hang'),
    'no newline': proc('{"type":"ask"}', 'exit 0'),
  };
  const take: ResumedFollowUps = {
    via: 'resume',
    sessionOf: threadStartedIn,
    resumeInvocation: (_, session, text) => {
      expect(session).toBe('T-1');
      return behaviours[text]!;
    },
  };
  let n = 0;
  const asked = (s: string) => s.includes('"ask"');
  const run = async (
    followUps: string[],
    opts: {
      first?: Invocation;
      deadlineMs?: number;
      signal?: AbortSignal;
      due?: (s: string) => boolean;
      /** Aborted (Ctrl-C) once the transcript holds the first turn's ask, whatever the machine's load. */
      stopOnceAsked?: AbortController;
    } = {},
  ) => {
    const file = join(dir, `${++n}.jsonl`);
    const stop = opts.stopOnceAsked;
    const watch =
      stop &&
      setInterval(() => {
        if (existsSync(file) && asked(readFileSync(file, 'utf8'))) stop.abort();
      }, 20);
    const signal = stop?.signal ?? opts.signal;
    const m = await runResumedTurns(
      { take, req: req({ prompt: 'handle it' }), first: opts.first ?? proc(asks, 'exit 0'), followUps, due: opts.due ?? asked },
      {
        cwd: dir,
        deadlineMs: opts.deadlineMs ?? 20_000,
        attempt: 1,
        stdoutFile: file,
        maxOutputBytes: 1 << 20,
        ...(signal ? { signal } : {}),
      },
    ).finally(() => clearInterval(watch));
    return { meta: m, raw: readFileSync(file, 'utf8') };
  };

  it('sends follow-ups while they are due, each process’s bytes kept in order after its mark', async () => {
    const { meta: m, raw } = await run(['ask again', 'fire now', 'never sent']);
    expect(raw).toBe(
      turnMarkLine(1, 'handle it') +
        asks +
        turnMarkLine(2, 'ask again') +
        lines({ type: 'ask' }) +
        turnMarkLine(3, 'fire now') +
        lines({ type: 'fired' }),
    );
    expect(endedCleanly(m)).toBe(true);
  });

  it('a last line without a newline keeps its bytes, and the next mark starts a line of its own', async () => {
    const { raw } = await run(['no newline', 'fire now']);
    expect(raw).toBe(
      turnMarkLine(1, 'handle it') +
        asks +
        turnMarkLine(2, 'no newline') +
        '{"type":"ask"}\n' +
        turnMarkLine(3, 'fire now') +
        lines({ type: 'fired' }),
    );
  });

  it('a follow-up process that crashes ends the conversation there, with its exit', async () => {
    const { meta: m, raw } = await run(['crash', 'fire now']);
    expect(raw).toBe(turnMarkLine(1, 'handle it') + asks + turnMarkLine(2, 'crash') + '{"type":"half');
    expect(m).toMatchObject({ exitCode: 3, timedOut: false });
  });

  it('a follow-up process that hangs is stopped at what is left of the trial’s deadline', async () => {
    const { meta: m, raw } = await run(['hang', 'fire now'], { deadlineMs: 1500 });
    expect(m.timedOut).toBe(true);
    expect(m.wallMs).toBeLessThan(1500 + 2500);
    expect(raw.endsWith(turnMarkLine(2, 'hang') + lines({ type: 'started' }))).toBe(true);
  });

  it('Ctrl-C during the first turn starts no follow-up', async () => {
    // Once the hanging first turn has asked: a fixed 300 ms came before a loaded machine's Node had printed anything.
    const { meta: m, raw } = await run(['fire now'], { first: proc(asks, 'hang'), stopOnceAsked: new AbortController() });
    expect(m.interrupted).toBe(true);
    expect(raw).toBe(turnMarkLine(1, 'handle it') + asks);
  });

  it('Ctrl-C once the first turn ended cleanly, a follow-up due: none starts, and the trial is interrupted, not ended', async () => {
    const ctl = new AbortController();
    // The user's Ctrl-C lands as the harness reads the finished turn, before the follow-up's process starts.
    const due = (s: string) => (ctl.abort(), asked(s));
    const { meta: m, raw } = await run(['fire now'], { signal: ctl.signal, due });
    expect(m).toMatchObject({ interrupted: true, exitCode: 0 });
    expect(raw).toBe(turnMarkLine(1, 'handle it') + asks);
  });

  it('Ctrl-C after the last turn the model needed: the conversation ended, nothing interrupted', async () => {
    const ctl = new AbortController();
    const { meta: m } = await run(['fire now', 'never sent'], {
      signal: ctl.signal,
      due: (s) => (s.includes('"fired"') && ctl.abort(), asked(s)),
    });
    expect(m.interrupted).toBe(false);
  });

  it('a first turn that names no session: the follow-up cannot go, which is missing data', async () => {
    const { meta: m } = await run(['fire now'], { first: proc(lines({ type: 'ask' }), 'exit 0') });
    expect(m.spawnError).toMatch(/no session/);
  });
});
