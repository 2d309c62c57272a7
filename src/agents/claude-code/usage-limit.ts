import type { UsageLimit } from '../../run/schema.js';

/**
 * What a line of Claude Code's stream-JSON says of a subscription's usage limit. On a refused request it prints a
 * `rate_limit_event` whose `rate_limit_info.status` is `rejected`, with `resetsAt` (epoch seconds, from the API's
 * unified rate-limit headers) and the limit's kind (`five_hour`, `seven_day`, …), before its "You've hit your …
 * limit" result; it does not retry. Any other status (`allowed`, `allowed_warning`) is no limit.
 */
export function claudeUsageLimit(line: string): UsageLimit | undefined {
  if (!line.includes('"rate_limit_event"')) return undefined;
  let event: { type?: unknown; rate_limit_info?: { status?: unknown; resetsAt?: unknown; rateLimitType?: unknown } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return undefined;
  }
  const info = event.type === 'rate_limit_event' ? event.rate_limit_info : undefined;
  if (info?.status !== 'rejected') return undefined;
  const kind = typeof info.rateLimitType === 'string' ? ` (${info.rateLimitType})` : '';
  const resetsAt = typeof info.resetsAt === 'number' && info.resetsAt > 0 ? new Date(info.resetsAt * 1000) : undefined;
  return { message: `Claude usage limit reached${kind}`, ...(resetsAt ? { resetAt: resetsAt.toISOString() } : {}) };
}
