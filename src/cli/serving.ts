import { InputError } from '../util/input-error.js';
import type { CliIo } from './command.js';

/** What the commands that serve until stopped (`sim`, `view`) share: their port's problems and their stop. */

/** A port a server cannot listen on is the user's to fix (exit 2), not a harness fault. */
export function listenProblem(e: unknown, port: number | undefined): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (port === undefined || (code !== 'EADDRINUSE' && code !== 'EACCES')) return e;
  return new InputError({
    file: '--port',
    what: code === 'EADDRINUSE' ? `port ${port} is already in use` : `port ${port} needs privileges this process lacks`,
    todo: 'pick another port, or leave --port out for a free one',
  });
}

/** Resolves when the user stops the command: `io.untilStopped`, else the process's first Ctrl-C or SIGTERM. */
export const untilStopped = (io: CliIo): Promise<void> =>
  io.untilStopped?.() ??
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
