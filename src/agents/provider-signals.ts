import type { ProviderSignal } from './types.js';

/** An HTTP status said in words: 429 a rate limit, 529 or any 5xx the provider busy. */
export function statusSignal(status: number | undefined, retryAfterMs?: number): ProviderSignal | undefined {
  if (status === 429) return { kind: 'rate_limited', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  if (status !== undefined && status >= 500 && status <= 599) return { kind: 'overloaded' };
  return undefined;
}

/** The first HTTP status a line of text names (`… status 429 …`, `… (429 Too Many Requests) …`). */
export function statusIn(text: string): number | undefined {
  const m = /\b(429|5\d\d)\b/.exec(text);
  return m ? Number(m[1]) : undefined;
}
