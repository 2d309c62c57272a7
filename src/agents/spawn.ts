import { execa } from 'execa';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type { Invocation, ProviderSignal } from './types.js';
import type { TrialMeta, UsageLimit } from '../run/schema.js';
import { MAX_LINE_CHARS } from '../util/file-lines.js';
import { killGroup } from '../util/process-group.js';
import { StoreWriteError } from '../run/store.js';

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;

/** Process groups still alive, so an exiting harness can take them down with it. */
const liveGroups = new Set<number>();

/** Hears of every agent process group as it starts, with the agent's working folder (see runner/run-guard.ts). */
export type AgentGroupListener = (group: number, cwd: string) => void;
let groupStarted: AgentGroupListener | undefined;

/** Registers the listener (undefined: none) that records where each agent group runs, for the watchdog. */
export function listenToAgentGroups(listener: AgentGroupListener | undefined): void {
  groupStarted = listener;
}

/** Last-resort cleanup when the harness itself is exiting. */
export function killAllAgentGroups(): void {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

/**
 * Runs a short command of an agent CLI outside any trial (its version, a probe) the way trials run: in a process group
 * of its own, taken down whole once it has answered or timed out, so nothing it started outlives it (a wrapper
 * script's background child, say), and with every agent group when the harness stops meanwhile.
 */
export async function runAgentCommand(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; timeoutMs: number },
) {
  const child = execa(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs,
    detached: true,
  });
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);
  try {
    return await child;
  } finally {
    if (pid !== undefined) {
      killGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
    }
  }
}

/**
 * Runs one agent process in its own process group under the harness's deadline, streaming its stdout to
 * `stdoutFile` (never held whole in memory) up to `maxOutputBytes`. On timeout, abort or an oversized output
 * the whole group gets SIGTERM, then SIGKILL after a grace period, so no descendant outlives the trial.
 * Rejects with StoreWriteError when the transcript cannot be written; the process is stopped first.
 */
export async function spawnAgent(
  inv: Invocation,
  opts: {
    cwd: string;
    deadlineMs: number;
    signal?: AbortSignal;
    attempt: number;
    stdoutFile: string;
    /** Add to `stdoutFile` rather than start it afresh (a later process of the same trial). */
    append?: boolean;
    maxOutputBytes: number;
    /** For a CLI with no turn limit of its own: stop it once more than `max` tool calls have started. */
    toolCallLimit?: { startsToolCall: (line: string) => boolean; max: number };
    /** Reads each line the CLI prints for what it says of the provider, and passes it on as it comes. */
    provider?: { read: (line: string, from: 'stdout' | 'stderr') => ProviderSignal | undefined; signal: (s: ProviderSignal) => void };
    /** Reads each line the CLI prints for a subscription's usage limit: the first one found stops the CLI and is recorded. */
    usageLimit?: (line: string, now: Date, from: 'stdout' | 'stderr') => UsageLimit | undefined;
    /**
     * A conversation: user turns as lines on stdin, `first` at once; when a line of stdout ends the assistant's turn,
     * `next` is handed that turn's stdout and gives the next user line, or undefined to close stdin (the CLI then ends).
     */
    conversation?: ConversationInput;
    /**
     * Whether the trial's outcome is settled once a line of its stdout arrived, and how long the CLI may take to end by
     * itself then (it stops itself, and its last lines say what it used); after that, or at once, the whole group is
     * killed (nothing more of it is graded). The trial is recorded as `settled`.
     */
    settledBy?: (line: string) => { endsWithinMs: number } | undefined;
  },
): Promise<TrialMeta> {
  const startedAt = new Date();
  const t0 = performance.now();
  let timedOut = false;
  let interrupted = false;
  let outputBytes = 0;
  let lastOutputAt = t0;
  let outputTruncated = false;
  let turnLimitHit = false;
  const countToolCalls = opts.toolCallLimit && lineCounter(opts.toolCallLimit.startsToolCall);
  const provider = opts.provider;
  const readLimit = opts.usageLimit;
  let usageLimit: UsageLimit | undefined;
  const watch = (from: 'stdout' | 'stderr') =>
    (provider || readLimit) &&
    lineReader((line) => {
      const s = provider?.read(line, from);
      if (s) provider!.signal(s);
      if (usageLimit || !readLimit) return;
      usageLimit = readLimit(line, new Date(), from);
      if (usageLimit) stop();
    });
  const [watchOut, watchErr] = [watch('stdout'), watch('stderr')];
  let settled = false;
  const settledBy = opts.settledBy;
  const watchSettle =
    settledBy &&
    lineReader((line) => {
      const settling = settled ? undefined : settledBy(line);
      if (!settling || pid === undefined) return;
      settled = true;
      clearTimeout(deadline);
      if (settling.endsWithinMs > 0) settleTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), settling.endsWithinMs);
      else killGroup(pid, 'SIGKILL');
    });
  let settleTimer: NodeJS.Timeout | undefined;
  let writeError: Error | undefined;
  let stderrTail = '';
  const out = createWriteStream(opts.stdoutFile, { flags: opts.append ? 'a' : 'w' });
  const child = execa(inv.file, inv.args, {
    cwd: opts.cwd,
    env: inv.env,
    extendEnv: false,
    // With an open stdin the CLI waits 3 s for piped input; a conversation's turns come that way.
    stdin: opts.conversation ? 'pipe' : 'ignore',
    encoding: 'buffer',
    buffer: false,
    detached: true,
    reject: false,
  });
  const pid = child.pid;
  if (pid !== undefined) {
    liveGroups.add(pid);
    groupStarted?.(pid, opts.cwd);
  }

  const talk = opts.conversation && child.stdin ? converse(child.stdin, opts.conversation) : undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pid === undefined || graceTimer) return;
    killGroup(pid, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  out.on('error', (e) => {
    writeError ??= e;
    stop();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    lastOutputAt = performance.now();
    if (outputTruncated || writeError) return;
    const room = opts.maxOutputBytes - outputBytes;
    if (chunk.length > room) {
      outputTruncated = true;
      chunk = chunk.subarray(0, room);
      stop();
    }
    outputBytes += chunk.length;
    if (chunk.length) out.write(chunk);
    watchOut?.(chunk);
    talk?.(chunk);
    watchSettle?.(chunk);
    if (countToolCalls && !turnLimitHit && countToolCalls(chunk) > opts.toolCallLimit!.max) {
      turnLimitHit = true;
      stop();
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    watchErr?.(chunk);
  });
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, opts.deadlineMs);
  const onAbort = () => {
    interrupted = true;
    stop();
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const r = await child;
  clearTimeout(deadline);
  clearTimeout(settleTimer);
  clearTimeout(graceTimer);
  opts.signal?.removeEventListener('abort', onAbort);
  if (pid !== undefined) {
    // Anything the agent started and left behind goes too.
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
  }
  if (!out.destroyed) {
    out.end();
    await once(out, 'close').catch(() => {});
  }
  if (writeError) throw new StoreWriteError(opts.stdoutFile, writeError);
  const spawnError =
    r.failed && r.exitCode === undefined && !r.signal && !timedOut && !interrupted ? (r.originalMessage ?? r.message) : undefined;
  const endedAt = performance.now();
  return {
    exitCode: r.exitCode ?? null,
    signal: r.signal ?? null,
    wallMs: Math.round(endedAt - t0),
    quietMs: Math.round(endedAt - lastOutputAt),
    timedOut,
    interrupted,
    stderrTail,
    attempt: opts.attempt,
    ...(spawnError ? { spawnError } : {}),
    startedAt: startedAt.toISOString(),
    outputBytes,
    ...(outputTruncated ? { outputTruncated } : {}),
    ...(turnLimitHit ? { turnLimitHit } : {}),
    ...(settled ? { settled } : {}),
    ...(usageLimit ? { usageLimit } : {}),
  };
}

export interface ConversationInput {
  first: string;
  endsTurn(line: string): boolean;
  next(turn: string): string | undefined;
}

/** Feeds a conversation's user lines to `stdin` as the CLI's turns end; the returned reader takes its stdout chunks. */
function converse(stdin: NodeJS.WritableStream, c: ConversationInput): (chunk: Buffer) => void {
  // A CLI that dies mid-conversation closes its stdin: the write fails, and the trial's end says why.
  stdin.on('error', () => {});
  stdin.write(`${c.first}\n`);
  let turn: string[] = [];
  return lineReader((line) => {
    turn.push(line);
    if (!c.endsTurn(line)) return;
    const next = c.next(turn.join('\n'));
    turn = [];
    if (next === undefined) stdin.end();
    else stdin.write(`${next}\n`);
  });
}

/**
 * Calls `onLine` with each whole line of a stream arriving in chunks that may split lines and characters. Each chunk
 * is read once, so a line arriving in many chunks costs its length, not its length times its chunks (a CLI printing
 * megabytes on a line); a line past MAX_LINE_CHARS is cut, as a stored transcript's is when read back.
 */
export function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let pieces: string[] = [];
  let length = 0;
  const add = (piece: string) => {
    if (length < MAX_LINE_CHARS) pieces.push(piece.slice(0, MAX_LINE_CHARS - length));
    length += piece.length;
  };
  return (chunk) => {
    const text = decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      add(text.slice(start, end));
      onLine(pieces.join(''));
      [pieces, length, start] = [[], 0, end + 1];
    }
    if (start < text.length) add(text.slice(start));
  };
}

/** Counts the lines that `counts` so far. */
function lineCounter(counts: (line: string) => boolean): (chunk: Buffer) => number {
  let count = 0;
  const read = lineReader((line) => {
    if (counts(line)) count++;
  });
  return (chunk) => {
    read(chunk);
    return count;
  };
}
