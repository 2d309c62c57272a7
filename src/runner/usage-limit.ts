import type { UsageLimit } from '../run/schema.js';

/** The longest `--wait-for-reset` sleeps: a weekly limit's reset is for a resumed run, not a process left waiting. */
export const MAX_RESET_WAIT_MS = 6 * 60 * 60 * 1000;

/** What a run does when a trial met a subscription's usage limit: sleep until it resets and go on, or stop. */
export type PauseDecision = { kind: 'wait'; ms: number } | { kind: 'stop'; why: string };

/** "Claude usage limit reached (five_hour); resets 2026-12-04T18:58:00.000Z". */
export const usageLimitText = (limit: UsageLimit) => `${limit.message}${limit.resetAt ? `; resets ${limit.resetAt}` : ''}`;

/**
 * Whether to sleep through a usage limit or stop the run (interrupted, resumable): with `--wait-for-reset`, wait until
 * the reset (a second after it, so the quota has turned over) when the CLI named one within `maxWaitMs`; else stop,
 * saying why. Pure.
 */
export function pauseDecision(limit: UsageLimit, nowMs: number, waitForReset: boolean, maxWaitMs = MAX_RESET_WAIT_MS): PauseDecision {
  const text = usageLimitText(limit);
  if (!waitForReset) return { kind: 'stop', why: text };
  const resetMs = limit.resetAt === undefined ? Number.NaN : Date.parse(limit.resetAt);
  if (Number.isNaN(resetMs)) return { kind: 'stop', why: `${text}; the CLI named no reset time to wait for` };
  const ms = Math.max(0, resetMs - nowMs) + 1000;
  if (ms > maxWaitMs)
    return { kind: 'stop', why: `${text}; that is more than --wait-for-reset waits (${Math.round(maxWaitMs / 3_600_000)} h)` };
  return { kind: 'wait', ms };
}
