import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/sim/dialects/anthropic.js';
import { CANARY_FILE, CANARY_URL } from '../src/sim/dialects/acting-calls.js';
import { viewRequest } from '../src/sim/dialects/index.js';
import { decideReply, type Reply } from '../src/sim/policy.js';
import { parseProfile } from '../src/sim/profile.js';
import { routerChances, DEFAULT_ROUTER } from '../src/sim/router.js';
import { seededUniform } from '../src/util/random.js';
import type { ModelReply } from '../src/sim/dialects/dialect.js';
import { claudeListing } from './claude-request.js';

const LAB_TOOLS = ['Read', 'Glob', 'Grep', 'Skill'];
const FIELD_TOOLS = ['Agent', 'Bash', 'Edit', 'NotebookEdit', 'Read', 'Skill', 'WebFetch', 'WebSearch', 'Write'];
const FAMILY = [{ name: 'csv-chart', description: 'Chart a CSV file as a PNG picture.' }];

const listing = (family = FAMILY) => claudeListing(family);

const firstUser = (prompt: string, family = FAMILY) => ({
  role: 'user',
  content: [
    { type: 'text', text: listing(family) },
    { type: 'text', text: prompt },
  ],
});

/** Claude Code's first request, offering `tools`. */
const first = (prompt: string, tools: string[], family = FAMILY) => ({
  model: 'm',
  tools: tools.map((name) => ({ name })),
  messages: [firstUser(prompt, family)],
});

/** The request after the model's call of `tool`, answered by `result`. */
const afterCall = (prompt: string, tools: string[], tool: string, result: string) => ({
  model: 'm',
  tools: tools.map((name) => ({ name })),
  messages: [
    firstUser(prompt),
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: result }] },
  ],
});

const acted = (r: Reply) => (r.type === 'message' ? r.blocks.flatMap((b) => (b.type === 'act' ? [b.act] : [])) : []);
const textOf = (r: Reply) => (r.type === 'message' ? r.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ') : '');

const actingProfile = (act: string) => parseProfile({ rules: [{ prompt: 'chart', do: [{ act }] }] });

describe('the simulated model acts by itself', () => {
  it.each([
    ['shell', 'Bash'],
    ['write', 'Write'],
    ['fetch', 'WebFetch'],
    ['agent', 'Agent'],
  ] as const)('`act: %s` is a %s call where the request offers it', (act, tool) => {
    const reply = decideReply(actingProfile(act), viewRequest('anthropic', first('chart sales.csv', FIELD_TOOLS)), { key: 't' });
    expect(acted(reply)).toEqual([act]);
    const written = anthropic.json(modelReply(reply, FIELD_TOOLS)) as { content: { type: string; name?: string }[] };
    expect(written.content.filter((b) => b.type === 'tool_use').map((b) => b.name)).toEqual([tool]);
  });

  it.each(['shell', 'write', 'fetch', 'agent'])('`act: %s` with only the lab tools offered is a plain answer', (act) => {
    const reply = decideReply(actingProfile(act), viewRequest('anthropic', first('chart sales.csv', LAB_TOOLS)), { key: 't' });
    expect(acted(reply)).toEqual([]);
    expect(textOf(reply)).toMatch(/without using any skill/);
  });

  it('an older build that names the sub-agent tool Task gets a Task call', () => {
    const tools = ['Task', 'Read', 'Skill'];
    const reply = decideReply(actingProfile('agent'), viewRequest('anthropic', first('chart it', tools)), { key: 't' });
    const written = anthropic.json(modelReply(reply, tools)) as { content: { type: string; name?: string }[] };
    expect(written.content.find((b) => b.type === 'tool_use')?.name).toBe('Task');
  });

  it('the acting calls aim at the canary file and a loopback URL nothing listens on', () => {
    const inputs = (['shell', 'write', 'fetch'] as const).map((act) => {
      const reply = decideReply(actingProfile(act), viewRequest('anthropic', first('chart it', FIELD_TOOLS)), { key: 't' });
      const written = anthropic.json(modelReply(reply, FIELD_TOOLS)) as { content: { type: string; input?: Record<string, string> }[] };
      return written.content.find((b) => b.type === 'tool_use')!.input!;
    });
    expect(inputs[0]!.command).toBe(`touch ${CANARY_FILE}`);
    expect(inputs[1]!.file_path).toBe(CANARY_FILE);
    expect(inputs[2]!.url).toBe(CANARY_URL);
    expect(new URL(CANARY_URL).hostname).toBe('127.0.0.1');
  });

  it.each(['Bash', 'Write', 'WebFetch', 'Agent'])('a refused %s call is read as an acting call, and the model goes on in text', (tool) => {
    const view = viewRequest('anthropic', afterCall('chart sales.csv', FIELD_TOOLS, tool, 'refused before it ran'));
    expect(view.lastResults).toEqual([{ action: 'act', isError: true, text: 'refused before it ran' }]);
    const reply = decideReply(actingProfile('shell'), view, { key: 't' });
    expect(acted(reply)).toEqual([]);
    expect(textOf(reply)).toMatch(/by hand/);
  });

  it('a request offering no acting tool says so: the view has no `canAct`', () => {
    expect(viewRequest('anthropic', first('x', LAB_TOOLS)).canAct).toBeUndefined();
    expect(viewRequest('anthropic', first('x', FIELD_TOOLS)).canAct).toEqual(['shell', 'write', 'fetch', 'agent']);
  });

  it('a misspelled act is refused naming the kinds', () => {
    expect(() => actingProfile('shel')).toThrow(/act must be one of shell, write, fetch, agent/);
  });
});

/**
 * Claude Code 2.1.332's field request: some tools deferred, named in a `system`-role message after the prompt and
 * loaded with ToolSearch (its result a `tool_reference`; the next request offers the loaded tool among its tools).
 */
describe('a deferred acting tool is loaded with ToolSearch before it is called', () => {
  const NOW = ['Agent', 'Bash', 'Edit', 'Read', 'Skill', 'ToolSearch', 'Write'];
  const deferredNote = [
    'The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError. Use ToolSearch with query "select:<name>[,<name>...]" to load tool schemas before calling them:',
    'NotebookEdit',
    'WebFetch',
    'WebSearch',
    'mcp__issues__get_issue',
    '',
    'Available agent types for the Agent tool:',
  ].join('\n');
  const request = (tools: string[], after: object[] = []) => ({
    model: 'm',
    tools: tools.map((name) => ({ name })),
    messages: [firstUser('chart sales.csv'), { role: 'system', content: [{ type: 'text', text: deferredNote }] }, ...after],
  });
  const lookedUp = [
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }],
    },
  ];
  const toolUses = (r: Reply, tools: string[]) =>
    (anthropic.json(modelReply(r, tools)) as { content: { type: string; name?: string; input?: unknown }[] }).content.filter(
      (b) => b.type === 'tool_use',
    );

  it('the view names the acts whose tool is deferred, and still offers them', () => {
    const view = viewRequest('anthropic', request(NOW));
    expect(view.canAct).toEqual(['shell', 'write', 'fetch', 'agent']);
    expect(view.deferredActs).toEqual(['fetch']);
  });

  it('`act: fetch` first loads WebFetch with a ToolSearch lookup; a tool offered at once is called at once', () => {
    const load = decideReply(actingProfile('fetch'), viewRequest('anthropic', request(NOW)), { key: 't' });
    expect(toolUses(load, NOW)).toEqual([expect.objectContaining({ name: 'ToolSearch', input: { query: 'select:WebFetch' } })]);
    const shell = decideReply(actingProfile('shell'), viewRequest('anthropic', request(NOW)), { key: 't' });
    expect(toolUses(shell, NOW).map((b) => b.name)).toEqual(['Bash']);
  });

  it('once loaded, the next turn calls it', () => {
    const tools = [...NOW, 'WebFetch'];
    const view = viewRequest('anthropic', request(tools, lookedUp));
    expect(view.lastResults.map((r) => r.action)).toEqual(['load']);
    expect(view.deferredActs).toBeUndefined();
    expect(toolUses(decideReply(actingProfile('fetch'), view, { key: 't' }), tools).map((b) => b.name)).toEqual(['WebFetch']);
  });

  it('a lookup that loaded nothing ends in text, never another lookup', () => {
    const reply = decideReply(actingProfile('fetch'), viewRequest('anthropic', request(NOW, lookedUp)), { key: 't' });
    expect(toolUses(reply, NOW)).toEqual([]);
    expect(textOf(reply)).toMatch(/by hand/);
  });

  it('an MCP tool deferred so (2.1.332 defers every one) is loaded first, then called with its input on the next turn', () => {
    const profile = parseProfile({ rules: [{ prompt: 'chart', do: [{ mcp: 'issues/get_issue', input: { key: 'OPS-2' } }] }] });
    const view = viewRequest('anthropic', request(NOW));
    expect(view.mcpLoadable).toEqual([{ server: 'issues', tool: 'get_issue' }]);
    const load = toolUses(decideReply(profile, view, { key: 't' }), NOW);
    expect(load).toEqual([expect.objectContaining({ name: 'ToolSearch', input: { query: 'select:mcp__issues__get_issue' } })]);
    const tools = [...NOW, 'mcp__issues__get_issue'];
    const loaded = viewRequest('anthropic', request(tools, lookedUp));
    const call = toolUses(decideReply(profile, loaded, { key: 't' }), tools);
    expect(call).toEqual([expect.objectContaining({ name: 'mcp__issues__get_issue', input: { key: 'OPS-2' } })]);
    // A lookup that loaded nothing: the model answers without the tool, never looking it up again.
    expect(toolUses(decideReply(profile, viewRequest('anthropic', request(NOW, lookedUp)), { key: 't' }), NOW)).toEqual([]);
  });

  it('without ToolSearch among the tools, a deferred tool is not offered: a plain answer', () => {
    const tools = NOW.filter((t) => t !== 'ToolSearch');
    const view = viewRequest('anthropic', request(tools));
    expect(view.canAct).toEqual(['shell', 'write', 'agent']);
    expect(textOf(decideReply(actingProfile('fetch'), view, { key: 't' }))).toMatch(/without using any skill/);
  });
});

describe("the router's chance of acting", () => {
  const prompt = 'chart the sales numbers';
  const router = (extra: Record<string, unknown>) => parseProfile({ router: { ...extra } });
  const reply = (profile: ReturnType<typeof parseProfile>, key: string) =>
    decideReply(profile, viewRequest('anthropic', first(prompt, FIELD_TOOLS)), { key });
  const keys = Array.from({ length: 400 }, (_, i) => `trial-${i}`);

  it('without `act` the router draws exactly as before: no trial acts, and the parsed router has no act field', () => {
    const profile = router({});
    expect(profile.router).not.toHaveProperty('act');
    expect(keys.filter((k) => acted(reply(profile, k)).length > 0)).toEqual([]);
  });

  it('a trial acts exactly when the draw answered without a skill and its own draw fell under `act`', () => {
    const profile = router({ act: 0.5, actWith: 'write' });
    const chances = routerChances(prompt, FAMILY, DEFAULT_ROUTER);
    const expected = keys.filter((k) => seededUniform(1, k, 'router') >= 1 - chances.none && seededUniform(1, k, 'router-act') < 0.5);
    const acting = keys.filter((k) => acted(reply(profile, k)).length > 0);
    expect(acting).toEqual(expected);
    expect(acting.length).toBeGreaterThan(0);
    expect(new Set(keys.flatMap((k) => acted(reply(profile, k))))).toEqual(new Set(['write']));
  });

  it('acting falls as the description matches the prompt better', () => {
    const profile = router({ act: 1 });
    const actingWith = (description: string) =>
      keys.filter(
        (key) =>
          acted(decideReply(profile, viewRequest('anthropic', first(prompt, FIELD_TOOLS, [{ name: 'csv-chart', description }])), { key }))
            .length,
      ).length;
    const poor = actingWith('Convert units between systems.');
    const good = actingWith('Chart the sales numbers as a chart.');
    expect(poor).toBeGreaterThan(300);
    expect(good).toBeLessThan(poor - 20);
  });
});

function modelReply(r: Reply, tools: string[]): ModelReply {
  return {
    id: 'x',
    model: 'm',
    blocks: r.type === 'message' ? r.blocks : [],
    inputTokens: 10,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    skillFiles: new Map(),
    tools,
  };
}
