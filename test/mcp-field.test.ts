import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { withFieldRecord } from '../src/agents/codex/field-evidence.js';
import { hookDecision } from '../src/agents/codex/field.js';
import { CODEX_MCP_STARTUP_SECONDS, codexMcpServers, codexReadOnlyMcp } from '../src/agents/codex/mcp.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import { fieldMcpProblem } from '../src/agents/field-mcp.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { GEMINI_FIELD_REFUSAL, geminiFieldPolicy, geminiFieldSettings } from '../src/agents/gemini/field.js';
import { geminiMcpRules } from '../src/agents/gemini/mcp.js';
import { geminiPolicy, geminiSettings } from '../src/agents/gemini/settings.js';
import type { McpServer } from '../src/load/mcp.js';
import { stubFileSchema } from '../src/mcp/stub-spec.js';
import type { StoredMcpServer } from '../src/run/schema.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';

/**
 * MCP servers in the field on Codex and Gemini (pure): which calls each CLI's refusing layer lets run (a stub's tools,
 * a real server's marked read-only), which it refuses, and what the field evidence accepts.
 */
const STUB = stubFileSchema.parse({
  tools: [{ name: 'create_issue', description: 'Create an issue.', inputSchema: { type: 'object' }, answers: [{ result: 'Created' }] }],
});
const AT = { file: 'skillprobe.config.yaml', line: 2 };
const real = (name: string, readOnly: boolean | string[]): McpServer => ({
  name,
  kind: 'command',
  command: '/bin/srv',
  args: [],
  cwd: '/',
  env: [],
  readOnly,
  hash: name,
  at: AT,
});
const SERVERS: McpServer[] = [
  { name: 'jira', kind: 'stub', stub: STUB, hash: 'j', at: AT },
  real('gh', ['get_issue']),
  real('docs', true),
  real('ops', false),
];

describe('Codex in the field with MCP servers', () => {
  it('names the read-only tools for its hook: a whole server by prefix, a marked tool by name', () => {
    expect(codexReadOnlyMcp(SERVERS)).toEqual(['mcp__jira__*', 'mcp__gh__get_issue', 'mcp__docs__*']);
  });

  it.each([
    ['mcp__jira__create_issue', false],
    ['mcp__gh__get_issue', false],
    ['mcp__gh__create_issue', true],
    ['mcp__docs__anything', false],
    ['mcp__ops__read', true],
    ['mcp__jirax__create_issue', true],
    ['mcp__gh__get_issue_and_close', true],
  ])('the hook handed %s refuses it: %s', (tool, refuse) => {
    const stdin = JSON.stringify({ tool_name: tool, tool_input: { key: 'OPS-1' }, cwd: '/ws' });
    expect(hookDecision(stdin, codexReadOnlyMcp(SERVERS))).toEqual({ refuse });
  });

  it('approves the read-only tools in its config, a whole server or each marked tool, and no other', () => {
    const launches = SERVERS.map((s) => ({ name: s.name, command: 'node', args: [], env: {} }));
    const entries = codexMcpServers(launches, SERVERS);
    expect(entries.jira).toMatchObject({ default_tools_approval_mode: 'approve' });
    expect(entries.docs).toMatchObject({ default_tools_approval_mode: 'approve' });
    const waits = { startup_timeout_sec: CODEX_MCP_STARTUP_SECONDS, required: true };
    expect(entries.gh).toEqual({ command: 'node', args: [], env: {}, ...waits, tools: { get_issue: { approval_mode: 'approve' } } });
    expect(entries.ops).toEqual({ command: 'node', args: [], env: {}, ...waits });
  });

  const stream = (tool: string) =>
    [
      '{"type":"thread.started","thread_id":"t"}',
      `{"type":"item.started","item":{"id":"i1","type":"mcp_tool_call","server":"gh","tool":"${tool}","arguments":{},"status":"in_progress"}}`,
      `{"type":"item.completed","item":{"id":"i1","type":"mcp_tool_call","server":"gh","tool":"${tool}","arguments":{},"status":"completed","result":{"content":[{"type":"text","text":"done"}]}}}`,
      '{"type":"turn.completed","usage":{}}',
    ].join('\n');
  const init = (t: Transcript) => t.events.find((e) => e.kind === 'init');

  it('a read-only MCP call that ran is no field violation; an acting one that ran is', () => {
    const field = { hook: [{ tool: 'mcp__gh__get_issue', input: {}, refused: false }] };
    const ran = withFieldRecord(parseCodexStream(stream('get_issue'), { exitCode: 0 }), stream('get_issue'), field);
    expect(init(ran)).toMatchObject({ fieldRecord: {} });
    expect(fieldMcpProblem(ran, [{ name: 'gh', hash: 'g', readOnly: ['get_issue'] }])).toBeUndefined();
    const acted = withFieldRecord(parseCodexStream(stream('create_issue'), { exitCode: 0 }), stream('create_issue'), field);
    expect(fieldMcpProblem(acted, [{ name: 'gh', hash: 'g', readOnly: ['get_issue'] }])).toMatch(/gh\/create_issue was not refused: done/);
  });

  it('a call its hook refused is the model’s choice of that MCP tool, answered by the refusal', () => {
    const empty = ['{"type":"thread.started","thread_id":"t"}', '{"type":"turn.completed","usage":{}}'].join('\n');
    const field = { hook: [{ tool: 'mcp__gh__create_issue', input: { key: 'OPS-1' }, refused: true }] };
    const t = withFieldRecord(parseCodexStream(empty, { exitCode: 0 }), empty, field);
    expect(t.events.filter((e) => e.kind === 'tool_call')).toMatchObject([
      { intent: 'mcp', mcp: { server: 'gh', tool: 'create_issue' }, input: { key: 'OPS-1' } },
    ]);
    expect(fieldMcpProblem(t, [{ name: 'gh', hash: 'g', readOnly: ['get_issue'] }])).toBeUndefined();
  });
});

describe('the field evidence of MCP calls (fieldMcpProblem)', () => {
  const stored: StoredMcpServer[] = [
    { name: 'jira', hash: 'j', stubTools: ['create_issue'] },
    { name: 'gh', hash: 'g', readOnly: ['get_issue'] },
    { name: 'docs', hash: 'd', readOnly: true },
    { name: 'ops', hash: 'o' },
  ];
  const call = (server: string, tool: string, answer?: { isError: boolean; text: string }): Transcript => {
    const events: TranscriptEvent[] = [
      { kind: 'tool_call', source: 'assistant', id: 'c', name: `mcp__${server}__${tool}`, input: {}, intent: 'mcp', mcp: { server, tool } },
    ];
    if (answer) events.push({ kind: 'tool_result', source: 'tool', id: 'c', ...answer });
    return { events } as Transcript;
  };
  const ran = { isError: false, text: 'done' };
  const refused = { isError: true, text: GEMINI_FIELD_REFUSAL };
  it.each([
    ['a stub’s tool that ran', call('jira', 'create_issue', ran), undefined],
    ['a marked read-only tool that ran', call('gh', 'get_issue', ran), undefined],
    ['a read-only server’s tool that ran', call('docs', 'search', ran), undefined],
    ['an acting tool refused', call('gh', 'create_issue', refused), undefined],
    ['an acting tool that ran', call('gh', 'create_issue', ran), /gh\/create_issue was not refused: done/],
    ['an unmarked server’s tool that ran', call('ops', 'read', ran), /ops\/read was not refused/],
    ['an acting tool with no answer', call('ops', 'deploy'), /ops\/deploy was not refused: no answer/],
    ['a server the trial was not offered', call('other', 'x', ran), /other\/x was not refused/],
    ['an acting tool whose error is not the refusal', call('gh', 'create_issue', { isError: true, text: 'boom' }), /not refused: boom/],
  ])('%s', (_, t, problem) => {
    const found = fieldMcpProblem(t, stored);
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});

describe('the Gemini CLI with MCP servers, in the lab and the field', () => {
  it('keeps every server’s tools on the menu by server, refuses each call of a tool that may act, allows the marked reads above it', () => {
    const refuse = { argsPattern: '[\\s\\S]*', decision: 'deny', priority: 200, denyMessage: FIELD_REFUSAL };
    expect(geminiMcpRules(SERVERS)).toEqual([
      { mcpName: 'jira', toolName: '*', decision: 'allow', priority: 100 },
      { mcpName: 'gh', toolName: '*', decision: 'allow', priority: 100 },
      { mcpName: 'gh', toolName: '*', ...refuse },
      { mcpName: 'gh', toolName: 'get_issue', decision: 'allow', priority: 300 },
      { mcpName: 'docs', toolName: '*', decision: 'allow', priority: 100 },
      { mcpName: 'ops', toolName: '*', decision: 'allow', priority: 100 },
      { mcpName: 'ops', toolName: '*', ...refuse },
    ]);
  });

  it('writes those rules into the lab’s and the field’s admin policy, and the servers into both settings', () => {
    const rules = (toml: string) => (parseToml(toml) as { rule: Record<string, unknown>[] }).rule.filter((r) => r.mcpName);
    expect(rules(geminiPolicy('activate_skill', 'trial', [], geminiMcpRules(SERVERS)))).toEqual(geminiMcpRules(SERVERS));
    expect(rules(geminiFieldPolicy(SERVERS))).toEqual(geminiMcpRules(SERVERS));
    const servers = { jira: { command: 'node', trust: true } };
    const req = { model: 'm', maxTurns: 5, cliRetries: 0 };
    expect(JSON.parse(geminiFieldSettings(req, servers))).toMatchObject({ mcpServers: servers });
    // The lab's allowlist names no MCP tool: the policy's rules offer them, so a server marked read-only as a whole is offered too.
    const lab = JSON.parse(geminiSettings(req, ['read_file'], [], servers)) as { tools: { core: string[] }; mcpServers: unknown };
    expect(lab).toMatchObject({ tools: { core: ['read_file'] }, mcpServers: servers });
  });
});
