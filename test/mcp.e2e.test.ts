import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterFor } from '../src/agents/registry.js';
import { EXIT } from '../src/run/exit-codes.js';
import type { RunManifest, TrialMeta, TrialOutcome } from '../src/run/schema.js';
import { resultsOf } from './e2e-scenarios.js';
import { cleanup, ROOT, runCli, testEnv } from './helpers.js';
import { readStubRecord } from '../src/mcp/record.js';
import type { ToolCallEvent } from '../src/transcript/types.js';

/**
 * examples/mcp through each real pinned CLI that offers MCP servers against the simulator: the stub MCP server's tools
 * are listed to the model, a call is answered with its canned result and recorded beside the trial, and a trial where
 * the model chose the tool grades as its own column. Draws pinned. How a run counts and tabulates the tool's column is
 * the harness's own whatever the CLI: Codex, the cheapest to start, runs the positive case and the negative one;
 * Claude Code and Gemini run the positive case alone. Two trials a case: the draws give the positive case one tool call
 * and one skill call, the fewest trials that show both.
 */
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

/**
 * Each CLI's name for the stub's tools on its model wire, and what its init event says of the server (Codex's: the
 * servers its session record says the request named).
 */
const AGENTS = [
  {
    id: 'claude-code',
    tools: ['mcp__jira__create_issue', 'mcp__jira__search_issues'],
    servers: [{ name: 'jira', status: 'connected' }],
    realTools: ['mcp__issues__get_issue', 'mcp__issues__create_issue'],
  },
  {
    id: 'gemini',
    tools: ['mcp_jira_create_issue', 'mcp_jira_search_issues'],
    servers: undefined,
    realTools: ['mcp_issues_get_issue', 'mcp_issues_create_issue'],
  },
  {
    id: 'codex',
    tools: ['mcp__jira__create_issue', 'mcp__jira__search_issues'],
    servers: [{ name: 'jira', status: 'connected' }],
    realTools: ['mcp__issues__get_issue', 'mcp__issues__create_issue'],
  },
];

/** The stub run's draws: file-bug's first trial calls the tool, its second the skill (the profile's 6 in 10 and 4 in 10). */
const STUB_DRAW_SEED = '12';
const STUB_TRIALS = 2;

/**
 * Per CLI, the stub run's cases, and the confusion table's columns and file-bug's row (see the top): the negative case
 * adds the column of no skill.
 */
const STUB_RUNS: Record<string, { grep: string; table: RegExp }> = {
  'claude-code': { grep: 'file-bug', table: /tool:jira\/create_issue *\n+atl-jira +1\/2 \.50 +1\/2 \.50 *\n/ },
  gemini: { grep: 'file-bug', table: /tool:jira\/create_issue *\n+atl-jira +1\/2 \.50 +1\/2 \.50 *\n/ },
  codex: { grep: 'file-bug|jira-history', table: /tool:jira\/create_issue +none *\n+atl-jira +1\/2 \.50 +1\/2 \.50 +0 *\n/ },
};

describe.each(AGENTS)('run with a stub MCP server ($id, simulator, examples/mcp)', (agent) => {
  const stubRun = STUB_RUNS[agent.id]!;
  // Made when a test of the block runs: a folder made at collection stays behind when `-t` skips the block.
  let transcripts = '';
  beforeAll(() => void (transcripts = mkdtempSync(join(tmpdir(), `sp-mcp-e2e-${agent.id}-`))));
  afterAll(() => cleanup(transcripts));
  const example = join(ROOT, 'examples', 'mcp');

  it('lists the stub tools, answers and records each call, and grades the tool chosen as its own column', async () => {
    const run = await runCli(
      [
        'run',
        '--agent',
        agent.id,
        '--sim',
        'sim.yaml',
        '--draw-seed',
        STUB_DRAW_SEED,
        '--trials',
        String(STUB_TRIALS),
        '--grep',
        stubRun.grep,
        '--transcripts',
        transcripts,
      ],
      { cwd: example, timeoutMs: 300_000 },
    );
    // Two trials cannot decide file-bug against its threshold: INCONCLUSIVE, exit 3.
    expect(run.exitCode, run.stderr).toBe(EXIT.inconclusive);
    const dir = join(transcripts, readdirSync(transcripts)[0]!);
    const manifest = readJson<RunManifest>(join(dir, 'run.json'));
    expect(manifest.cases.defs.find((c) => c.id === 'file-bug')?.mcp).toEqual([
      { name: 'jira', hash: expect.stringMatching(/^[0-9a-f]{64}$/), stubTools: ['create_issue', 'search_issues'] },
    ]);

    const results = resultsOf(dir);
    const outcomes = results.outcomes as TrialOutcome[];
    // Every trial was offered the stub's tools (else isolation_error) and ran to its end.
    expect(outcomes.map((o) => o.status)).toEqual(outcomes.map(() => 'ok'));
    const fileBug = outcomes.filter((o) => o.caseId === 'file-bug');
    const byTool = fileBug.filter((o) => o.fired === 'tool');
    expect(byTool.map((o) => o.firedColumn)).toEqual(byTool.map(() => 'tool:jira/create_issue'));
    expect(fileBug.map((o) => [o.n, o.fired])).toEqual([
      [1, 'tool'],
      [2, 'expected'],
    ]);
    expect(results.summary.cases.find((c) => c.caseId === 'file-bug')!.fired).toMatchObject({ expected: 1, tool: 1 });

    for (const o of fileBug) {
      const base = join(dir, 'trials', 'file-bug', 'skill', String(o.n));
      const meta = readJson<TrialMeta>(`${base}.meta.json`);
      const t = adapterFor(agent.id).parse(readFileSync(`${base}.jsonl`, 'utf8'), meta);
      const init = t.events.find((e) => e.kind === 'init');
      expect(init).toMatchObject({ tools: expect.arrayContaining(agent.tools) });
      if (agent.servers) expect(init).toMatchObject({ mcpServers: agent.servers });
      const calls = meta.evidence?.mcp?.[0];
      expect(calls?.started).toBe(true);
      if (o.fired === 'tool') {
        // The call as the model made it, answered with the canned result, on the stub's record.
        expect(calls?.calls).toEqual([
          {
            tool: 'create_issue',
            args: { project: 'OPS', summary: 'Login page returns 500 since deploy', type: 'Bug' },
            isError: false,
            at: expect.any(String),
          },
        ]);
        expect(t.events.some((e) => e.kind === 'tool_result' && e.text === 'Created OPS-1234.')).toBe(true);
        expect(t.events.find((e) => e.kind === 'tool_call' && e.intent === 'mcp')).toMatchObject({
          mcp: { server: 'jira', tool: 'create_issue' },
        });
      } else expect(calls?.calls).toEqual([]);
    }

    expect(run.stdout).toMatch(/expected \\ fired +atl-jira +tool:jira\/create_issue/);
    expect(run.stdout).toMatch(stubRun.table);
  });
});

/** The stub's record files of the trials running under `tmp` (each trial's harness folder, outside its workspace). */
const stubRecords = (tmp: string): string[] =>
  readdirSync(tmp)
    .filter((d) => d.startsWith('skillprobe-'))
    .map((d) => join(tmp, d, 'harness', 'mcp', 'jira.record.jsonl'))
    .filter((f) => existsSync(f));

/** examples/mcp copied into `dir`, with `config` and `profile` (lines) in place of its own; returns its folder. */
function exampleWith(dir: string, config: string[], profile: string[]): string {
  const project = join(dir, 'project');
  cpSync(join(ROOT, 'examples', 'mcp'), project, { recursive: true });
  writeFileSync(join(project, 'skillprobe.config.yaml'), [...config, ''].join('\n'));
  writeFileSync(join(project, 'sim.yaml'), [...profile, ''].join('\n'));
  return project;
}

describe('a stub MCP server killed -9 mid-trial (Claude Code, simulator)', () => {
  let dir = '';
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'sp-mcp-kill-'))));
  afterAll(() => cleanup(dir));

  it('is missing data (infra_error), never "did not trigger"', async () => {
    // One attempt: the killed trial stays as it ended. The model's first answer waits 3 s, time to kill the stub
    // once the CLI has listed its tools.
    const project = exampleWith(
      dir,
      ['cases: cases/*.yaml', 'mcp:', '  jira: { stub: jira-stub.yaml }', 'arms: [skill]', 'retries: { infra: 0 }'],
      [
        'name: slow',
        'seed: 1',
        'provider: { latency: { medianMs: 3000 } }',
        'rules:',
        '  - case: file-bug',
        '    do: [{ mcp: jira/create_issue, input: { project: OPS, summary: x } }]',
      ],
    );
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const run = runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--grep', 'file-bug', '--transcripts', join(dir, 'runs')], {
      cwd: project,
      env: testEnv({ TMPDIR: tmp }),
      timeoutMs: 120_000,
    });
    let killed: number | undefined;
    for (let waited = 0; killed === undefined && waited < 60_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      for (const file of stubRecords(tmp)) {
        const text = readFileSync(file, 'utf8');
        const pid = /"event":"start","pid":(\d+)/.exec(text)?.[1];
        if (pid && readStubRecord(text).listed) {
          process.kill(Number(pid), 'SIGKILL');
          killed = Number(pid);
        }
      }
    }
    expect(killed, 'the stub was seen listing its tools').toBeDefined();
    const r = await run;
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const [outcome] = resultsOf(runDir).outcomes as TrialOutcome[];
    expect(outcome, r.stdout + r.stderr).toMatchObject({ status: 'infra_error', passed: null, excludedBecause: 'infra_error' });
    expect(outcome!.statusDetail).toMatch(/MCP stub server "jira"/);
    // Nothing left behind: the trial's folders went with it.
    expect(readdirSync(tmp).filter((d) => d.startsWith('skillprobe-'))).toEqual([]);
  });
});

/**
 * Codex with a model outside its catalog (`sim-model`, as import-roundtrip's runs use) sends no code mode: each server's
 * tools come in the request's body as a namespace `mcp__<server>`, and the model calls one by its name there
 * (docs/cli-facts.md). A case with a history (a resumed thread) whose profile calls the stub's tool: the call goes
 * through, the stub answers, and the trial grades as the tool's column.
 */
describe("a history case calling an MCP tool offered in the request's body (codex, simulator)", () => {
  let dir = '';
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'sp-mcp-body-'))));
  afterAll(() => cleanup(dir));

  it('calls the tool in its namespace, and grades the tool chosen as its own column', async () => {
    const project = exampleWith(
      dir,
      ['cases: cases/history.yaml', 'agent: codex', 'model: sim-model', 'arms: [skill]', 'mcp:', '  jira: { stub: jira-stub.yaml }'],
      [
        'name: body-tools',
        'seed: 1',
        'rules:',
        '  - case: file-it',
        '    do: [{ mcp: jira/create_issue, input: { project: OPS, summary: x } }]',
      ],
    );
    writeFileSync(
      join(project, 'cases', 'history.yaml'),
      [
        '- id: file-it',
        '  prompt: "now file it"',
        '  history:',
        '    - user: "The login page returns 500 since the deploy, in OPS."',
        '    - assistant: "Understood: a bug in OPS about the login page."',
        '  expect: { skill: atl-jira }',
        '',
      ].join('\n'),
    );
    const run = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--transcripts', join(dir, 'runs')], {
      cwd: project,
      timeoutMs: 120_000,
    });
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const outcomes = resultsOf(runDir).outcomes as TrialOutcome[];
    expect(
      outcomes.map((o) => [o.status, o.fired, o.firedColumn]),
      run.stdout + run.stderr,
    ).toEqual([['ok', 'tool', 'tool:jira/create_issue']]);
    const meta = readJson<TrialMeta>(join(runDir, 'trials', 'file-it', 'skill', '1.meta.json'));
    // The history was resumed, and the stub answered the call the model made.
    expect(meta.evidence?.history).toMatchObject({ held: true });
    expect(meta.evidence?.mcp?.[0]?.calls).toEqual([
      { tool: 'create_issue', args: { project: 'OPS', summary: 'x' }, isError: false, at: expect.any(String) },
    ]);
  });
});

describe.each(AGENTS)('a real MCP server and a stub in the field ($id, simulator)', (agent) => {
  let dir = '';
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), `sp-mcp-real-${agent.id}-`))));
  afterAll(() => cleanup(dir));

  // Codex 0.171.0 on a loaded machine has sent a trial's request without a server whose listing came late: that trial
  // is missing data (infra_error), which the run tries again (`retries.infra`, 1 by default), so the row stands.
  it(
    'runs the read-only tools (the stub’s, the real one marked), refuses the acting one, and passes only allowlisted variables',
    // As long as the run itself may take: Gemini's row took 10 s idle and over 60 s beside the unit pass at load 10-15.
    { timeout: 150_000 },
    async () => {
      const log = join(dir, 'calls.log');
      const server = join(ROOT, 'test', 'fixtures', 'mcp', 'issues-server.mjs');
      const project = exampleWith(
        dir,
        [
          'cases: cases/*.yaml',
          'context: field',
          'arms: [skill]',
          'mcp:',
          '  issues:',
          `    command: ${process.execPath}`,
          `    args: [${JSON.stringify(server)}]`,
          '    env: [MCP_LOG]',
          '    readOnly: [get_issue]',
          '  jira: { stub: jira-stub.yaml }',
        ],
        [
          'name: real-server',
          'seed: 1',
          'rules:',
          '  - case: file-bug',
          '    do: [{ mcp: issues/create_issue, input: { key: OPS-1 } }]',
          '  - case: open-ticket',
          '    do: [{ mcp: issues/get_issue, input: { key: OPS-2 } }]',
          '  - case: jira-history',
          '    do: [{ mcp: jira/search_issues, input: { jql: "project = OPS" } }]',
        ],
      );
      const run = await runCli(
        [
          'run',
          '--agent',
          agent.id,
          '--sim',
          'sim.yaml',
          '--trials',
          '1',
          '--grep',
          'file-bug|open-ticket|jira-history',
          '--transcripts',
          join(dir, 'runs'),
        ],
        {
          cwd: project,
          env: testEnv({ MCP_LOG: log, SP_SECRET: 'never passed on' }),
          timeoutMs: 120_000,
        },
      );
      const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
      const outcomes = resultsOf(runDir).outcomes as TrialOutcome[];
      // Every trial is evidence: the field refused the acting call, and let the reads run (the stub's listed, its call recorded).
      expect(
        outcomes.map((o) => [o.caseId, o.status, o.fired, o.firedColumn]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        run.stdout + run.stderr,
      ).toEqual([
        ['file-bug', 'ok', 'tool', 'tool:issues/create_issue'],
        ['jira-history', 'ok', 'tool', 'tool:jira/search_issues'],
        ['open-ticket', 'ok', 'tool', 'tool:issues/get_issue'],
      ]);
      const records = readJson<TrialMeta>(join(runDir, 'trials', 'jira-history', 'skill', '1.meta.json')).evidence?.mcp;
      // The real server's watch saw it start and list its tools, and it did not end by itself.
      const watched = records?.find((r) => r.server === 'issues');
      expect([watched?.started, watched?.listed, watched?.exited]).toEqual([true, ['get_issue', 'create_issue'], undefined]);
      expect(records?.find((r) => r.server === 'jira')?.calls).toEqual([
        { tool: 'search_issues', args: { jql: 'project = OPS' }, isError: false, at: expect.any(String) },
      ]);
      expect(readFileSync(log, 'utf8')).toBe('get_issue clean\n');
      // The acting call, answered by the field refusal (Codex's stream never shows a refused call: its hook's log does).
      const base = join(runDir, 'trials', 'file-bug', 'skill', '1');
      const t = adapterFor(agent.id).parse(readFileSync(`${base}.jsonl`, 'utf8'), readJson<TrialMeta>(`${base}.meta.json`));
      // The real server's tools among those offered (as the CLI says, or for the Gemini CLI as the watch saw them listed).
      expect(t.events.find((e) => e.kind === 'init')).toMatchObject({ tools: expect.arrayContaining(agent.realTools) });
      const call = t.events.find((e) => e.kind === 'tool_call' && e.intent === 'mcp') as ToolCallEvent | undefined;
      expect(call).toMatchObject({ mcp: { server: 'issues', tool: 'create_issue' } });
      expect(t.events.find((e) => e.kind === 'tool_result' && e.id === call!.id)).toMatchObject({
        isError: true,
        text: expect.stringContaining('Not permitted in this session; the call was not run'),
      });
    },
  );
});
