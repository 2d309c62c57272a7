import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { baseTrialEnv } from '../agents/caller-env.js';
import { allowlistedEnv } from '../agents/mcp-servers.js';
import { distinctCommandServers, type CommandServer, type McpServer } from '../load/mcp.js';
import { exitText, type ServerExit } from '../mcp/record.js';
import { EXIT } from '../run/exit-codes.js';
import { InputError, type InputProblem } from '../util/input-error.js';
import { OWN_MANIFEST } from '../util/package-root.js';
import { endGroups, killGroup } from '../util/process-group.js';
import { inWatchedFolder } from '../workspace/watched.js';
import { onStopSignals } from './signals.js';

/**
 * How long a real server gets to answer `initialize` before a run: a working one answers within a second (the tests'
 * Node server is started, answers and is ended in about 0.25 s at load 6), a slow one (fetched by `npx`, say) has room,
 * and one that hangs costs this wait once rather than every trial.
 */
export const MCP_START_BOUND_MS = 30_000;

/** How long a server gets to end on its own once its stdin is closed, and then on SIGTERM, before SIGKILL. */
const END_GRACE_MS = 1000;
/** What of a server's stderr the message quotes: its last lines, at most this many characters. */
const STDERR_LINES = 3;
const STDERR_CHARS = 400;

/** A real server's start check: how long it took, and why the server cannot serve a trial (undefined: it answered). */
export interface ServerStart {
  server: CommandServer;
  problem?: InputProblem;
  ms: number;
}

/**
 * Each real MCP server the suites offer their trials, started once as a trial's CLI would start it (its command,
 * arguments and allowlisted variables, the trial's PATH and locale, a fresh HOME) from the folder of the file naming it and asked
 * MCP's `initialize`: one that does not answer is refused with exit 2 (`InputError`) before anything else is spawned or
 * spent. Every CLI carries on without a server that fails, so each trial would be a model call with nothing to choose
 * and missing data after. A server named twice (by two agents' or contexts' suites) is started once; stubs are the
 * harness's own and not checked.
 */
export async function checkMcpServersStart(
  servers: readonly McpServer[],
  place: { callerEnv: NodeJS.ProcessEnv },
  boundMs = MCP_START_BOUND_MS,
): Promise<void> {
  const found = (await startMcpServers(servers, place, boundMs)).flatMap((s) => s.problem ?? []);
  if (found.length) throw new InputError(found.map((p) => ({ ...p, todo: `${p.todo}; nothing was run` })));
}

/**
 * The start check of each distinct real server (`doctor` reports it; a run refuses one that failed). Their HOME is in
 * a watched folder (watched.ts): this process killed outright, every server living there is ended and the folder
 * removed.
 */
export async function startMcpServers(
  servers: readonly McpServer[],
  place: { callerEnv: NodeJS.ProcessEnv },
  boundMs = MCP_START_BOUND_MS,
): Promise<ServerStart[]> {
  const distinct = distinctCommandServers(servers);
  if (distinct.length === 0) return [];
  return inWatchedFolder(tmpdir(), 'mcp-check-', async (root) => {
    const groups = new Set<number>();
    // Stopped meanwhile (a server that hangs is when Ctrl-C comes): the servers end with it, and nothing else was made.
    const stop = (): never => {
      for (const g of groups) killGroup(g, 'SIGKILL');
      rmSync(root, { recursive: true, force: true });
      process.stderr.write('\nstopped while the MCP servers were being started: they were ended, and nothing was run\n');
      process.exit(EXIT.interrupted);
    };
    const offSignals = onStopSignals(stop, stop);
    try {
      const home = join(root, 'home');
      await mkdir(home);
      const env = baseTrialEnv({ callerEnv: place.callerEnv, home, tmp: home }, () => false);
      return await Promise.all(
        distinct.map(async (server) => {
          const started = performance.now();
          const own = { ...env, ...allowlistedEnv(server.env, place.callerEnv) };
          const problem = await startProblem(server, { cwd: server.cwd, env: own, boundMs, groups });
          return { server, ...(problem ? { problem } : {}), ms: Math.round(performance.now() - started) };
        }),
      );
    } finally {
      offSignals();
    }
  });
}

/** Why `server` cannot serve a trial, or undefined once it answered `initialize`; it is ended either way. */
async function startProblem(
  server: CommandServer,
  how: { cwd: string; env: Record<string, string>; boundMs: number; groups: Set<number> },
): Promise<InputProblem | undefined> {
  const { cwd, boundMs } = how;
  // A group of its own, so whatever the server started (a wrapper's child, say) ends with it.
  const child = spawn(server.command, server.args, { cwd, env: how.env, stdio: 'pipe', detached: true });
  if (child.pid !== undefined) how.groups.add(child.pid);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4 * STDERR_CHARS)));
  // A server that died leaves a pipe that fails on write: how it ended is what is reported.
  child.stdin.on('error', () => {});
  const ended = new Promise<ServerExit>((resolve) => {
    child.once('error', (e) => resolve({ code: null, signal: null, error: e.message }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const client = new Client({ name: 'skillprobe', version: OWN_MANIFEST.version });
  // The SDK's stdio transport over the server's pipes: its client transport would start the server in this process's
  // group, which could not be ended whole.
  const answer = client.connect(new StdioServerTransport(child.stdout, child.stdin), { timeout: boundMs }).then(
    () => ({ answered: true as const }),
    (error: unknown) => ({ error }),
  );
  try {
    const outcome = await Promise.race([answer, ended.then((exit) => ({ exit }))]);
    if ('answered' in outcome) return undefined;
    const what = 'exit' in outcome ? endedUnanswered(outcome.exit) : unanswered(outcome.error, boundMs);
    const said = lastLines(stderr);
    return {
      ...server.at,
      what: `MCP server "${server.name}" ${what}${said ? `; its stderr ended: ${said}` : ''}: every trial would run without its tools`,
      todo: `run its command in ${cwd} to see why, and fix its \`command\`, \`args\` or \`env\` (or remove the server)`,
    };
  } finally {
    await client.close();
    await endServer(child, ended);
    if (child.pid !== undefined) how.groups.delete(child.pid);
  }
}

/** How a server that ended before it answered `initialize` ended. */
const endedUnanswered = (exit: ServerExit): string =>
  exit.error !== undefined ? `could not be started (${exit.error})` : `ended before it answered MCP's \`initialize\` (${exitText(exit)})`;

/** Why a running server's `initialize` failed: no answer in time, or an error answer. */
function unanswered(error: unknown, boundMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `did not answer MCP's \`initialize\` within ${boundMs / 1000} s`;
  return `answered MCP's \`initialize\` with an error (${oneLine(error instanceof Error ? error.message : String(error))})`;
}

/** MCP's stdio shutdown, of the server's whole group: its stdin closed, then SIGTERM, then SIGKILL. */
async function endServer(child: ChildProcessWithoutNullStreams, ended: Promise<ServerExit>): Promise<void> {
  if (child.pid === undefined) return;
  // Its exit, not its pipes' close: a process it started that left the group may hold them open.
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  child.stdin.end();
  await Promise.race([ended, sleep(END_GRACE_MS, undefined, { ref: false })]);
  await endGroups([child.pid], END_GRACE_MS);
  await exited;
}

/** A server's last stderr lines, on one line. */
function lastLines(text: string): string {
  const tail = oneLine(
    text
      .split('\n')
      .filter((l) => l.trim())
      .slice(-STDERR_LINES)
      .join(' | '),
  );
  return tail.length > STDERR_CHARS ? `…${tail.slice(-STDERR_CHARS)}` : tail;
}

/** A server's words, inside the one-line message. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
