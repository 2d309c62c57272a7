import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, TrialMeta } from '../src/run/schema.js';
import { cleanup, ROOT, runInProcess, testEnv } from './helpers.js';

/**
 * A real MCP server that never starts in the trial, through each real CLI against the simulator. Claude Code and the
 * Gemini CLI carry on without it (the Gemini CLI saying nothing of it in its stream), and the simulator, finding the
 * server's tool missing from what the CLI offered, answers without any tool: without the server's watch these trials
 * read "did not trigger". Codex, told the server is required, ends before any request, which the trial says. The server answers the run's own start of it before any trial (`checkMcpServersStart`, which refuses a
 * server that cannot start with exit 2) and breaks after: it exits 3 once its mark, left by that first start, is there.
 */
const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'issues-server.mjs');
const breaksAfterFirstStart = (mark: string) =>
  `const fs = require('node:fs'); if (fs.existsSync(${JSON.stringify(mark)})) process.exit(3); fs.writeFileSync(${JSON.stringify(mark)}, ''); import(${JSON.stringify(SERVER)});`;

/** What each CLI's trial says: Claude Code and the Gemini CLI ran the turn without the tools; Codex ran none. */
const DOWN = 'the MCP server "issues" never started (exit code 3)';
const AGENTS = [
  ['claude-code', `${DOWN}: the trial ran without its tools`],
  ['codex', `${DOWN}, and the CLI ended before any model call: nothing ran`],
  ['gemini', `${DOWN}: the trial ran without its tools`],
];

describe.each(AGENTS)('a real MCP server that never starts in the trial (%s, simulator)', (agent, detail) => {
  const dir = mkdtempSync(join(tmpdir(), `sp-mcp-down-${agent}-`));
  afterAll(() => cleanup(dir));

  it('is missing data (infra_error) naming the server and its exit, never "did not trigger"', async () => {
    const project = join(dir, 'project');
    cpSync(join(ROOT, 'examples', 'mcp'), project, { recursive: true });
    const config = ['cases: cases/*.yaml', 'arms: [skill]', 'retries: { infra: 0 }', 'mcp:', '  issues:', '    command: node'];
    const mark = join(dir, 'started-once');
    const args = `    args: ["-e", ${JSON.stringify(breaksAfterFirstStart(mark))}]`;
    writeFileSync(join(project, 'skillprobe.config.yaml'), [...config, args, ''].join('\n'));
    const profile = [
      'name: server-down',
      'seed: 1',
      'rules:',
      '  - case: file-bug',
      '    do: [{ mcp: issues/create_issue, input: { key: OPS-1 } }]',
    ];
    writeFileSync(join(project, 'sim.yaml'), [...profile, ''].join('\n'));
    const r = await runInProcess(
      ['run', '--agent', agent, '--sim', 'sim.yaml', '--trials', '1', '--grep', '^file-bug$', '--transcripts', join(dir, 'runs')],
      { cwd: project, env: testEnv() },
    );
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    expect(results.outcomes, r.stdout + r.stderr).toMatchObject([
      {
        caseId: 'file-bug',
        status: 'infra_error',
        passed: null,
        statusDetail: detail,
      },
    ]);
    expect(r.exitCode).toBe(4);
    // The run's check started it, and it answered.
    expect(existsSync(mark)).toBe(true);
  }, 120_000);
});

/**
 * A real MCP server whose tool listing comes 2 s after it answered `initialize`, through Codex against the simulator:
 * Codex 0.171.0 made its request without such a server's tools (the model then answered without one, read "did not
 * trigger") until a trial's servers were `required`, which makes it wait for the listing (docs/cli-facts.md).
 */
describe('a real MCP server slow to list its tools (codex, simulator)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mcp-slow-'));
  afterAll(() => cleanup(dir));

  it("is offered to the model: the trial's request names it and the model calls its tool", async () => {
    const project = join(dir, 'project');
    cpSync(join(ROOT, 'examples', 'mcp'), project, { recursive: true });
    const config = ['cases: cases/*.yaml', 'arms: [skill]', 'retries: { infra: 0 }', 'mcp:', '  issues:', '    command: node'];
    const server = [`    args: [${JSON.stringify(SERVER)}]`, '    env: [LIST_DELAY_MS]', '    readOnly: true'];
    writeFileSync(join(project, 'skillprobe.config.yaml'), [...config, ...server, ''].join('\n'));
    const profile = [
      'name: slow-listing',
      'seed: 1',
      'rules:',
      '  - case: open-ticket',
      '    do: [{ mcp: issues/get_issue, input: { key: OPS-2 } }]',
    ];
    writeFileSync(join(project, 'sim.yaml'), [...profile, ''].join('\n'));
    const r = await runInProcess(
      ['run', '--agent', 'codex', '--sim', 'sim.yaml', '--trials', '1', '--grep', '^open-ticket$', '--transcripts', join(dir, 'runs')],
      { cwd: project, env: testEnv({ LIST_DELAY_MS: '2000' }) },
    );
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    expect(results.outcomes, r.stdout + r.stderr).toMatchObject([
      { caseId: 'open-ticket', status: 'ok', fired: 'tool', firedColumn: 'tool:issues/get_issue' },
    ]);
    const meta = JSON.parse(readFileSync(join(runDir, 'trials', 'open-ticket', 'skill', '1.meta.json'), 'utf8')) as TrialMeta;
    expect(meta.evidence?.shown?.mcpServers).toEqual(['issues']);
    expect(meta.evidence?.mcp).toMatchObject([{ server: 'issues', started: true, listed: ['get_issue', 'create_issue'] }]);
  }, 120_000);
});
