/** What a test file could change in its worker's process and leave for the next file the worker runs. */
export interface ProcessState {
  cwd: string;
  env: Record<string, string | undefined>;
  /** How many listeners each stop signal has. */
  signalListeners: Record<string, number>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function processState(): ProcessState {
  return {
    cwd: process.cwd(),
    env: { ...process.env },
    signalListeners: Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s)])),
  };
}

/** What differs between two states of the process, one line each; none when nothing does. */
export function stateLeftBehind(before: ProcessState, after: ProcessState): string[] {
  const left: string[] = [];
  if (after.cwd !== before.cwd) left.push(`the working folder is ${after.cwd}, was ${before.cwd}`);
  for (const name of new Set([...Object.keys(before.env), ...Object.keys(after.env)])) {
    const [was, is] = [before.env[name], after.env[name]];
    if (is !== was) left.push(`process.env.${name} ${was === undefined ? 'set' : is === undefined ? 'removed' : 'changed'}`);
  }
  for (const [signal, count] of Object.entries(after.signalListeners))
    if (count > (before.signalListeners[signal] ?? 0))
      left.push(`${count - (before.signalListeners[signal] ?? 0)} more ${signal} listener(s)`);
  return left;
}
