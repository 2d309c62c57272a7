import { createHash } from 'node:crypto';
import { isPlainObject } from '../util/json.js';

/**
 * The simulator's prompt cache: what a provider would serve from its cache for a request. A request is read as an
 * ordered list of segments (tools, system prompt, then the conversation's items, as providers cache them); the longest
 * run of leading segments that an earlier request of the same credential and model already sent counts as cached, and
 * every segment after it is written to the cache. So a conversation's second request reads all of its first (the
 * prefix before its new user or tool turn), and the next trial of a case reads the long prefix every trial shares
 * (tools, system prompt, skill listing) up to the first thing that differs (a path of the trial's own). Providers'
 * minimum cacheable lengths, block granularity and expiry are not modelled.
 */

/** How many prefixes the cache keeps (the oldest go first), so a long run cannot grow memory. */
export const PROMPT_CACHE_ENTRIES = 20_000;

export interface CacheUse {
  /** Input tokens served from the cache. */
  cached: number;
  /** Input tokens this request wrote to the cache (its prefix beyond what it read). */
  written: number;
}

/** Tokens of a JSON text, as the simulator counts them everywhere (4 characters a token). */
export const tokensOf = (chars: number): number => Math.ceil(chars / 4);

/** A segment without the markers that only say where a cache breakpoint is (they move from turn to turn). */
function withoutMarkers(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutMarkers);
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (k === 'cache_control' ? [] : [[k, withoutMarkers(x)]])));
}

export class PromptCache {
  /** Prefix hash → its length in characters, in insertion (and last use) order. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly limit = PROMPT_CACHE_ENTRIES) {}

  /** What a request with these segments reads from and writes to the cache of `scope` (credential and model); records it. */
  use(scope: string, segments: readonly unknown[], totalTokens: number): CacheUse {
    const hash = createHash('sha256').update(scope);
    let chars = 0;
    let cachedChars = 0;
    const fresh: [string, number][] = [];
    for (const segment of segments) {
      const text = JSON.stringify(withoutMarkers(segment)) ?? 'null';
      hash.update(`${text.length}:${text}`);
      chars += text.length;
      const key = hash.copy().digest('base64');
      if (this.seen.has(key)) {
        // Touched: a prefix in use stays.
        this.seen.delete(key);
        cachedChars = chars;
      } else fresh.push([key, chars]);
      this.seen.set(key, chars);
    }
    while (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value!);
    const cached = Math.min(totalTokens, tokensOf(cachedChars));
    const written = Math.min(totalTokens - cached, Math.max(0, tokensOf(chars) - cached));
    return { cached, written: fresh.length ? written : 0 };
  }
}
