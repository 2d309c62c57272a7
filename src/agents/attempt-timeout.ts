/**
 * A CLI's own timeout for one attempt at an API call, short enough that every attempt (the first and each retry)
 * fits inside the harness deadline with room to spare: a hung or stalled API then ends as the CLI's own error
 * (missing data, retried by the harness), never as a kill after the model acted. Clamped to what the CLI accepts.
 */
export function attemptTimeoutMs(deadlineMs: number, cliRetries: number, bounds: { min: number; max: number }): number {
  return Math.max(bounds.min, Math.min(bounds.max, Math.floor((0.8 * deadlineMs) / (1 + cliRetries))));
}
