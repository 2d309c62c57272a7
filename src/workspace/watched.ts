import { rm } from 'node:fs/promises';
import { startWatchdog } from './watchdog.js';
import { createOwnedFolder } from './owner.js';

/**
 * Runs `use` in a new folder of `base` this process owns (`skillprobe-<pid>-<label>XXXXXX`, owner.ts), removed
 * afterwards: a probe's scratch (the MCP start check, the CLI's version, its sandbox and field probes, doctor's live
 * check). A watchdog of its own watches it meanwhile: this process killed outright (SIGKILL runs no handler), every
 * process whose HOME is in the folder is ended, its group whole, and the folder removed; its watchdog killed too, the
 * next run's sweep of `base` does it. So whatever `use` starts gets its HOME there.
 */
export async function inWatchedFolder<T>(base: string, label: string, use: (root: string) => Promise<T>): Promise<T> {
  // Watching before the folder exists: no moment where a kill leaves it unwatched.
  const watchdog = startWatchdog(base);
  try {
    const root = await createOwnedFolder(base, label);
    try {
      return await use(root);
    } finally {
      // Retried as the reaper retries: a CLI's last writes into its HOME may still be landing as it exits.
      await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
  } finally {
    await watchdog.standDown();
  }
}
