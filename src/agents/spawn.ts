import { execa } from 'execa';
import type { TrialMeta } from '../transcript/types.js';
import type { Invocation } from './types.js';

export interface SpawnResult {
  stdout: Buffer;
  meta: TrialMeta;
}

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;

/** Process groups still alive, so an exiting harness can take them down with it. */
const liveGroups = new Set<number>();

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* ESRCH: the group is already gone */
  }
}

/** Last-resort cleanup when the harness itself is exiting. */
export function killAllAgentGroups(): void {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

/**
 * Runs one agent process in its own process group under the harness's deadline. On timeout or abort the
 * whole group gets SIGTERM, then SIGKILL after a grace period, so no descendant outlives the trial.
 */
export async function spawnAgent(
  inv: Invocation,
  opts: { cwd: string; deadlineMs: number; signal?: AbortSignal; attempt: number },
): Promise<SpawnResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  let timedOut = false;
  let interrupted = false;
  const child = execa(inv.file, inv.args, {
    cwd: opts.cwd,
    env: inv.env,
    extendEnv: false,
    stdin: 'ignore', // with an open stdin the CLI waits 3 s for piped input
    encoding: 'buffer',
    detached: true,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 512 * 1024 * 1024,
  });
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);

  let graceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
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
  clearTimeout(graceTimer);
  opts.signal?.removeEventListener('abort', onAbort);
  if (pid !== undefined) {
    // Anything the agent started and left behind goes too.
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
  }
  const stderr = Buffer.from(r.stderr ?? new Uint8Array()).toString('utf8');
  const spawnError = r.failed && r.exitCode === undefined && !r.signal && !timedOut && !interrupted ? (r.originalMessage ?? r.message) : undefined;
  return {
    stdout: Buffer.from(r.stdout ?? new Uint8Array()),
    meta: {
      exitCode: r.exitCode ?? null,
      signal: r.signal ?? null,
      wallMs: Math.round(performance.now() - t0),
      timedOut,
      interrupted,
      stderrTail: stderr.slice(-STDERR_TAIL),
      attempt: opts.attempt,
      ...(spawnError ? { spawnError } : {}),
      startedAt: startedAt.toISOString(),
    },
  };
}
