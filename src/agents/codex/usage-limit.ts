import type { UsageLimit } from '../../run/schema.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * "try again at 6:59 PM", "… at Dec 5 6:59 PM", "… at Dec 5, 2026 6:59 PM" or, as Codex 0.171.0 prints another day,
 * "… at Dec 5th, 2026 12:08 AM": the CLI's local time of day (its `%-I:%M %p`, with the day, an ordinal suffix and
 * `, %Y` when not today), read in the same time zone. The CLI cuts the reset to its
 * minute, so the reset is taken as that minute's end; a bare time already past is tomorrow's.
 */
function resetFrom(text: string, now: Date): Date | undefined {
  const m = /try again at (?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th)?(?:, (\d{4}))? )?(\d{1,2}):(\d{2}) ([AP]M)/.exec(text);
  if (!m) return undefined;
  const [, month, day, year, hour, minute, half] = m;
  const h = (Number(hour) % 12) + (half === 'PM' ? 12 : 0);
  const monthIndex = month === undefined ? now.getMonth() : MONTHS.indexOf(month);
  if (monthIndex < 0) return undefined;
  const at = new Date(year ? Number(year) : now.getFullYear(), monthIndex, day ? Number(day) : now.getDate(), h, Number(minute), 59);
  if (month === undefined && at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}

/**
 * What a line of `codex exec --json` says of a ChatGPT plan's usage limit: an `error` event (or the `turn.failed` after
 * it) whose message says "You've hit your usage limit", naming when to try again where it does. The CLI does not retry it.
 */
export function codexUsageLimit(line: string, now: Date): UsageLimit | undefined {
  if (!line.includes('hit your usage limit')) return undefined;
  let event: { type?: unknown; message?: unknown; error?: { message?: unknown } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return undefined;
  }
  const message = event.type === 'error' ? event.message : event.type === 'turn.failed' ? event.error?.message : undefined;
  if (typeof message !== 'string' || !/hit your usage limit/.test(message)) return undefined;
  const resetAt = resetFrom(message, now);
  return { message, ...(resetAt ? { resetAt: resetAt.toISOString() } : {}) };
}
