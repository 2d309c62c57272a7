/** Ctrl-C, `kill` and a closed terminal all ask a run to stop. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How often a run whose parent is watched checks that it is still there. */
const PARENT_POLL_MS = 250;

/**
 * The first stop signal calls `stop` (a graceful stop); any later one calls `force`, which must exit the process.
 * With `watchParent`, the parent process going away counts as a stop signal: npm (`npx skillprobe`, `npm run`) starts
 * the CLI under `sh -c`, and a SIGTERM to npm kills that shell without passing the signal on, which would leave the
 * run going in the background. Returns what removes the handlers.
 */
export function onStopSignals(stop: () => void, force: () => never, opts: { watchParent?: boolean } = {}): () => void {
  let stopping = false;
  const handler = () => {
    if (stopping) force();
    stopping = true;
    stop();
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  const parent = process.ppid;
  const watch = opts.watchParent
    ? setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(watch);
        handler();
      }, PARENT_POLL_MS).unref()
    : undefined;
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
    clearInterval(watch);
  };
}
