import { describe, expect, it } from 'vitest';
import { parseProfile, type ProviderLimits } from '../src/sim/profile.js';
import { credentialOf, drawLatency, gate, newProviderState, release, type GateRequest } from '../src/sim/provider.js';
import { valueHash } from '../src/util/json.js';

const request = (id: number, now: number, over: Partial<GateRequest> = {}): GateRequest => ({
  id,
  now,
  credential: 'k',
  seed: 1,
  trialKey: `t${id}`,
  n: 0,
  ...over,
});

describe('the provider gate', () => {
  it.each<[string, ProviderLimits, number[], string[]]>([
    // [what, limits, arrival times (ms, each held until released at the end), decisions]
    ['concurrency 2: the third in flight is refused', { concurrency: 2 }, [0, 10, 20], ['admit', 'admit', 'rate_limited']],
    ['rpm 2: the third in a minute is refused', { rpm: 2 }, [0, 10, 20], ['admit', 'admit', 'rate_limited']],
    ['no limits: everything is admitted', {}, [0, 0, 0, 0], ['admit', 'admit', 'admit', 'admit']],
  ])('%s', (_what, limits, arrivals, decisions) => {
    const state = newProviderState(0);
    expect(arrivals.map((t, i) => gate(limits, state, request(i, t)).type)).toEqual(decisions);
  });

  it('a released request frees its slot; a refused one takes none', () => {
    const state = newProviderState(0);
    const limits = { concurrency: 1 };
    expect(gate(limits, state, request(1, 0)).type).toBe('admit');
    expect(gate(limits, state, request(2, 5)).type).toBe('rate_limited');
    release(state, 'k', 1);
    expect(gate(limits, state, request(3, 6)).type).toBe('admit');
  });

  it('limits are per credential', () => {
    const state = newProviderState(0);
    const limits = { concurrency: 1, rpm: 1 };
    expect(gate(limits, state, request(1, 0, { credential: 'a' })).type).toBe('admit');
    expect(gate(limits, state, request(2, 0, { credential: 'b' })).type).toBe('admit');
    expect(gate(limits, state, request(3, 0, { credential: 'a' })).type).toBe('rate_limited');
  });

  it.each<[string, ProviderLimits, number, number]>([
    // [what, limits, when the refused request arrives (ms), Retry-After (s)]
    ['concurrency: until the slot frees (latency 2.5 s from 0)', { concurrency: 1, latency: { medianMs: 2500 } }, 100, 3],
    ['concurrency: at least 1 s when the slot is due now', { concurrency: 1 }, 100, 1],
    ['rpm: until the oldest arrival leaves the 60 s window', { rpm: 1 }, 15_000, 45],
    ['rpm: at least 1 s', { rpm: 1 }, 59_999, 1],
    ['the profile says 7', { rpm: 1, retryAfterSeconds: 7 }, 15_000, 7],
    ['the profile says 0', { concurrency: 1, retryAfterSeconds: 0 }, 10, 0],
  ])('Retry-After, %s', (_what, limits, at, retryAfter) => {
    const state = newProviderState(0);
    expect(gate(limits, state, request(1, 0)).type).toBe('admit');
    expect(gate(limits, state, request(2, at))).toMatchObject({ type: 'rate_limited', retryAfter });
  });

  it('the rpm window slides: an arrival 60 s after the oldest is admitted', () => {
    const state = newProviderState(0);
    const limits = { rpm: 2 };
    for (const [i, t] of [0, 30_000].entries()) expect(gate(limits, state, request(i, t)).type).toBe('admit');
    expect(gate(limits, state, request(2, 59_000)).type).toBe('rate_limited');
    expect(gate(limits, state, request(3, 60_000)).type).toBe('admit');
    expect(gate(limits, state, request(4, 61_000)).type).toBe('rate_limited');
  });

  it('the overload burst: its share of requests inside the window, none outside, the same draws every time', () => {
    const limits: ProviderLimits = { overloaded: { share: 0.2, fromSeconds: 10, forSeconds: 30 }, retryAfterSeconds: 2 };
    const at = (now: number, seed = 4) => {
      const state = newProviderState(0);
      return Array.from({ length: 4000 }, (_, i) => gate(limits, state, request(i, now, { seed, trialKey: `trial-${i % 400}`, n: i })));
    };
    const share = (ds: { type: string }[]) => ds.filter((d) => d.type === 'overloaded').length / ds.length;
    expect(share(at(9_999))).toBe(0);
    expect(share(at(40_000))).toBe(0);
    expect(share(at(10_000))).toBeCloseTo(0.2, 1);
    expect(Math.abs(share(at(39_999)) - 0.2)).toBeLessThan(0.02);
    expect(at(20_000).find((d) => d.type === 'overloaded')).toEqual({ type: 'overloaded', retryAfter: 2 });
    expect(at(20_000)).toEqual(at(20_000));
    expect(at(20_000, 5)).not.toEqual(at(20_000, 4));
  });

  it.each([
    [8000, 20_000],
    [500, 600],
  ])('latency: median %i ms, p95 %i ms over 2000 seeded draws, within 5%%', (medianMs, p95Ms) => {
    const draws = Array.from({ length: 2000 }, (_, i) => drawLatency({ medianMs, p95Ms }, 9, `trial-${i % 100}`, i)).sort((a, b) => a - b);
    expect(Math.abs(draws[1000]! / medianMs - 1)).toBeLessThan(0.05);
    expect(Math.abs(draws[1900]! / p95Ms - 1)).toBeLessThan(0.05);
    expect(Math.min(...draws)).toBeGreaterThan(0);
    expect(drawLatency({ medianMs, p95Ms }, 9, 'trial-3', 3)).toBe(drawLatency({ medianMs, p95Ms }, 9, 'trial-3', 3));
  });

  it('latency: the median alone is a fixed delay, none without latency', () => {
    expect(drawLatency({ medianMs: 300 }, 1, 't', 0)).toBe(300);
    expect(drawLatency(undefined, 1, 't', 0)).toBe(0);
  });

  it.each<[string, Record<string, string>, string, string]>([
    ['Claude Code: x-api-key', { 'x-api-key': 'ak' }, '', 'ak'],
    ['Codex: a bearer token', { authorization: 'Bearer ok' }, '', 'ok'],
    ['Gemini: x-goog-api-key', { 'x-goog-api-key': 'gk' }, '', 'gk'],
    ['Gemini: a key in the query', {}, 'alt=sse&key=qk', 'qk'],
    ['none: the shared bucket', {}, '', ''],
  ])('the credential, %s', (_what, headers, query, credential) => {
    expect(credentialOf((n) => headers[n], new URLSearchParams(query))).toBe(credential);
  });
});

describe('the provider block in a profile', () => {
  it('is optional: a profile without it has the hash it had (no default added)', () => {
    const p = parseProfile({ seed: 3 });
    expect(p).not.toHaveProperty('provider');
    expect(valueHash(p)).toBe(valueHash(parseProfile({ seed: 3 })));
    expect(valueHash(parseProfile({ seed: 3, provider: { concurrency: 2 } }))).not.toBe(valueHash(p));
  });

  it.each([
    [{ concurrency: 0 }, /concurrency must be at least 1/],
    [{ latency: { medianMs: 100, p95Ms: 50 } }, /p95Ms must be at least medianMs/],
    [{ overloaded: { share: 2 } }, /./],
    [{ burst: 1 }, /burst/],
  ])('refuses %j', (provider, message) => {
    expect(() => parseProfile({ provider })).toThrow(message);
  });
});
