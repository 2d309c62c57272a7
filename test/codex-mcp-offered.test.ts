import { describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import { SESSION_SOURCE, shownInSession } from '../src/agents/codex/session.js';
import { trialStatus, unofferedServerProblem } from '../src/grade/status.js';
import type { StoredMcpServer, TrialEvidence, TrialMeta } from '../src/run/schema.js';
import { trialMeta } from './run-fixtures.js';

/**
 * What a Codex trial's model was offered of its MCP servers: its request names a server's deferred namespace, never
 * its tools (measured on 0.171.0, docs/cli-facts.md), and its session record holds that text; a server that started
 * but whose listing came back after the request was made is not named, and the trial is missing data.
 */
const rollout = (...entries: object[]) => entries.map((e) => JSON.stringify(e)).join('\n');
const developer = (...texts: string[]) => ({
  type: 'response_item',
  payload: { type: 'message', role: 'developer', content: texts.map((text) => ({ type: 'input_text', text })) },
});
/** The `<tools>` part of Codex's developer message, as 0.171.0 wrote it. */
const tools = (...servers: string[]) => `<tools>\nDeferred tool namespaces:\n${servers.map((s) => `- mcp__${s}\n`).join('')}</tools>`;

describe('the MCP servers a Codex session record says its request offered', () => {
  /** Code mode's tools, sent as input (the record then holds the request's `<tools>` part too). */
  const TOOLS_AS_INPUT = { type: 'response_item', payload: { type: 'additional_tools', role: 'developer', tools: [] } };
  const TURN = { type: 'turn_context', payload: { model: 'sim' } };
  const user = (text: string) => ({
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
  it.each<[string, string, string[] | undefined]>([
    [
      'both servers named',
      rollout(TOOLS_AS_INPUT, developer('<permissions instructions>…</permissions instructions>', tools('issues', 'jira')), TURN),
      ['issues', 'jira'],
    ],
    ['one left out (its listing came late)', rollout(TOOLS_AS_INPUT, developer(tools('jira')), TURN), ['jira']],
    ['no `<tools>` part: none offered', rollout(TOOLS_AS_INPUT, developer('You are Codex.'), TURN), []],
    [
      'a later turn naming more: the first request is what the model chose among',
      rollout(TOOLS_AS_INPUT, developer(tools('jira')), TURN, developer(tools('issues', 'jira')), TURN),
      ['jira'],
    ],
    [
      'a later turn naming one the first did not: still none',
      rollout(TOOLS_AS_INPUT, developer('You are Codex.'), TURN, developer(tools('issues')), TURN),
      [],
    ],
    // A model outside Codex's catalog gets no code mode: the request sends its tools in its body, which the record leaves out.
    [
      'tools not sent as input (a model outside the catalog): the record cannot say',
      rollout(user('earlier'), developer('<skills_instructions>…'), TURN),
      undefined,
    ],
    ['a user message with the same words offers nothing', rollout(TOOLS_AS_INPUT, user(tools('issues')), TURN), []],
  ])('%s', (_, text, servers) => {
    expect(shownInSession(text).mcpServers).toEqual(servers);
  });
});

describe('grading a Codex trial by the MCP servers its request offered (pure)', () => {
  const SERVERS: StoredMcpServer[] = [
    { name: 'issues', hash: 'i', readOnly: ['get_issue'] },
    { name: 'jira', hash: 'j', stubTools: ['create_issue', 'search_issues'] },
  ];
  const started = (server: string, listed?: string[]) => ({ server, started: true, ended: true, calls: [], ...(listed ? { listed } : {}) });
  const RECORDS = [started('issues', ['get_issue', 'create_issue']), started('jira', ['create_issue', 'search_issues'])];
  const meta = (evidence: TrialEvidence): TrialMeta => trialMeta({ evidence });
  const shown = (mcpServers?: string[]) => ({
    source: SESSION_SOURCE,
    skills: ['atl-jira'],
    contextFiles: [],
    sandbox: 'read-only',
    cwd: '/ws',
    ...(mcpServers ? { mcpServers } : {}),
  });
  /** The model answered without a tool: what a trial whose request lacked a server's tools looks like. */
  const ANSWERED = [
    { type: 'thread.started', thread_id: 't' },
    { type: 'item.completed', item: { id: 'm', type: 'agent_message', text: 'Done.' } },
    { type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
  const grade = (evidence: TrialEvidence) => {
    const m = meta(evidence);
    return trialStatus(parseCodexStream(ANSWERED, m), m, {
      arm: 'skill',
      family: ['atl-jira'],
      mcp: SERVERS,
      isolationProblem: codex.grading.isolationProblem,
    });
  };

  it.each<[string, TrialEvidence, { status: string; detail?: string }]>([
    ['both offered: the model chose none', { shown: shown(['issues', 'jira']), mcp: RECORDS }, { status: 'ok' }],
    [
      'the real server started, its namespace not sent: missing data, never "did not trigger"',
      { shown: shown(['jira']), mcp: RECORDS },
      {
        status: 'infra_error',
        detail:
          'the MCP server "issues" started, yet the CLI did not offer the model its tools (it names no such server): the trial ran without them',
      },
    ],
    [
      'the stub started and listed, its namespace not sent: the same',
      { shown: shown(['issues']), mcp: RECORDS },
      { status: 'infra_error', detail: expect.stringContaining('the MCP server "jira" started, yet') as unknown as string },
    ],
    [
      'the real server started and never listed (the CLI made its request first): the same',
      { shown: shown(['jira']), mcp: [started('issues'), RECORDS[1]!] },
      { status: 'infra_error', detail: expect.stringContaining('"issues" started, yet') as unknown as string },
    ],
    [
      'the stub never started: a trial set up wrong (its tools not offered)',
      { shown: shown(['issues']), mcp: [RECORDS[0]!, { server: 'jira', started: false, ended: false, calls: [] }] },
      { status: 'isolation_error', detail: 'MCP tools not offered to the model: jira/create_issue, jira/search_issues' },
    ],
    [
      'a record that cannot say (a model outside the catalog, or one read before this was): graded as it was',
      { shown: shown(), mcp: RECORDS },
      { status: 'ok' },
    ],
  ])('%s', (_, evidence, verdict) => {
    expect(grade(evidence)).toEqual(verdict);
  });

  it("offers the model the listed tools of the servers its request named, and says those servers' state", () => {
    const m = meta({ shown: shown(['jira']), mcp: RECORDS });
    expect(parseCodexStream(ANSWERED, m).events[0]).toMatchObject({
      tools: ['mcp__jira__create_issue', 'mcp__jira__search_issues'],
      mcpServers: [{ name: 'jira', status: 'connected' }],
    });
  });

  it('a required server that never started ends Codex before any request: missing data naming the server, not an agent error', () => {
    const m = {
      ...meta({ mcp: [{ server: 'issues', started: false, ended: false, calls: [], exited: { code: 3, signal: null } }] }),
      exitCode: 1,
      stderrTail: 'Error: thread/start: thread/start failed: … required MCP servers failed to initialize: issues: …',
    };
    const verdict = trialStatus(parseCodexStream('Reading additional input from stdin...\n', m), m, {
      arm: 'skill',
      family: ['atl-jira'],
      mcp: SERVERS,
      isolationProblem: codex.grading.isolationProblem,
    });
    expect(verdict).toEqual({
      status: 'infra_error',
      detail: 'the MCP server "issues" never started (exit code 3), and the CLI ended before any model call: nothing ran',
    });
  });

  it('a CLI that names no servers (the Gemini CLI) is not checked', () => {
    expect(unofferedServerProblem({}, meta({ mcp: RECORDS }), SERVERS)).toBeUndefined();
  });
});
