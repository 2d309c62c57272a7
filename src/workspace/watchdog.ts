import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { packageFile } from '../util/package-root.js';

// An entry of its own in the package's compiled modules, found from the command's bundle as from any module.
const ENTRY = packageFile('dist', 'workspace', 'watchdog-main.js');

/** How long a run waits for its watchdog to be gone after standing it down; it exits within milliseconds. */
const STAND_DOWN_WAIT_MS = 2000;

export interface Watchdog {
  /**
   * This process cleaned up after itself: the watchdog exits without touching anything. Resolves once it is gone (or
   * after `STAND_DOWN_WAIT_MS`), so a run that returns has nothing of its own left running.
   */
  standDown(): Promise<void>;
}

/**
 * Starts the run's watchdog: a small process of its own (own session, so a terminal's signals do not reach it)
 * holding a pipe from this one. A process killed with SIGKILL runs no handler, but the kernel closes its end of the
 * pipe; the watchdog then reaps the workspaces this process owned in `base`, with their agents (watchdog-main.ts).
 * One per run, and one per probe's folder (watched.ts), idle until then: a trial costs it nothing.
 */
export function startWatchdog(base: string): Watchdog {
  const child = spawn(process.execPath, [ENTRY, String(process.pid), base], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    cwd: '/',
  });
  // A watchdog that could not start (or died) must not take the run with it: the next start's sweep remains.
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  // Neither the process nor the pipe keeps this one alive.
  child.unref();
  (child.stdin as Socket).unref();
  const gone = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return {
    standDown: () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
      // Killed, not told: idle while this process lives (it reaps only once the pipe closes), it has nothing to finish,
      // and a probe shorter than a Node start does not wait for its start.
      child.kill('SIGKILL');
      // Held again while it goes: a process with nothing else left to do would otherwise exit mid-wait.
      child.ref();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STAND_DOWN_WAIT_MS);
      });
      return Promise.race([gone, late]).finally(() => clearTimeout(timer));
    },
  };
}
