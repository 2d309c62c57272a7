import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gemini } from '../src/agents/gemini/adapter.js';
import { notRegistered, parseGeminiStream } from '../src/agents/gemini/parse.js';
import { trialStatus } from '../src/grade/status.js';
import type { ShownEvidence, TrialMeta } from '../src/run/schema.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/codex-gemini');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const of = <K extends TranscriptEvent['kind']>(t: Transcript, kind: K) =>
  t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);

/** What the arm's listing said: the evidence every trial is parsed with. */
const SHOWN: ShownEvidence = { source: 'gemini skills list (once per arm)', skills: ['mock-skill'], contextFiles: [] };
const parse = (raw: string, exitCode: number | null = 0) => parseGeminiStream(raw, { evidence: { shown: SHOWN }, exitCode });

function meta(exitCode: number | null, extra: Partial<TrialMeta> = {}): TrialMeta {
  return {
    exitCode,
    signal: null,
    wallMs: 100,
    timedOut: false,
    interrupted: false,
    stderrTail: '',
    attempt: 1,
    startedAt: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

const statusOf = (t: Transcript, m: TrialMeta) =>
  trialStatus(t, m, { arm: 'skill', family: ['mock-skill'], isolationProblem: gemini.grading.isolationProblem }).status;

describe('Gemini stream parser on the recorded streams', () => {
  it('a skill activation: init from the listing, text runs joined, the call, its load with the folder, success', () => {
    const t = parse(read('gemini-events-skill.jsonl'));
    expect(t.warnings).toEqual([]);
    expect(t.agent).toBe('gemini');
    expect(of(t, 'init')).toEqual([
      {
        kind: 'init',
        source: 'system',
        model: 'gemini-2.5-flash',
        cliVersion: '',
        cwd: '',
        tools: [],
        skills: ['mock-skill'],
        skillsFrom: SHOWN.source,
        contextFiles: [],
      },
    ]);
    const texts = of(t, 'text');
    expect(texts.map((e) => e.source)).toEqual(['assistant', 'assistant']);
    expect(texts[0]!.text).toBe('Activating the mock-skill skill.');
    // Two deltas, one text event.
    expect(texts[1]!.text).toMatch(/^MOCK_FINAL: skill result: .*<\/instructions>.*└───SKILL\.md\\$/s);
    expect(of(t, 'tool_call')).toEqual([
      expect.objectContaining({
        name: 'activate_skill',
        intent: 'skill',
        skill: 'mock-skill',
        id: 'activate_skill__activate_skill_1796031981372_0',
        input: { name: 'mock-skill' },
      }),
    ]);
    expect(of(t, 'skill_load')).toEqual([
      {
        kind: 'skill_load',
        source: 'harness',
        callId: 'activate_skill__activate_skill_1796031981372_0',
        name: 'mock-skill',
        status: 'loaded',
        path: '/ws/.agents/skills/mock-skill',
      },
    ]);
    expect(of(t, 'tool_result')[0]).toMatchObject({ isError: false, text: expect.stringContaining('Skill **mock-skill** activated.') });
    expect(of(t, 'result')).toEqual([
      {
        kind: 'result',
        source: 'system',
        status: 'success',
        durationMs: 92,
        usage: { inputTokens: 2000, cachedInputTokens: 0, outputTokens: 40 },
      },
    ]);
    expect(of(t, 'error')).toEqual([]);
    expect(of(t, 'other')).toEqual([{ kind: 'other', source: 'harness', type: 'message/user' }]);
    expect(statusOf(t, meta(0))).toBe('ok');
  });

  it('the result’s stats are the usage: input_tokens is all input, cached its cached part; no cache writes are said', () => {
    const raw = read('gemini-events-skill.jsonl').replace(
      '"stats":{"total_tokens":2040,"input_tokens":2000,"output_tokens":40,"cached":0,"input":2000,',
      '"stats":{"total_tokens":2040,"input_tokens":2000,"output_tokens":40,"cached":1500,"input":500,',
    );
    expect(of(parse(raw), 'result')[0]!.usage).toEqual({ inputTokens: 2000, cachedInputTokens: 1500, outputTokens: 40 });
  });

  it('a read_file of a SKILL.md is a read, not a skill call', () => {
    const t = parse(read('gemini-events-readfile-skill.jsonl'));
    expect(t.warnings).toEqual([]);
    expect(of(t, 'tool_call').map((c) => [c.intent, c.path])).toEqual([['read', '/ws/.gemini/skills/proj-skill/SKILL.md']]);
    expect(of(t, 'skill_load')).toEqual([]);
    expect(of(t, 'text')).toHaveLength(1);
    expect(of(t, 'result')[0]!.status).toBe('success');
  });

  it('the skill tool not offered: a denied load the isolation check reads as a wrong tool lock', () => {
    const t = parse(read('gemini-events-skill-DEFAULT-POLICY-not-registered.jsonl'));
    const load = of(t, 'skill_load')[0]!;
    expect(load).toMatchObject({ name: 'mock-skill', status: 'denied' });
    expect(load.detail).toMatch(/^tool_not_registered: Tool "activate_skill" not found/);
    expect(load.path).toBeUndefined();
    expect(notRegistered(load)).toBe(true);
    expect(of(t, 'tool_result')[0]).toMatchObject({ isError: true });
    expect(statusOf(t, meta(0))).toBe('isolation_error');
  });
});

/** One measured case of gemini-events-errors.txt: its stdout lines and the exit code it measured. */
interface ErrorCase {
  name: string;
  rc: number;
  stdout: string;
}

/** Splits the measurements file at its `### name (rc=N)` headers; each case's stdout ends at its stderr. */
function errorCases(text: string): ErrorCase[] {
  return text
    .split(/^### /m)
    .slice(1)
    .map((section) => {
      const [header = '', ...lines] = section.split('\n');
      const stderrAt = lines.findIndex((l) => l.startsWith('-- stderr'));
      const stdout = (stderrAt < 0 ? lines : lines.slice(0, stderrAt)).filter((l) => l.startsWith('{"type":'));
      return { name: header.split(' (')[0]!.trim(), rc: Number(/\brc=(\d+)/.exec(header)?.[1]), stdout: stdout.join('\n') };
    });
}

/**
 * The measurements kept each stream from the prompt on: a real one begins with init (the CLI prints it before the
 * prompt, as the end-to-end runs show), so a case whose CLI got that far gets it back. rc 124 is the measuring
 * script's `timeout` killing the CLI: here, the harness deadline.
 */
function asTrial(c: ErrorCase): { t: Transcript; meta: TrialMeta } {
  const init = '{"type":"init","timestamp":"2026-11-30T09:37:50.280Z","session_id":"s","model":"gemini-2.5-flash"}';
  const raw = c.stdout ? `${init}\n${c.stdout}\n` : '';
  const killed = c.rc === 124;
  const m = killed ? meta(null, { signal: 'SIGTERM', timedOut: true, wallMs: 30_000 }) : meta(c.rc);
  return { t: parse(raw, m.exitCode), meta: m };
}

describe('Gemini errors as measured: each case maps to the trial status it must get', () => {
  const cases = errorCases(read('gemini-events-errors.txt'));

  // [case, trial status, result status or null for none, HTTP status, error kind of the last error]
  const table: [string, string, string | null, number | undefined, string | undefined][] = [
    ['g12-e429', 'infra_error', 'api_error', 429, 'rate_limit'],
    ['g12-e500', 'infra_error', 'api_error', 500, 'server_error'],
    ['g12-e503', 'infra_error', 'api_error', 503, 'overloaded'],
    ['g12-e400', 'agent_error', 'api_error', 400, 'unknown'],
    ['g12-e401', 'agent_error', 'api_error', 401, 'authentication_failed'],
    ['g12-e403', 'agent_error', 'api_error', 403, 'authentication_failed'],
    ['g12-cut', 'infra_error', 'api_error', undefined, 'connection'],
    ['g12-empty', 'infra_error', 'api_error', undefined, 'server_error'],
    ['g13-e429-default', 'infra_error', 'api_error', 429, 'rate_limit'],
    ['g13-e500-default', 'infra_error', 'api_error', 500, 'server_error'],
    // Killed at the deadline before the model said anything: a hung API, missing data.
    ['g14-hang', 'infra_error', null, undefined, undefined],
    // A stream that stalled after its first words: the reply never came, so the model has not acted yet.
    ['g15-slow', 'infra_error', null, undefined, undefined],
    ['g15-slow5s', 'ok', 'success', undefined, undefined],
    ['g10-loop', 'max_turns', 'max_turns', undefined, undefined],
    // The CLI's loop detection stops the model and says so as a warning: the trial ended normally.
    ['g11-loopdetect', 'ok', 'success', undefined, 'unknown'],
    ['g9-yolo', 'agent_error', null, undefined, undefined],
    ['json output, 429', 'agent_error', null, undefined, undefined],
    ['g2-untrusted', 'agent_error', null, undefined, undefined],
    ['g9-yolo with security.disableYoloMode=true', 'agent_error', null, undefined, undefined],
  ];

  it('covers every measured case', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(table.map((r) => r[0]).sort());
  });

  it.each(table)('%s → %s', (name, status, resultStatus, httpStatus, errorKind) => {
    const c = cases.find((x) => x.name === name)!;
    const { t, meta: m } = asTrial(c);
    expect(t.warnings).toEqual([]);
    const result = of(t, 'result')[0];
    expect(result?.status ?? null).toBe(resultStatus);
    expect(result?.httpStatus).toBe(httpStatus);
    expect(of(t, 'error').at(-1)?.errorKind).toBe(errorKind);
    expect(statusOf(t, m)).toBe(status);
  });

  it('the HTTP status comes from the message when it says it, else from the exit code', () => {
    const c = cases.find((x) => x.name === 'g12-e503')!;
    expect(of(asTrial(c).t, 'result')[0]!.httpStatus).toBe(503);
    // Without the exit code the 503 cannot be recovered: the message names no status.
    expect(of(parse(c.stdout, 1), 'result')[0]!.httpStatus).toBeUndefined();
    // The CLI's own 429 hint names it even without the exit code.
    expect(of(parse(cases.find((x) => x.name === 'g12-e429')!.stdout, null), 'result')[0]!.httpStatus).toBe(429);
  });

  it('the turn limit keeps its message and the model text before it', () => {
    const { t } = asTrial(cases.find((x) => x.name === 'g10-loop')!);
    expect(of(t, 'result')[0]!.message).toMatch(/^Reached max session turns/);
    expect(of(t, 'text').map((e) => e.text)).toEqual(['turn 0', 'turn 1', 'turn 2']);
    expect(of(t, 'tool_call').map((c) => c.intent)).toEqual(['other', 'other', 'other']);
  });

  it('the first words of a reply that never finished are not the model’s text', () => {
    const { t } = asTrial(cases.find((x) => x.name === 'g15-slow')!);
    expect(of(t, 'text')).toEqual([]);
    expect(t.events.at(-1)).toEqual({ kind: 'other', source: 'assistant', type: 'unfinished_text' });
    // Followed by anything the CLI said after them, the same words stay text.
    const cut = asTrial(cases.find((x) => x.name === 'g12-cut')!).t;
    expect(of(cut, 'text').map((e) => e.text)).toEqual(['partial...']);
  });

  it('a loop-detection warning is not a retry and not a service fault', () => {
    const { t } = asTrial(cases.find((x) => x.name === 'g11-loopdetect')!);
    expect(of(t, 'error')).toEqual([
      { kind: 'error', source: 'system', errorKind: 'unknown', message: 'Loop detected, stopping execution', retrying: false },
    ]);
    // Two deltas in a row are one text event.
    expect(of(t, 'text').at(-1)!.text).toBe('turn 4turn 4');
  });
});

describe('Gemini stream parser on other input', () => {
  const init = '{"type":"init","session_id":"s","model":"m"}';
  const line = (o: object) => JSON.stringify(o);

  it('a name outside the skill list is an unknown skill; a policy refusal is denied', () => {
    const raw = [
      init,
      line({ type: 'tool_use', tool_name: 'activate_skill', tool_id: 'a', parameters: { name: 'nope' } }),
      line({
        type: 'tool_result',
        tool_id: 'a',
        status: 'error',
        output: 'params/name must be equal to one of the allowed values',
        error: { type: 'invalid_tool_params', message: 'params/name must be equal to one of the allowed values' },
      }),
      line({ type: 'tool_use', tool_name: 'activate_skill', tool_id: 'b', parameters: { name: 'mock-skill' } }),
      line({
        type: 'tool_result',
        tool_id: 'b',
        status: 'error',
        output: '',
        error: { type: 'policy_violation', message: 'Tool execution denied by policy.' },
      }),
    ].join('\n');
    const loads = of(parse(raw), 'skill_load');
    expect(loads.map((l) => [l.name, l.status, l.detail])).toEqual([
      ['nope', 'unknown', 'invalid_tool_params: params/name must be equal to one of the allowed values'],
      ['mock-skill', 'denied', 'policy_violation: Tool execution denied by policy.'],
    ]);
    expect(of(parse(raw), 'tool_result')[1]!.text).toBe('Tool execution denied by policy.');
  });

  it('a read by absolute_path is a read too', () => {
    const t = parse(
      [
        init,
        line({ type: 'tool_use', tool_name: 'read_file', tool_id: 'r', parameters: { absolute_path: '/w/.agents/skills/x/SKILL.md' } }),
      ].join('\n'),
    );
    expect(of(t, 'tool_call')[0]).toMatchObject({ intent: 'read', path: '/w/.agents/skills/x/SKILL.md' });
  });

  it('the turn limit the loop recovery hits ends as max_turns, though the CLI says success', () => {
    const raw = [
      init,
      line({ type: 'message', role: 'assistant', content: 'x', delta: true }),
      line({ type: 'error', severity: 'error', message: 'Maximum session turns exceeded' }),
      line({ type: 'result', status: 'success', stats: {} }),
    ].join('\n');
    expect(of(parse(raw), 'result')[0]).toMatchObject({ status: 'max_turns' });
  });

  it('a CLI error that is not the API is other_error; no cost is ever claimed', () => {
    const raw = [
      init,
      line({
        type: 'result',
        status: 'error',
        error: { type: 'FatalToolExecutionError', message: 'Error executing tool x: disk full' },
        stats: { duration_ms: 5 },
      }),
    ].join('\n');
    expect(of(parse(raw, 54), 'result')).toEqual([
      { kind: 'result', source: 'system', status: 'other_error', message: 'Error executing tool x: disk full', durationMs: 5 },
    ]);
  });

  it('a refused connection is a connection error, whatever the exit code', () => {
    const raw = [
      init,
      line({
        type: 'result',
        status: 'error',
        error: { type: 'unknown', message: '[API Error: exception TypeError: fetch failed sending request]' },
      }),
    ].join('\n');
    expect(of(parse(raw, 1), 'error')[0]).toMatchObject({ errorKind: 'connection', httpStatus: undefined });
  });

  it('without the listing evidence the init lists nothing and says nothing of where from', () => {
    const init0 = of(parseGeminiStream(init), 'init')[0]!;
    expect(init0.skills).toEqual([]);
    expect(init0.skillsFrom).toBeUndefined();
  });

  it('turns a truncated last line into a warning and keeps everything before it', () => {
    const good = read('gemini-events-skill.jsonl');
    const cut = good.slice(0, good.lastIndexOf('{"type":"result"') + 30);
    const t = parse(cut);
    expect(t.warnings).toEqual([{ line: 8, message: 'truncated final line (process ended mid-write)' }]);
    expect(of(t, 'skill_load')).toHaveLength(1);
    expect(of(t, 'result')).toEqual([]);
  });

  it('warns on garbage in the middle, keeps unknown event types as other', () => {
    const t = parse([init, 'not json', '[1]', line({ type: 'future_event' }), line({ type: 'result', status: 'success' })].join('\n'));
    expect(t.warnings).toEqual([
      { line: 2, message: 'line is not valid JSON' },
      { line: 3, message: 'line is JSON but not an object' },
    ]);
    expect(t.events.map((e) => e.kind)).toEqual(['init', 'other', 'result']);
  });

  it('handles empty input', () => {
    expect(parse('')).toEqual({ agent: 'gemini', events: [], warnings: [] });
  });
});
