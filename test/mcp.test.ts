import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { fieldEvidenceProblem, fieldSettings } from '../src/agents/claude-code/field.js';
import { mcpAllowedTools, mcpReadOnlyPatterns } from '../src/agents/claude-code/mcp.js';
import { collectMcpEvidence, mcpRecordFile, prepareMcpServers } from '../src/agents/mcp-servers.js';
import { realServerProblem } from '../src/grade/status.js';
import { STUB_MAIN, WATCH_MAIN } from '../src/mcp/stub-entry.js';
import { geminiMcpServers } from '../src/agents/gemini/mcp.js';
import { parseGeminiStream } from '../src/agents/gemini/parse.js';
import { codexMcpServers } from '../src/agents/codex/mcp.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import { mcpListingProblem } from '../src/agents/mcp-listing.js';
import type { McpServer } from '../src/load/mcp.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { splitMcpName } from '../src/mcp/names.js';
import { readStubRecord } from '../src/mcp/record.js';
import { answerCall, MAX_ANSWER_BYTES, stubFileSchema, stubProblems, type StubFile } from '../src/mcp/stub-spec.js';
import type { GradableCase, TrialMeta, TrialOutcome } from '../src/run/schema.js';
import { ClaudeStream } from './claude-stream.js';
import { cleanup } from './helpers.js';
import { trialMeta } from './run-fixtures.js';
import { geminiMcpName } from '../src/agents/gemini/mcp-names.js';

const JIRA: StubFile = stubFileSchema.parse({
  tools: [
    {
      name: 'create_issue',
      description: 'Create a Jira issue.',
      inputSchema: { type: 'object', properties: { project: { type: 'string' }, summary: { type: 'string' } }, required: ['project'] },
      answers: [
        { when: { project: '^SEC$' }, error: 'SEC is read-only' },
        { when: { project: '^OPS$', summary: 'login' }, result: 'Created OPS-1' },
        { when: { project: '^OPS$' }, result: { key: 'OPS-2' } },
      ],
    },
  ],
});

describe('the stub file: what loading refuses (pure)', () => {
  const tool = (over: Record<string, unknown>) =>
    stubFileSchema.parse({ tools: [{ name: 't', description: 'd', answers: [{ result: 'ok' }], ...over }] });
  const ROWS: { name: string; stub: StubFile; at?: (string | number)[]; says?: RegExp }[] = [
    { name: 'a valid stub', stub: JIRA },
    { name: 'no input schema (an object of no arguments)', stub: tool({}) },
    {
      name: 'a schema not of an object',
      stub: tool({ inputSchema: { type: 'string' } }),
      at: ['tools', 0, 'inputSchema', 'type'],
      says: /not `type: object`/,
    },
    {
      name: 'properties that are not a map',
      stub: tool({ inputSchema: { type: 'object', properties: ['a'] } }),
      at: ['tools', 0, 'inputSchema', 'properties'],
      says: /not a map/,
    },
    {
      name: 'an argument of no JSON Schema type',
      stub: tool({ inputSchema: { type: 'object', properties: { a: { type: 'text' } } } }),
      at: ['tools', 0, 'inputSchema', 'properties', 'a', 'type'],
      says: /"text", no JSON Schema type/,
    },
    {
      name: 'a required argument not declared',
      stub: tool({ inputSchema: { type: 'object', properties: {}, required: ['a'] } }),
      at: ['tools', 0, 'inputSchema', 'required'],
      says: /names "a"/,
    },
    {
      name: 'an answer with both result and error',
      stub: tool({ answers: [{ result: 'x', error: 'y' }] }),
      at: ['tools', 0, 'answers', 0],
      says: /exactly one/,
    },
    {
      name: 'an answer with neither',
      stub: tool({ answers: [{ when: { a: 'x' } }] }),
      at: ['tools', 0, 'answers', 0],
      says: /exactly one/,
    },
    {
      name: 'a result one byte over the cap',
      stub: tool({ answers: [{ result: 'x'.repeat(MAX_ANSWER_BYTES + 1) }] }),
      at: ['tools', 0, 'answers', 0, 'result'],
      says: /over the 65536-byte cap/,
    },
    { name: 'a result at the cap', stub: tool({ answers: [{ result: 'x'.repeat(MAX_ANSWER_BYTES) }] }) },
    {
      name: 'a pattern RE2 cannot run',
      stub: tool({ answers: [{ when: { a: '(x)\\1' }, result: 'x' }] }),
      at: ['tools', 0, 'answers', 0, 'when', 'a'],
      says: /linear-time engine/,
    },
    {
      name: 'a tool declared twice',
      stub: stubFileSchema.parse({ tools: [0, 1].map(() => ({ name: 't', description: 'd', answers: [{ result: 'x' }] })) }),
      at: ['tools', 1, 'name'],
      says: /declared twice/,
    },
  ];
  it.each(ROWS)('$name', ({ stub, at, says }) => {
    const problems = stubProblems(stub);
    if (!says) return expect(problems).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.at).toEqual(at);
    expect(problems[0]!.what).toMatch(says);
  });

  it('refuses a tool name no CLI can carry to the model', () => {
    expect(stubFileSchema.safeParse({ tools: [{ name: 'create issue', description: 'd', answers: [{ result: 'x' }] }] }).success).toBe(
      false,
    );
  });
});

describe('the stub answers each call from its canned answers (pure)', () => {
  const ROWS: { args: Record<string, unknown>; tool?: string; text: string; isError: boolean }[] = [
    { args: { project: 'SEC' }, text: 'SEC is read-only', isError: true },
    { args: { project: 'OPS', summary: 'the login page fails' }, text: 'Created OPS-1', isError: false },
    // The first answer whose patterns all match: OPS without a login summary falls to the third, sent as JSON.
    { args: { project: 'OPS', summary: 'rotate certs' }, text: '{"key":"OPS-2"}', isError: false },
    { args: { project: 'OPS' }, text: '{"key":"OPS-2"}', isError: false },
    { args: { project: 'DEV' }, text: 'no canned answer of "create_issue" matches these arguments', isError: true },
    // A value that is no string is matched as JSON.
    { args: { project: ['OPS'] }, text: 'no canned answer of "create_issue" matches these arguments', isError: true },
    { args: {}, tool: 'delete_issue', text: 'unknown tool "delete_issue"', isError: true },
  ];
  it.each(ROWS)('$tool $args', ({ args, tool, text, isError }) => {
    expect(answerCall(JIRA, tool ?? 'create_issue', args)).toEqual({ text, isError });
  });
});

describe('MCP names and records (pure)', () => {
  it.each([
    ['mcp__jira__create_issue', { server: 'jira', tool: 'create_issue' }],
    ['mcp__my-jira__create__issue', { server: 'my-jira', tool: 'create__issue' }],
    ['mcp__jira__', undefined],
    ['mcp____x', undefined],
    ['Read', undefined],
  ])('%s', (name, parsed) => expect(splitMcpName(name, 'mcp__', '__')).toEqual(parsed));

  it.each([
    ['mcp_jira_create_issue', { server: 'jira', tool: 'create_issue' }],
    ['mcp_my-jira_x', { server: 'my-jira', tool: 'x' }],
    ['read_file', undefined],
  ])("Gemini's %s", (name, parsed) => expect(splitMcpName(name, 'mcp_', '_')).toEqual(parsed));

  it('reads a record back, a line cut short by a kill left out', () => {
    const text = [
      '{"event":"start","pid":7,"at":"t0"}',
      '{"event":"call","tool":"create_issue","args":{"project":"OPS"},"isError":false,"at":"t1"}',
      '{"event":"call","tool":"create_issue","args":{"proj',
    ].join('\n');
    expect(readStubRecord(text)).toEqual({
      started: true,
      ended: false,
      calls: [{ tool: 'create_issue', args: { project: 'OPS' }, isError: false, at: 't1' }],
    });
    expect(readStubRecord('')).toEqual({ started: false, ended: false, calls: [] });
    const lines = (...l: string[]) => l.map((x) => `{${x},"at":"t"}`).join('\n');
    expect(readStubRecord(lines('"event":"start","pid":7', '"event":"end","pid":7'))).toMatchObject({ started: true, ended: true });
    // Killed, then started again by the CLI, which ended the second: the first never ended.
    const restarted = lines('"event":"start","pid":7', '"event":"start","pid":8', '"event":"end","pid":8');
    expect(readStubRecord(restarted)).toMatchObject({ started: true, ended: false });
  });
});

describe('the stub server process (dist/mcp/stub-main.js over stdio)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mcp-'));
  afterAll(() => cleanup(dir));
  const spec = join(dir, 'jira.stub.json');
  writeFileSync(spec, JSON.stringify({ server: 'jira', stub: JIRA }));
  const main = join(import.meta.dirname, '..', 'dist', 'mcp', 'stub-main.js');

  it('lists the declared tools, answers each call with its canned answer and records it', async () => {
    const record = join(dir, 'a.record.jsonl');
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [main, spec, record] }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.description, t.inputSchema.required])).toEqual([
        ['create_issue', 'Create a Jira issue.', ['project']],
      ]);
      const ok = await client.callTool({ name: 'create_issue', arguments: { project: 'OPS', summary: 'login fails' } });
      expect(ok).toMatchObject({ content: [{ type: 'text', text: 'Created OPS-1' }] });
      expect(ok.isError).toBeFalsy();
      const refused = await client.callTool({ name: 'create_issue', arguments: { project: 'SEC' } });
      expect(refused).toMatchObject({ content: [{ type: 'text', text: 'SEC is read-only' }], isError: true });
    } finally {
      await client.close();
    }
    expect(readStubRecord(readFileSync(record, 'utf8'))).toMatchObject({
      started: true,
      listed: ['create_issue'],
      // Its stdin closed with the client: a clean end, on record.
      ended: true,
      calls: [
        { tool: 'create_issue', args: { project: 'OPS', summary: 'login fails' }, isError: false },
        { tool: 'create_issue', args: { project: 'SEC' }, isError: true },
      ],
    });
  });

  it('killed -9, it leaves its record of the calls it answered', async () => {
    const record = join(dir, 'b.record.jsonl');
    const child = spawn(process.execPath, [main, spec, record], { stdio: ['pipe', 'pipe', 'inherit'] });
    const reply = new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const send = (m: object) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await reply;
    const answered = new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'create_issue', arguments: { project: 'OPS' } } });
    expect(await answered).toContain('OPS-2');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(readStubRecord(readFileSync(record, 'utf8'))).toMatchObject({ started: true, ended: false, calls: [{ tool: 'create_issue' }] });
  });
});

describe('grading a trial offered a stub MCP server (pure)', () => {
  const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
  const mcp = [{ name: 'jira', hash: 'h', stubTools: ['create_issue'] }];
  const positive: GradableCase = { id: 'c', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION, mcp };
  const withPlan: GradableCase = { ...positive, plan: { matches: ['^jira/create_issue .*"project":"OPS"'], mustNot: [], verb: undefined } };
  const OPTS: GradeOptions = {
    family: [{ dir: 'atl-jira', name: 'atl-jira' }],
    skillsFolder: claudeCode.skillsFolder,
    readCountsAsFiring: true,
    budgetStopsFail: true,
    conventions: claudeCode.grading,
  };
  const TOOLS = ['Glob', 'Grep', 'Read', 'Skill', 'mcp__jira__create_issue'];
  const stream = () => new ClaudeStream('/ws', ['atl-jira'], TOOLS);
  const call = (s: ClaudeStream) => s.answeredCall('mcp__jira__create_issue', { summary: 'x', project: 'OPS' }, 'Created OPS-1', false);
  const recorded = (calls: number, started = true, ended = started): Partial<TrialMeta> => ({
    evidence: {
      mcp: [
        {
          server: 'jira',
          started,
          ended,
          calls: Array.from({ length: calls }, () => ({ tool: 'create_issue', args: { project: 'OPS' }, isError: false, at: 't' })),
        },
      ],
    },
  });
  const grade = (s: ClaudeStream, c: GradableCase, meta: Partial<TrialMeta>) =>
    gradeTrial(parseClaudeStream(s.raw()), trialMeta(meta), c, 'skill', 1, OPTS);

  const ROWS: {
    name: string;
    build: () => ClaudeStream;
    c?: GradableCase;
    meta?: Partial<TrialMeta>;
    expect: Partial<Pick<TrialOutcome, 'passed' | 'status' | 'statusDetail' | 'fired' | 'firedColumn'>> & { plans?: string[] };
  }[] = [
    {
      name: 'the tool used instead of the skill is its own column',
      build: () => call(stream()).text('Created OPS-1.').result(),
      meta: recorded(1),
      expect: { status: 'ok', passed: false, fired: 'tool', firedColumn: 'tool:jira/create_issue' },
    },
    {
      name: 'the tool used first, then the skill: the tool was the choice',
      build: () => call(stream()).skill('atl-jira').text('Done.').result(),
      meta: recorded(1),
      expect: { passed: false, fired: 'tool', firedColumn: 'tool:jira/create_issue' },
    },
    {
      name: "the skill first, then the tool its plan calls: the skill's, and the plan check reads the call",
      build: () => call(stream().skill('atl-jira')).text('Done.').result(),
      c: withPlan,
      meta: recorded(1),
      expect: { passed: true, fired: 'expected', firedColumn: 'atl-jira', plans: ['jira/create_issue {"project":"OPS","summary":"x"}'] },
    },
    {
      name: 'a call of the stub the stub has no record of answering: it was killed, missing data',
      build: () =>
        stream()
          .answeredCall('mcp__jira__create_issue', { project: 'OPS' }, 'MCP error -32000: Connection closed')
          .text('It failed.')
          .result(),
      meta: recorded(0),
      expect: { status: 'infra_error', passed: null },
    },
    {
      name: 'a stub killed while the trial ran, its tool never called: missing data, never "did not trigger"',
      build: () => stream().text('I can answer that without a tool.').result(),
      meta: recorded(0, true, false),
      expect: { status: 'infra_error', passed: null, statusDetail: expect.stringMatching(/stopped while the trial ran/) },
    },
    {
      name: 'a stub that never started yet answered: missing data',
      build: () => call(stream()).result(),
      meta: recorded(0, false),
      expect: { status: 'infra_error', passed: null },
    },
    {
      name: 'a real server that never started, the model answering without a tool: missing data, never "did not trigger"',
      build: () => stream().text('I can answer that without a tool.').result(),
      c: { ...positive, mcp: [{ name: 'issues', hash: 'i' }] },
      meta: { evidence: { mcp: [{ server: 'issues', started: false, ended: false, calls: [], exited: { code: 3, signal: null } }] } },
      expect: { status: 'infra_error', passed: null, statusDetail: expect.stringMatching(/"issues" never started \(exit code 3\)/) },
    },
    {
      name: 'a stub tool missing from the listing: isolation error',
      build: () => new ClaudeStream('/ws', ['atl-jira'], ['Glob', 'Grep', 'Read', 'Skill']).skill('atl-jira').result(),
      meta: recorded(0),
      expect: { status: 'isolation_error', passed: null },
    },
    {
      name: 'the skill alone, the tool listed and never called: passes',
      build: () => stream().skill('atl-jira').text('Done.').result(),
      meta: recorded(0),
      expect: { status: 'ok', passed: true, fired: 'expected', firedColumn: 'atl-jira' },
    },
  ];
  it.each(ROWS)('$name', (row) => {
    const o = grade(row.build(), row.c ?? positive, row.meta ?? {});
    const { plans, ...fields } = row.expect;
    expect(o).toMatchObject(fields);
    if (plans) expect(o.plan?.plans).toEqual(plans);
  });

  it('a trial offered no stub is graded as before: a call named like an MCP tool the CLI never listed is no choice', () => {
    const s = new ClaudeStream('/ws', ['atl-jira'])
      .answeredCall('mcp__jira__create_issue', {}, 'No such tool', true)
      .skill('atl-jira')
      .result();
    const o = gradeTrial(parseClaudeStream(s.raw()), trialMeta({}), { ...positive, mcp: undefined }, 'skill', 1, OPTS);
    expect(o).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
  });
});

describe("a real server's watch (dist/mcp/watch-main.js over stdio)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mcp-watch-'));
  afterAll(() => cleanup(dir));
  const folder = join(import.meta.dirname, 'fixtures', 'mcp');
  const watched = (record: string, command: string, ...args: string[]) =>
    new StdioClientTransport({ command: process.execPath, args: [WATCH_MAIN, record, folder, command, ...args], stderr: 'ignore' });

  it('passes the server through untouched, and records that it started, the tools it listed and that the client ended it', async () => {
    const record = join(dir, 'ok.record.jsonl');
    const client = new Client({ name: 'test', version: '1' });
    // A bare command name, found on the PATH the CLI passed on as the CLI itself would, and a path relative to the
    // folder of the file that named the server.
    await client.connect(watched(record, 'node', 'issues-server.mjs'));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_issue', 'create_issue']);
      expect(await client.callTool({ name: 'get_issue', arguments: { key: 'OPS-1' } })).toMatchObject({
        content: [{ type: 'text', text: 'get_issue: done' }],
      });
    } finally {
      await client.close();
    }
    await expect
      .poll(() => readStubRecord(readFileSync(record, 'utf8')))
      .toEqual({ started: true, ended: true, listed: ['get_issue', 'create_issue'], calls: [] });
  });

  it.each<[string, string[], { code: number | null; error?: unknown }]>([
    ['exits before it answers', [process.execPath, '-e', 'process.exit(3)'], { code: 3 }],
    ['cannot be run', [join(dir, 'no-such-server')], { code: null, error: expect.stringContaining('ENOENT') }],
  ])('a server that %s is on record as never started, with how', async (_, [command, ...args], exited) => {
    const record = join(dir, `${exited.code}.record.jsonl`);
    const client = new Client({ name: 'test', version: '1' });
    await expect(client.connect(watched(record, command!, ...args))).rejects.toThrow();
    await expect.poll(() => readStubRecord(readFileSync(record, 'utf8').toString())).toMatchObject({ started: false, exited });
  });

  it('a server that ends by itself after it started is on record with its exit', async () => {
    const record = join(dir, 'died.record.jsonl');
    // Answers `initialize`, then exits 4 on the next message.
    const script = [
      "process.stdin.once('data', (d) => {",
      '  const id = JSON.parse(String(d).split("\\n")[0]).id;',
      "  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x', version: '1' } } }) + '\\n');",
      "  process.stdin.once('data', () => process.exit(4));",
      '});',
    ].join('\n');
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(watched(record, process.execPath, '-e', script));
    await expect(client.listTools()).rejects.toThrow();
    await client.close();
    await expect
      .poll(() => readStubRecord(readFileSync(record, 'utf8')))
      .toMatchObject({ started: true, exited: { code: 4, signal: null } });
  });
});

describe('grading a trial offered a real MCP server (pure)', () => {
  const servers = [
    { name: 'issues', hash: 'i', readOnly: ['get_issue'] },
    { name: 'jira', hash: 'h', stubTools: ['create_issue'] },
  ];
  const record = (fields: { started: boolean; exited?: { code: number | null; signal: string | null; error?: string } }) => ({
    evidence: { mcp: [{ server: 'issues', ended: !fields.exited, calls: [], ...fields }] },
  });
  it.each<[string, Partial<TrialMeta>, string | undefined]>([
    ['started, and ended by the CLI', record({ started: true }), undefined],
    ['never answered the CLI', record({ started: false }), 'the MCP server "issues" never started: the trial ran without its tools'],
    [
      'exited before it answered',
      record({ started: false, exited: { code: 3, signal: null } }),
      'the MCP server "issues" never started (exit code 3): the trial ran without its tools',
    ],
    [
      'could not be run',
      record({ started: false, exited: { code: null, signal: null, error: 'spawn nope ENOENT' } }),
      'the MCP server "issues" never started (spawn nope ENOENT): the trial ran without its tools',
    ],
    [
      'ended by itself mid-trial',
      record({ started: true, exited: { code: null, signal: 'SIGSEGV' } }),
      'the MCP server "issues" ended by itself while the trial ran (killed by SIGSEGV): its tools went missing',
    ],
    ['a run stored before real servers were watched (no record)', { evidence: { mcp: [] } }, undefined],
  ])('%s', (_, meta, problem) => {
    expect(realServerProblem(trialMeta(meta), servers)).toBe(problem);
  });
});

describe('Claude Code in the field with MCP servers (pure)', () => {
  const req = {
    mcp: [
      { name: 'jira', kind: 'stub', stub: JIRA, hash: 'h' },
      { name: 'gh', kind: 'command', command: '/bin/gh-mcp', args: [], env: [], readOnly: ['get_issue'], hash: 'g' },
    ] as McpServer[],
  };
  const matcher = () => {
    const settings = JSON.parse(fieldSettings(mcpReadOnlyPatterns(req))) as { hooks: { PreToolUse: { matcher: string }[] } };
    return new RegExp(settings.hooks.PreToolUse[0]!.matcher);
  };
  it.each([
    ['mcp__jira__create_issue', false],
    ['mcp__gh__get_issue', false],
    ['mcp__gh__create_issue', true],
    ['mcp__jirax__create_issue', true],
    ['Read', false],
    ['Bash', true],
  ])('the refusing hook matches %s: %s', (tool, refused) => expect(matcher().test(tool)).toBe(refused));

  it('lets a read-only MCP tool run and flags an acting one that was not refused', () => {
    const tools = [
      'Bash',
      'Edit',
      'Write',
      'NotebookEdit',
      'WebFetch',
      'WebSearch',
      'Task',
      'Read',
      'Skill',
      'mcp__jira__create_issue',
      'mcp__gh__create_issue',
    ];
    const mcp = [
      { name: 'jira', hash: 'h', stubTools: ['create_issue'] },
      { name: 'gh', hash: 'g', readOnly: ['get_issue'] },
    ];
    const stubCall = new ClaudeStream('/ws', ['atl-jira'], tools).answeredCall('mcp__jira__create_issue', {}, 'Created', false).result();
    expect(fieldEvidenceProblem(parseClaudeStream(stubCall.raw()), { workspaceChanged: [], mcp })).toBeUndefined();
    const acted = new ClaudeStream('/ws', ['atl-jira'], tools).answeredCall('mcp__gh__create_issue', {}, 'Created', false).result();
    expect(fieldEvidenceProblem(parseClaudeStream(acted.raw()), { workspaceChanged: [], mcp })).toMatch(
      /mcp__gh__create_issue not answered by a refusal/,
    );
  });
});

describe('the Gemini CLI with a stub MCP server (pure)', () => {
  const servers = [
    { name: 'jira', kind: 'stub', stub: JIRA, hash: 'h' },
    { name: 'gh', kind: 'command', command: '/bin/gh-mcp', args: ['--stdio'], env: [], readOnly: ['get_issue'], hash: 'g' },
  ] as McpServer[];

  it('trusts only a server that only reads', () => {
    const launches = servers.map((s) => ({ name: s.name, command: 'node', args: [], env: {} }));
    expect(geminiMcpServers(launches, servers)).toEqual({
      jira: { command: 'node', args: [], env: {}, trust: true },
      gh: { command: 'node', args: [], env: {}, trust: false },
    });
  });

  const stream = [
    '{"type":"init","session_id":"s","model":"gemini-2.5-pro"}',
    '{"type":"tool_use","tool_name":"mcp_jira_create_issue","tool_id":"t1","parameters":{"project":"OPS"}}',
    '{"type":"tool_result","tool_id":"t1","status":"success","output":"Created OPS-1"}',
    '{"type":"result","status":"success","stats":{}}',
  ].join('\n');
  const evidence = (listed?: string[]) => ({
    mcp: [
      {
        server: 'jira',
        started: true,
        ...(listed ? { listed } : {}),
        calls: [{ tool: 'create_issue', args: {}, isError: false, at: 't' }],
      },
    ],
  });

  it('reads the call as an MCP call, and the tools the stub listed as the ones offered', () => {
    const t = parseGeminiStream(stream, { evidence: evidence(['create_issue']), exitCode: 0 });
    expect(t.events.find((e) => e.kind === 'tool_call')).toMatchObject({ intent: 'mcp', mcp: { server: 'jira', tool: 'create_issue' } });
    expect(t.events.find((e) => e.kind === 'init')).toMatchObject({ tools: ['mcp_jira_create_issue'] });
  });

  it.each([
    ['listed', ['create_issue'], undefined],
    ['never asked for its tools', undefined, /MCP tools not offered to the model: jira\/create_issue/],
  ])('a stub that the CLI %s', (_, listed, problem) => {
    const t = parseGeminiStream(stream, { evidence: evidence(listed), exitCode: 0 });
    const found = mcpListingProblem(
      t.events.find((e) => e.kind === 'init')?.tools ?? [],
      { mcp: [{ name: 'jira', hash: 'h', stubTools: ['create_issue'] }] },
      geminiMcpName,
    );
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});

describe("a trial's MCP servers as every CLI starts them", () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mcp-launch-'));
  afterAll(() => cleanup(dir));
  const servers = [
    { name: 'jira', kind: 'stub', stub: JIRA, hash: 'h' },
    {
      name: 'gh',
      kind: 'command',
      command: '/usr/bin/gh-mcp',
      args: ['--stdio'],
      cwd: '/project',
      env: ['GH_TOKEN', 'UNSET'],
      readOnly: false,
      hash: 'g',
    },
  ] as McpServer[];

  it("starts the stub with this Node from the package's entry, and a real server with only its allowlisted variables", async () => {
    const callerEnv = { GH_TOKEN: 'token', OTHER_SECRET: 'no', PATH: '/bin' };
    const launches = await prepareMcpServers({ harnessDir: dir, callerEnv, mcp: servers });
    expect(launches).toEqual([
      {
        name: 'jira',
        command: process.execPath,
        args: [STUB_MAIN, join(dir, 'mcp', 'jira.stub.json'), mcpRecordFile({ harnessDir: dir }, 'jira')],
        env: {},
      },
      {
        name: 'gh',
        command: process.execPath,
        args: [WATCH_MAIN, mcpRecordFile({ harnessDir: dir }, 'gh'), '/project', '/usr/bin/gh-mcp', '--stdio'],
        env: { GH_TOKEN: 'token' },
      },
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'mcp', 'jira.stub.json'), 'utf8'))).toEqual({ server: 'jira', stub: JIRA });
    // A server the CLI never started left no record, and reads as not started.
    expect(await collectMcpEvidence({ harnessDir: dir, mcp: servers })).toEqual({
      mcp: [
        { server: 'jira', started: false, ended: false, calls: [] },
        { server: 'gh', started: false, ended: false, calls: [] },
      ],
    });
  });

  it('offers Claude Code only the read-only tools to run without asking', () => {
    expect(mcpAllowedTools({ mcp: servers })).toEqual(['mcp__jira']);
    const marked = [{ ...servers[1]!, readOnly: ['get_issue'] } as McpServer];
    expect(mcpAllowedTools({ mcp: marked })).toEqual(['mcp__gh__get_issue']);
  });
});

describe('the Codex CLI with a stub MCP server (pure)', () => {
  it('approves the calls of a server that only reads, and of a real server’s tools marked read-only', () => {
    const servers = [
      { name: 'jira', kind: 'stub', stub: JIRA, hash: 'h' },
      { name: 'gh', kind: 'command', command: '/bin/gh-mcp', args: [], env: [], readOnly: ['get_issue'], hash: 'g' },
    ] as McpServer[];
    const launches = servers.map((s) => ({ name: s.name, command: 'node', args: ['x'], env: {} }));
    expect(codexMcpServers(launches, servers)).toEqual({
      jira: { command: 'node', args: ['x'], env: {}, startup_timeout_sec: 60, required: true, default_tools_approval_mode: 'approve' },
      gh: {
        command: 'node',
        args: ['x'],
        env: {},
        startup_timeout_sec: 60,
        required: true,
        tools: { get_issue: { approval_mode: 'approve' } },
      },
    });
  });

  it('reads an mcp_tool_call item as an MCP call and its result, and the tools the stub listed as offered', () => {
    const item = (status: string, extra: object) =>
      JSON.stringify({
        id: 'item_1',
        type: 'mcp_tool_call',
        server: 'jira',
        tool: 'create_issue',
        arguments: { project: 'OPS' },
        status,
        ...extra,
      });
    const stream = [
      '{"type":"thread.started","thread_id":"t"}',
      `{"type":"item.started","item":${item('in_progress', { result: null, error: null })}}`,
      `{"type":"item.completed","item":${item('completed', { result: { content: [{ type: 'text', text: 'Created OPS-1' }] }, error: null })}}`,
      '{"type":"turn.completed","usage":{}}',
    ].join('\n');
    const evidence = { mcp: [{ server: 'jira', started: true, ended: true, listed: ['create_issue'], calls: [] }] };
    const t = parseCodexStream(stream, { evidence, exitCode: 0 });
    expect(t.events.filter((e) => e.kind === 'tool_call')).toMatchObject([
      { intent: 'mcp', name: 'mcp__jira__create_issue', mcp: { server: 'jira', tool: 'create_issue' }, input: { project: 'OPS' } },
    ]);
    expect(t.events.find((e) => e.kind === 'tool_result')).toMatchObject({ id: 'item_1', isError: false, text: 'Created OPS-1' });
    expect(t.events.find((e) => e.kind === 'init')).toMatchObject({ tools: ['mcp__jira__create_issue'] });
    const refused = stream.replace(
      /\{"type":"item\.completed".*\n/,
      `{"type":"item.completed","item":${item('failed', { result: null, error: { message: 'MCP tool call requires approval' } })}}\n`,
    );
    expect(parseCodexStream(refused, { evidence, exitCode: 0 }).events.find((e) => e.kind === 'tool_result')).toMatchObject({
      isError: true,
      text: 'MCP tool call requires approval',
    });
  });
});

describe('the MCP tools a CLI must offer the model (pure)', () => {
  const SERVERS = [
    { name: 'issues', hash: 'i', readOnly: ['get_issue'] },
    { name: 'jira', hash: 'j', stubTools: ['create_issue'] },
  ];
  const claude = (...tools: string[]) => tools.map((t) => `mcp__${t.replace('/', '__')}`);
  it.each<[string, string[], { server: string; listed?: string[] }[] | undefined, string | undefined]>([
    [
      'every tool offered',
      claude('issues/get_issue', 'issues/create_issue', 'jira/create_issue'),
      [{ server: 'issues', listed: ['get_issue', 'create_issue'] }],
      undefined,
    ],
    [
      "a real server's listed tool left out",
      claude('issues/get_issue', 'jira/create_issue'),
      [{ server: 'issues', listed: ['get_issue', 'create_issue'] }],
      'MCP tools not offered to the model: issues/create_issue',
    ],
    [
      "a stub's declared tool left out",
      claude('issues/get_issue', 'issues/create_issue'),
      [{ server: 'issues', listed: ['get_issue', 'create_issue'] }],
      'MCP tools not offered to the model: jira/create_issue',
    ],
    ['a real server never asked for its tools: left to what started', claude('jira/create_issue'), [{ server: 'issues' }], undefined],
    ['a run stored before real servers listed on record', claude('jira/create_issue'), undefined, undefined],
  ])('%s', (_, offered, mcpRecords, problem) => {
    expect(mcpListingProblem(offered, { mcp: SERVERS, ...(mcpRecords ? { mcpRecords } : {}) }, (t) => `mcp__${t.server}__${t.tool}`)).toBe(
      problem,
    );
  });
});
