import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorVerdicts, renderDoctor } from '../src/cli/doctor-report.js';
import { unstartedServersNote } from '../src/cli/unstarted-servers.js';
import type { SuiteServers } from '../src/commands/doctor-mcp.js';
import type { CommandServer, McpServer } from '../src/load/mcp.js';
import { EXIT } from '../src/run/exit-codes.js';
import { projectsRemovedAfterAll, runInProcess, testEnv, writeFiles } from './helpers.js';

const ISSUES_SERVER = join(import.meta.dirname, 'fixtures', 'mcp', 'issues-server.mjs');

/** A config naming two real servers: `issues` (line 5), which answers, and `broken` (line 8), which exits 3. */
const twoServers = (starts: string) =>
  [
    'cases: cases/*.yaml',
    'arms: [skill]',
    'mcp:',
    '  issues:',
    '    command: node',
    `    args: [${JSON.stringify(ISSUES_SERVER)}]`,
    '  broken:',
    '    command: node',
    `    args: ["-e", ${JSON.stringify(`require('node:fs').appendFileSync(${JSON.stringify(starts)}, 'x'); console.error('GH_TOKEN is not set'); process.exit(3)`)}]`,
    '',
  ].join('\n');

const real = (name: string, line: number, args = [name]): CommandServer => ({
  name,
  kind: 'command',
  command: '/usr/bin/node',
  args,
  cwd: '/p',
  env: [],
  readOnly: false,
  hash: name,
  at: { file: 'skillprobe.config.yaml', line, col: 5 },
});
const stub = { name: 'jira', kind: 'stub', hash: 'j', at: { file: 'skillprobe.config.yaml', line: 9, col: 5 } } as unknown as McpServer;

describe('a plan says which real MCP servers it did not start', () => {
  it.each<[string, McpServer[][], string]>([
    ['none: nothing said', [[], [stub]], ''],
    [
      'one, named by two cases',
      [[real('issues', 5)], [real('issues', 5), stub]],
      '\nNot started by this plan: the real MCP server "issues" (skillprobe.config.yaml:5:5). A run starts it before any trial and refuses one that does not answer (exit 2); `skillprobe doctor` starts it now.\n',
    ],
    [
      'two',
      [[real('issues', 5), real('gh', 8)]],
      '\nNot started by this plan: the real MCP servers "issues" (skillprobe.config.yaml:5:5), "gh" (skillprobe.config.yaml:8:5). A run starts each before any trial and refuses one that does not answer (exit 2); `skillprobe doctor` starts them now.\n',
    ],
  ])('%s', (_name, cases, note) => expect(unstartedServersNote(cases.map((mcpServers) => ({ mcpServers })))).toBe(note));
});

const passed = { name: 'issues', at: 'skillprobe.config.yaml:5:5', ms: 212 };
const failed = {
  name: 'broken',
  at: 'skillprobe.config.yaml:8:5',
  ms: 90,
  problem: { what: 'MCP server "broken" ended before it answered', todo: 'run its command in /p to see why' },
};
const suite = (...servers: SuiteServers['servers']): SuiteServers => ({ config: 'skillprobe.config.yaml', servers });

describe("doctor: the suite's real MCP servers", () => {
  it.each<[string, SuiteServers | undefined, string[]]>([
    [
      'no config here',
      undefined,
      ["No skillprobe.config.yaml here: a suite's real MCP servers are started where one is, or with --config FILE."],
    ],
    ['no real server', suite(), ['The suite in skillprobe.config.yaml offers its trials no real MCP server.']],
    [
      'one answered, one did not',
      suite(passed, failed),
      [
        'The real MCP servers of the suite in skillprobe.config.yaml, each started as a run starts it before any trial:',
        '  skillprobe.config.yaml:5:5: MCP server "issues" answered MCP\'s `initialize` in 0.21 s',
        '  skillprobe.config.yaml:8:5: MCP server "broken" ended before it answered',
        '    a run refuses it (exit 2): run its command in /p to see why',
      ],
    ],
  ])('said: %s', (_name, s, lines) => expect(renderDoctor([], s).trimEnd().split('\n').slice(-lines.length)).toEqual(lines));

  it.each<[string, SuiteServers | undefined, number[]]>([
    ['no suite: the CLIs alone', undefined, [EXIT.error]],
    ['a server that answered passes', suite(passed), [EXIT.error, EXIT.pass]],
    ['one that did not fails', suite(passed, failed), [EXIT.error, EXIT.pass, EXIT.fail]],
  ])('exit codes: %s', (_name, s, codes) => expect(doctorVerdicts([], s)).toEqual(codes));
});

describe('doctor and plan on a suite with real MCP servers (in process)', () => {
  const project = projectsRemovedAfterAll();

  it('doctor starts each as a run would, says how it went at its config line, and exits 1 for the one that did not answer', async () => {
    const dir = project();
    const starts = join(dir, 'starts');
    writeFiles(dir, { 'skillprobe.config.yaml': twoServers(starts) });
    const r = await runInProcess(['doctor', '--agent', 'codex'], { cwd: dir, env: testEnv() });
    expect(r.exitCode, r.stderr).toBe(EXIT.fail);
    expect(r.stdout).toMatch(/\n {2}skillprobe\.config\.yaml:5:5: MCP server "issues" answered MCP's `initialize` in \d+\.\d\d s\n/);
    expect(r.stdout).toContain(
      '\n  skillprobe.config.yaml:8:5: MCP server "broken" ended before it answered MCP\'s `initialize` (exit code 3); its stderr ended: GH_TOKEN is not set: every trial would run without its tools\n',
    );
    expect(existsSync(starts)).toBe(true);
    const json = await runInProcess(['doctor', '--agent', 'codex', '--json'], { cwd: dir, env: testEnv() });
    const { mcp } = JSON.parse(json.stdout) as { mcp: SuiteServers };
    expect(mcp.servers.map((s) => [s.name, s.at, s.problem === undefined])).toEqual([
      ['issues', 'skillprobe.config.yaml:5:5', true],
      ['broken', 'skillprobe.config.yaml:8:5', false],
    ]);
  });

  it('doctor --config naming no file is refused (exit 2)', async () => {
    const r = await runInProcess(['doctor', '--agent', 'codex', '--config', 'nope.yaml'], { cwd: project(), env: testEnv() });
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/^skillprobe: --config: nope\.yaml does not exist/);
  });

  it('plan starts none of them, and says so', async () => {
    const dir = project();
    const starts = join(dir, 'starts');
    writeFiles(dir, { 'skillprobe.config.yaml': twoServers(starts) });
    const r = await runInProcess(['plan'], { cwd: dir, env: testEnv() });
    expect(r.exitCode, r.stderr).toBe(EXIT.pass);
    expect(r.stdout).toContain(
      'Not started by this plan: the real MCP servers "issues" (skillprobe.config.yaml:5:5), "broken" (skillprobe.config.yaml:8:5).',
    );
    expect(existsSync(starts)).toBe(false);
  });
});
