import type { UsageLimit } from '../../run/schema.js';

/** Code Assist's words for a Google account's used-up quota (per model; daily when it names no reset). */
const QUOTA_WORDS =
  /You have exhausted your (?:capacity|daily quota) on this model\.(?: Your quota will reset after ((?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?s)\.)?/;

/** The CLI's own line between the retries of a refused model call (stderr, `Attempt N failed: … Retrying after …`). */
const RETRY_NOTICE = /^Attempt \d+ failed: /;

/** A reset at most this far off the CLI waits out itself as a rate limit (its MAX_RETRYABLE_DELAY_SECONDS). */
const CLI_WAITS_SECONDS = 300;

/** Seconds in a Go duration as Code Assist spells a reset ("2h3m4s", "5m0s", "0.5s"). */
function goSeconds(duration: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+(?:\.\d+)?)s$/.exec(duration);
  return m ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3]) : Number.NaN;
}

/** The quota refusal a message quotes, its reset counted from `now`; undefined: none. */
function quotaIn(message: string, now: Date): { limit: UsageLimit; seconds: number } | undefined {
  const said = QUOTA_WORDS.exec(message);
  if (!said) return undefined;
  const seconds = said[1] === undefined ? Number.NaN : goSeconds(said[1]);
  const resetAt = Number.isNaN(seconds) ? undefined : new Date(now.getTime() + seconds * 1000).toISOString();
  return { limit: { message: said[0], ...(resetAt ? { resetAt } : {}) }, seconds };
}

/**
 * What a line of the Gemini CLI says of a Google login's usage limit (Code Assist's 429 RESOURCE_EXHAUSTED,
 * QUOTA_EXHAUSTED), its reset counted from `now` (the line is read as it is printed). Two places say it: a retry
 * notice on stderr, since the CLI 0.61.0 run headless sleeps until the reset and calls again (hours, for a used-up
 * quota; one it waits out itself as a rate limit, at most 5 minutes off, is no usage limit), and the `result` event of
 * `--output-format stream-json` with status `error` once it gives up.
 */
export function geminiUsageLimit(line: string, now: Date, from: 'stdout' | 'stderr' = 'stdout'): UsageLimit | undefined {
  if (!line.includes('exhausted your')) return undefined;
  if (from === 'stderr') {
    const quota = RETRY_NOTICE.test(line) ? quotaIn(line, now) : undefined;
    return quota && !(quota.seconds <= CLI_WAITS_SECONDS) ? quota.limit : undefined;
  }
  let event: { type?: unknown; status?: unknown; error?: { message?: unknown } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return undefined;
  }
  const message = event.type === 'result' && event.status === 'error' ? event.error?.message : undefined;
  return typeof message === 'string' ? quotaIn(message, now)?.limit : undefined;
}
