import { killAllAgentGroups, listenToAgentGroups } from '../agents/spawn.js';
import { EXIT } from '../run/exit-codes.js';
import type { RunManifest } from '../run/schema.js';
import type { RunStore } from '../run/store.js';
import { plural } from '../util/text.js';
import { recordAgentGroup } from '../workspace/owner.js';
import type { WorkspacePool } from '../workspace/pool.js';
import { sweepStaleWorkspaces } from '../workspace/reap.js';
import { onStopSignals } from './signals.js';
import { startWatchdog } from '../workspace/watchdog.js';

export interface RunGuard {
  /**
   * The trials are over and the manifest says how the run ended: from now on a stop signal lets the results be
   * written (saying so), and only a second one exits at once, run.json written as it ended (`skillprobe grade` stores
   * the results later).
   */
  trialsDone(): void;
  /** The run cleaned up after itself: signals back to their defaults, the watchdog stands down and is gone. */
  release(): Promise<void>;
}

/**
 * Keeps a stopped or killed run from leaving agents, workspaces or a `running` run.json behind:
 * - sweeps the workspaces earlier runs left in the pool's folder when they died with their watchdog;
 * - records each agent's process group in its workspace, and starts the watchdog that reaps them if this process
 *   dies outright (SIGKILL runs no handler);
 * - SIGINT, SIGTERM and SIGHUP (and, for a run npm started, its parent going away) stop the run gracefully (`abort`: running trials killed, finished ones kept); a second
 *   one forces the exit, still cleaning up, synchronously: agents killed, workspaces removed, run.json `interrupted`
 *   with the trials stored so far (`finished`).
 */
export async function guardRun(run: {
  abort: AbortController;
  workspaces: WorkspacePool;
  store: RunStore;
  /** The run folder as the user names it. */
  named: string;
  manifest: RunManifest;
  finished: () => number;
  stderr: NodeJS.WritableStream;
  /** Started by npm, whose shell does not pass a SIGTERM on: the parent going away stops the run too. */
  watchParent?: boolean;
}): Promise<RunGuard> {
  const { abort, workspaces, store, manifest, stderr } = run;
  const swept = await sweepStaleWorkspaces(workspaces.base);
  if (swept) stderr.write(`swept ${plural(swept, 'workspace')} left in ${workspaces.base} by skillprobe runs that are gone\n`);
  const watchdog = startWatchdog(workspaces.base);
  listenToAgentGroups(recordAgentGroup);
  let trialsOver = false;
  const force = (): never => {
    killAllAgentGroups();
    workspaces.removeAllSync();
    // Once the trials are over run.json says how the run ended; before, the stop interrupted it.
    const ended = trialsOver
      ? manifest
      : { ...manifest, status: 'interrupted' as const, trials: { ...manifest.trials, finished: run.finished() } };
    try {
      store.writeManifestSync({ ...ended, endedAt: manifest.endedAt ?? new Date().toISOString() });
    } catch {
      /* a run.json left `running` reads as interrupted once this process is gone */
    }
    stderr.write(
      trialsOver
        ? `exiting before results.json was written: \`skillprobe grade ${run.named}\` writes it from the stored trials\n`
        : 'forced stop: running trials killed; trials stored so far are kept\n',
    );
    process.exit(EXIT.interrupted);
  };
  let offSignals = onStopSignals(
    () => {
      stderr.write('\nstopping: killing running trials and saving what finished (Ctrl-C again to force)\n');
      abort.abort();
    },
    force,
    { watchParent: run.watchParent },
  );
  return {
    trialsDone() {
      trialsOver = true;
      // Counted afresh: the signal that stopped the trials (if one did) is not the one that skips the results.
      offSignals();
      offSignals = onStopSignals(
        () => stderr.write('\nfinishing: grading the stored trials and writing results.json (Ctrl-C again to exit now)\n'),
        force,
        { watchParent: run.watchParent },
      );
    },
    release() {
      offSignals();
      listenToAgentGroups(undefined);
      return watchdog.standDown();
    },
  };
}
