import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CommandServer, McpServer } from '../src/load/mcp.js';
import { checkMcpServersStart } from '../src/runner/mcp-check.js';
import { InputError } from '../src/util/input-error.js';
import { processAlive } from '../src/util/process-group.js';
import { refusedNothingSpent } from './tune-fixture.js';
import { execa } from 'execa';
import {
  CLI,
  expectRunRefused,
  projectsRemovedAfterAll,
  runInProcess,
  spyBinary,
  testEnv,
  testNode,
  until,
  writeFiles,
} from './helpers.js';

const ISSUES_SERVER = join(import.meta.dirname, 'fixtures', 'mcp', 'issues-server.mjs');

/** A config naming one real server `node -e <script>` (its entry at line 5). */
const configWith = (script: string) =>
  [
    'cases: cases/*.yaml',
    'arms: [skill]',
    'mcp:',
    '  issues:',
    '    command: node',
    `    args: ["-e", ${JSON.stringify(script)}]`,
    '',
  ].join('\n');

/** A real server as the config loads it: `node` with these arguments, named at the config's line 5. */
const server = (args: string[], name = 'issues'): CommandServer => ({
  name,
  kind: 'command',
  command: process.execPath,
  args,
  cwd: '/',
  env: [],
  readOnly: false,
  hash: name,
  at: { file: 'skillprobe.config.yaml', line: 5, col: 5 },
});

/** A Node script that writes its pid, and its child's (a process of its group), to `file` first. */
const withPids = (file: string, then: string) =>
  [
    "const { spawn } = require('node:child_process');",
    "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
    `require('node:fs').writeFileSync(${JSON.stringify(file)}, process.pid + ' ' + child.pid);`,
    then,
  ].join('\n');

/** The check of `servers`, each real one named in a file in `cwd`. */
const checked = (servers: McpServer[], cwd: string, boundMs?: number) =>
  checkMcpServersStart(
    servers.map((s) => (s.kind === 'command' ? { ...s, cwd } : s)),
    { callerEnv: testEnv() },
    boundMs,
  ).then(
    () => undefined,
    (e: unknown) => {
      if (e instanceof InputError) return e.message;
      throw e;
    },
  );

/** The pids a server wrote to `file` (none yet: none). */
const pidsIn = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(' ').map(Number) : []);

/**
 * A file for a server's pids, whose processes are killed once the test is over should one still be there (the test then
 * failed), so a failing run leaves nothing behind either.
 */
const pidsFile = (dir: string) => {
  const file = join(dir, 'pids');
  onTestFinished(() => {
    for (const pid of pidsIn(file).filter(processAlive)) process.kill(pid, 'SIGKILL');
  });
  return file;
};

/** Each pid `file` names is gone (polled: a killed process is reaped a moment later; a watchdog's grace is 2 s). */
const allGone = async (file: string, timeout = 3000) => {
  const pids = pidsIn(file);
  expect(pids).toHaveLength(2);
  await expect.poll(() => pids.filter(processAlive), { timeout }).toEqual([]);
};

describe('a real MCP server is started once before any trial (in process)', () => {
  const project = projectsRemovedAfterAll();
  const emptyFolder = projectsRemovedAfterAll(() => ({}));

  it('run: a server that exits at once is refused with exit 2 naming the file, line, server, exit code and its stderr; nothing spawned or written', async () => {
    const dir = project();
    writeFiles(dir, { 'skillprobe.config.yaml': configWith("console.error('boom: no token'); process.exit(3)") });
    await expectRunRefused(
      dir,
      'skillprobe.config.yaml:5:5: MCP server "issues" ended before it answered MCP\'s `initialize` (exit code 3); its stderr ended: boom: no token: every trial would run without its tools',
    );
  });

  it('a server that never answers is refused once the bound passes, and its whole group is ended', async () => {
    const dir = project();
    const pids = pidsFile(dir);
    const started = Date.now();
    const message = await checked([server(['-e', withPids(pids, 'setInterval(() => {}, 1000)')])], dir, 500);
    expect(message).toMatch(
      /^skillprobe.config.yaml:5:5: MCP server "issues" did not answer MCP's `initialize` within 0.5 s: every trial would run without its tools — run its command in .+ to see why/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    await allGone(pids);
  });

  it('Ctrl-C while a server hangs ends it and whatever it started, and exits 130 with nothing made', async () => {
    const dir = project();
    const pids = pidsFile(dir);
    writeFiles(dir, { 'skillprobe.config.yaml': configWith(withPids(pids, 'setInterval(() => {}, 1000)')) });
    const spy = spyBinary(dir);
    const cli = execa(testNode(), [CLI, 'run', '--agent-binary', spy.path, '--transcripts', 'runs'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    await until(() => existsSync(pids) && readFileSync(pids, 'utf8').includes(' '), 20_000);
    cli.kill('SIGINT');
    const r = await cli;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toContain('stopped while the MCP servers were being started');
    await allGone(pids);
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });

  it('kill -9 while a server hangs: the watchdog ends it and whatever it started, and removes its HOME', async () => {
    const dir = project();
    const pids = pidsFile(dir);
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    writeFiles(dir, { 'skillprobe.config.yaml': configWith(withPids(pids, 'setInterval(() => {}, 1000)')) });
    const spy = spyBinary(dir);
    const cli = execa(testNode(), [CLI, 'run', '--agent-binary', spy.path, '--transcripts', 'runs'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy', TMPDIR: tmp }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    await until(() => existsSync(pids) && readFileSync(pids, 'utf8').includes(' '), 20_000);
    // The servers' HOME is a folder the run owns, its pid in the name.
    expect(readdirSync(tmp)).toEqual([expect.stringMatching(new RegExp(`^skillprobe-${cli.pid}-mcp-check-`))]);
    cli.kill('SIGKILL');
    expect((await cli).signal).toBe('SIGKILL');
    await allGone(pids, 15_000);
    await expect.poll(() => readdirSync(tmp), { timeout: 5000 }).toEqual([]);
    expect(existsSync(spy.marker)).toBe(false);
  });

  it('a server that answers passes, and leaves no process behind (its own nor one it started)', async () => {
    const dir = project();
    const pids = pidsFile(dir);
    expect(await checked([server(['-e', withPids(pids, `import(${JSON.stringify(ISSUES_SERVER)})`)])], dir)).toBeUndefined();
    await allGone(pids);
  });

  it('a command that cannot be run (its interpreter missing) is refused with why', async () => {
    const dir = project();
    const script = join(dir, 'server.sh');
    writeFileSync(script, '#!/no/such/interpreter\n');
    chmodSync(script, 0o755);
    const message = await checked([{ ...server([]), command: script }], dir);
    expect(message).toContain('MCP server "issues" could not be started (spawn');
    expect(message).toContain('ENOENT');
  });

  it('a server that answers `initialize` with an error is refused with its words, on one line', async () => {
    const dir = project();
    const script = [
      "process.stdin.once('data', (d) => {",
      '  const id = JSON.parse(String(d).split("\\n")[0]).id;',
      "  console.error('loading config\\nGH_TOKEN is not set');",
      "  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'no token:\\nset GH_TOKEN' } }) + '\\n');",
      '});',
    ].join('\n');
    const message = await checked([server(['-e', script])], dir);
    expect(message).toMatch(
      /MCP server "issues" answered MCP's `initialize` with an error \(MCP error -32603: no token: set GH_TOKEN\); its stderr ended: loading config \| GH_TOKEN is not set: every/,
    );
    expect(message?.split('\n')).toHaveLength(1);
  });

  it('checks each distinct server once, however many suites name it, and never a stub', async () => {
    const dir = project();
    const starts = join(dir, 'starts');
    const counted = server(['-e', `require('node:fs').appendFileSync(${JSON.stringify(starts)}, 'x'); process.exit(3)`]);
    const stub = { name: 'jira', kind: 'stub', hash: 'j', at: counted.at } as unknown as McpServer;
    const message = await checked([counted, stub, { ...counted }, counted], dir);
    expect(message?.split('\n')).toHaveLength(1);
    expect(readFileSync(starts, 'utf8')).toBe('x');
  });

  it('run --context lab,field: the server is started once for both runs, and nothing else is', async () => {
    const dir = project();
    const starts = join(dir, 'starts');
    writeFiles(dir, {
      'skillprobe.config.yaml': configWith(`require('node:fs').appendFileSync(${JSON.stringify(starts)}, 'x'); process.exit(3)`),
    });
    const spy = spyBinary(dir);
    const r = await runInProcess(['run', '--context', 'lab,field', '--agent-binary', spy.path, '--transcripts', 'runs'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('MCP server "issues" ended before it answered');
    expect(readFileSync(starts, 'utf8')).toBe('x');
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });

  // mutate opens its folder through the same `inRecordFolder` as tune, after the same check.
  it('tune refuses the same server before anything starts', async () => {
    const args = ['tune', 'csv-report', '--sim', 'sim.yaml'];
    const dir = emptyFolder();
    const mcp = configWith('process.exit(3)').split('\n').slice(2).join('\n');
    const lines = await refusedNothingSpent(dir, (f) => void (f['skillprobe.config.yaml'] += mcp), args);
    // After the simulator's notice, the one problem.
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^skillprobe: skillprobe.config.yaml:\d+:5: MCP server "issues" ended before it answered MCP's `initialize` \(exit code 3\)/,
      ),
    ]);
  });

  it('run --resume starts the server again (it may have broken since), before the run folder is read', async () => {
    const dir = project();
    writeFiles(dir, { 'skillprobe.config.yaml': configWith('process.exit(3)') });
    const before = readdirSync(dir, { recursive: true }).sort();
    const r = await runInProcess(['run', '--resume', 'runs/r1', '--transcripts', 'runs'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('MCP server "issues" ended before it answered');
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
  });
});
