/** Ctrl-C, `kill` and a closed terminal all ask a run to stop. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The first stop signal calls `stop` (a graceful stop); any later one calls `force`, which must exit the process.
 * Returns what removes the handlers.
 */
export function onStopSignals(stop: () => void, force: () => never): () => void {
  let stopping = false;
  const handler = () => {
    if (stopping) force();
    stopping = true;
    stop();
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
}
