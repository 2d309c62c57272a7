import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/sim/dialects/anthropic.js';
import { openaiResponses } from '../src/sim/dialects/openai-responses.js';
import { viewRequest } from '../src/sim/dialects/index.js';
import type { ModelReply } from '../src/sim/dialects/dialect.js';
import { decideReply, type Reply } from '../src/sim/policy.js';
import { parseProfile } from '../src/sim/profile.js';
import { DEFAULT_ROUTER, routerChances } from '../src/sim/router.js';
import { claudeListing } from './claude-request.js';

const SKILLS = [{ name: 'atl-jira', description: 'Run the atl CLI for Confluence pages and spaces.' }];
const TOOL = {
  name: 'mcp__jira__create_issue',
  description: 'Create a Jira issue: file a bug or a ticket in a project.',
  input_schema: { type: 'object', properties: { project: { type: 'string' } } },
};
const TOOLS = [{ name: 'Read' }, { name: 'Skill' }, TOOL];

const firstUser = (prompt: string) => ({
  role: 'user',
  content: [
    { type: 'text', text: claudeListing(SKILLS) },
    { type: 'text', text: prompt },
  ],
});

/** Claude Code's first request, offering `tools`. */
const first = (prompt: string, tools: object[] = TOOLS) => ({ model: 'm', tools, messages: [firstUser(prompt)] });

/** The reply as a dialect writes it, for a request that offered `tools`. */
function modelReply(reply: Reply, tools: readonly string[]): ModelReply {
  if (reply.type !== 'message') throw new Error(`no message: ${reply.type}`);
  return { id: '1', model: 'm', blocks: reply.blocks, tools, skillFiles: new Map(), inputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 };
}

const mcpCalls = (r: Reply) => (r.type === 'message' ? r.blocks.flatMap((b) => (b.type === 'mcp' ? [b] : [])) : []);
const textOf = (r: Reply) => (r.type === 'message' ? r.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ') : '');

describe('the simulated model and MCP tools (Anthropic wire)', () => {
  it('reads the MCP tools from the request as Claude Code sent them', () => {
    const v = viewRequest('anthropic', first('file a bug'));
    expect(v.mcpTools).toEqual([{ wireName: TOOL.name, server: 'jira', tool: 'create_issue', description: TOOL.description }]);
    expect(viewRequest('anthropic', first('file a bug', [{ name: 'Read' }])).mcpTools).toBeUndefined();
  });

  const profile = parseProfile({ rules: [{ prompt: 'bug', do: [{ mcp: 'jira/create_issue', input: { project: 'OPS' } }] }] });

  it('a profile action calls the tool with its arguments, written as a tool_use of its wire name', () => {
    const v = viewRequest('anthropic', first('file a bug'));
    const reply = decideReply(profile, v, { key: 't' });
    expect(mcpCalls(reply)).toEqual([
      { type: 'mcp', server: 'jira', tool: 'create_issue', wireName: TOOL.name, input: { project: 'OPS' } },
    ]);
    const r = modelReply(reply, v.tools);
    const written = anthropic.json(r);
    expect(written).toMatchObject({
      content: [{ type: 'text' }, { type: 'tool_use', name: TOOL.name, input: { project: 'OPS' } }],
      stop_reason: 'tool_use',
    });
  });

  it('a tool the request does not offer is no choice: it answers instead', () => {
    const reply = decideReply(profile, viewRequest('anthropic', first('file a bug', [{ name: 'Read' }, { name: 'Skill' }])), { key: 't' });
    expect(mcpCalls(reply)).toEqual([]);
    expect(textOf(reply)).not.toBe('');
  });

  it("answers from the tool's result on the next turn", () => {
    const v = viewRequest('anthropic', {
      ...first('file a bug'),
      messages: [
        firstUser('file a bug'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: TOOL.name, input: { project: 'OPS' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Created OPS-1' }] }] },
      ],
    });
    expect(v.lastResults).toEqual([{ action: 'mcp', isError: false, text: 'Created OPS-1' }]);
    expect(textOf(decideReply(profile, v, { key: 't' }))).toBe('The tool answered: Created OPS-1');
  });

  it("the router weighs the tool's description beside the skills' (2000 seeded draws, ±4 points)", () => {
    const routed = parseProfile({ seed: 5, router: {} });
    const prompt = 'file a bug ticket in the OPS project';
    const v = viewRequest('anthropic', first(prompt));
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const reply = decideReply(routed, v, { key: `trial-${i}` });
      const chosen = reply.type === 'message' ? reply.blocks.find((b) => b.type === 'skill' || b.type === 'mcp') : undefined;
      const name = chosen?.type === 'skill' ? chosen.name : chosen?.type === 'mcp' ? `mcp:jira/create_issue` : 'none';
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const c = routerChances(prompt, [...SKILLS, { name: 'mcp:jira/create_issue', description: TOOL.description }], DEFAULT_ROUTER);
    // The tool's description matches this prompt best: it takes most draws, which a skills-only router never gives it.
    expect(c.skills[1]!.p).toBeGreaterThan(0.5);
    for (const { name, p } of [...c.skills, { name: 'none', p: c.none }])
      expect(Math.abs((counts.get(name) ?? 0) / 2000 - p)).toBeLessThan(0.04);
  });

  it('refuses `input` without `mcp`, and an mcp name not of `<server>/<tool>`', () => {
    expect(() => parseProfile({ rules: [{ prompt: 'x', do: [{ answer: true, input: {} }] }] })).toThrow(/`input` holds the arguments/);
    expect(() => parseProfile({ rules: [{ prompt: 'x', do: [{ mcp: 'create_issue' }] }] })).toThrow(/`<server>\/<tool>`/);
  });
});

describe('the simulated model and MCP tools Codex defers (OpenAI Responses wire)', () => {
  /** Codex's first request: its script tool, and the MCP namespace it defers named in a developer message. */
  const codexRequest = (deferred: string[]) => ({
    model: 'm',
    input: [
      {
        type: 'additional_tools',
        role: 'developer',
        tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }],
      },
      {
        type: 'message',
        role: 'developer',
        content: [
          { type: 'input_text', text: `<tools>\nDeferred tool namespaces:\n${deferred.map((d) => `- ${d}`).join('\n')}\n</tools>` },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'file a bug' }] },
    ],
  });
  const profile = parseProfile({ rules: [{ prompt: 'bug', do: [{ mcp: 'jira/create_issue', input: { project: 'OPS' } }] }] });

  it("reads the deferred servers, and calls a tool of one from code mode's script by its full name", () => {
    const v = viewRequest('openai-responses', codexRequest(['mcp__jira']));
    expect(v.mcpDeferred).toEqual(['jira']);
    const reply = decideReply(profile, v, { key: 't' });
    const r = modelReply(reply, v.tools);
    expect(openaiResponses.json(r)).toMatchObject({
      output: [
        { type: 'message' },
        {
          type: 'custom_tool_call',
          name: 'exec',
          input: 'const r = await tools.mcp__jira__create_issue({"project":"OPS"});\ntext(JSON.stringify(r));',
        },
      ],
    });
  });

  it.each([
    ['an answer', '{"content":[{"type":"text","text":"OPS-1 created"}]}', false],
    ['an error', '{"content":[{"type":"text","text":"no such project"}],"isError":true}', true],
  ])('reads the tool result the script printed, %s, as the tool said it', (_, printed, isError) => {
    const first = codexRequest(['mcp__jira']);
    const script = 'const r = await tools.mcp__jira__create_issue({"project":"OPS"});\ntext(JSON.stringify(r));';
    const v = viewRequest('openai-responses', {
      ...first,
      input: [
        ...first.input,
        { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: script },
        { type: 'custom_tool_call_output', call_id: 'c1', output: printed },
      ],
    });
    expect(v.lastResults).toEqual([expect.objectContaining({ action: 'mcp', isError })]);
  });

  it('a server the request does not defer is no choice: it answers instead', () => {
    const reply = decideReply(profile, viewRequest('openai-responses', codexRequest(['mcp__github'])), { key: 't' });
    expect(mcpCalls(reply)).toEqual([]);
  });
});

describe('the simulated model and MCP tools Codex sends in the body (OpenAI Responses wire, a model outside its catalog)', () => {
  /** A function tool as Codex's body declares one. */
  const fn = (name: string, description = '') => ({ type: 'function', name, description, strict: false, parameters: { type: 'object' } });
  const JIRA = {
    type: 'namespace',
    name: 'mcp__jira',
    description: 'Tools in the mcp__jira namespace.',
    tools: [fn('create_issue', 'Create a Jira issue.'), fn('search_issues', 'Search Jira issues.')],
  };
  /** Codex 0.171.0's request with such a model (measured): the shell, the MCP resource tools, each server's namespace. */
  const codexRequest = (tools: object[], after: object[] = []) => ({
    model: 'sim-model',
    tools: [fn('exec_command'), fn('list_mcp_resources'), ...tools],
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'file a bug' }] }, ...after],
  });
  const jiraTool = (tool: string, description: string) => ({ wireName: tool, namespace: 'mcp__jira', server: 'jira', tool, description });

  it.each<[string, object[], unknown[] | undefined]>([
    [
      "a server's namespace: each of its functions",
      [JIRA],
      [jiraTool('create_issue', 'Create a Jira issue.'), jiraTool('search_issues', 'Search Jira issues.')],
    ],
    [
      'two servers',
      [JIRA, { ...JIRA, name: 'mcp__gh', tools: [fn('get_pr')] }],
      [expect.anything(), expect.anything(), expect.objectContaining({ server: 'gh', tool: 'get_pr' })],
    ],
    ["the sub-agent tools' namespace: none", [{ type: 'namespace', name: 'multi_agent_v1', tools: [fn('spawn_agent')] }], undefined],
    [
      'a namespace that is no server’s name (`mcp__` alone, an underscore)',
      [
        { ...JIRA, name: 'mcp__' },
        { ...JIRA, name: 'mcp__my_jira' },
      ],
      undefined,
    ],
    ['a top-level function named as an MCP tool: none', [fn('mcp__jira__create_issue')], undefined],
  ])('reads %s', (_, tools, mcpTools) => {
    const v = viewRequest('openai-responses', codexRequest(tools));
    expect(v.mcpTools).toEqual(mcpTools);
    expect(v.mcpDeferred).toBeUndefined();
  });

  it("calls a tool by its name in its server's namespace", () => {
    const v = viewRequest('openai-responses', codexRequest([JIRA]));
    const profile = parseProfile({ rules: [{ prompt: 'bug', do: [{ mcp: 'jira/create_issue', input: { project: 'OPS' } }] }] });
    const r = modelReply(decideReply(profile, v, { key: 't' }), v.tools);
    expect(openaiResponses.json(r)).toMatchObject({
      output: [
        { type: 'message' },
        { type: 'function_call', name: 'create_issue', namespace: 'mcp__jira', arguments: '{"project":"OPS"}', call_id: 'call_1_1' },
      ],
    });
  });

  it('the router weighs the tools by their descriptions, as the body sent them', () => {
    const routed = parseProfile({ seed: 5, router: {} });
    const v = viewRequest('openai-responses', {
      ...codexRequest([JIRA]),
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'create a jira issue' }] }],
    });
    const called = Array.from({ length: 200 }, (_, i) => mcpCalls(decideReply(routed, v, { key: `trial-${i}` }))).flat();
    expect(called.length).toBeGreaterThan(0);
    expect(new Set(called.map((b) => `${b.namespace} ${b.wireName}`))).toEqual(
      new Set(['mcp__jira create_issue', 'mcp__jira search_issues']),
    );
  });

  /** Codex 0.171.0's report of a namespaced MCP call (measured): the call's time, then the tool's content. */
  const report = (text: string) => [
    { type: 'input_text', text: 'Wall time: 0.0087 seconds\nOutput:' },
    { type: 'input_text', text },
  ];
  it.each<[string, object, unknown]>([
    [
      'an MCP tool, answered',
      { type: 'function_call', call_id: 'c1', name: 'create_issue', namespace: 'mcp__jira', arguments: '{}' },
      { action: 'mcp', isError: false, text: 'Created OPS-1234.' },
    ],
    [
      'the shell, not namespaced',
      { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
      expect.objectContaining({ action: 'search' }),
    ],
    [
      'a sub-agent, in a namespace that is no server’s',
      { type: 'function_call', call_id: 'c1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
      expect.objectContaining({ action: 'other' }),
    ],
  ])('reads the result of %s', (_, call, outcome) => {
    const v = viewRequest(
      'openai-responses',
      codexRequest([JIRA], [call, { type: 'function_call_output', call_id: 'c1', output: report('Created OPS-1234.') }]),
    );
    expect(v.lastResults).toEqual([outcome]);
  });

  it('a result the tool marked as an error reads as an answer: Codex reports both alike (measured)', () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'create_issue', namespace: 'mcp__jira', arguments: '{}' };
    const v = viewRequest(
      'openai-responses',
      codexRequest([JIRA], [call, { type: 'function_call_output', call_id: 'c1', output: report('Project SEC does not accept issues.') }]),
    );
    expect(v.lastResults).toEqual([{ action: 'mcp', isError: false, text: 'Project SEC does not accept issues.' }]);
  });
});
