import { seededUniform } from '../util/random.js';
import type { ProviderLimits } from './profile.js';

/**
 * The simulator's provider gate: the limits of a model provider (`provider:` in a profile), so that a harness that
 * paces itself can be tested offline. No I/O and no clock of its own: the server passes the time and does the
 * waiting and the writing. The state it keeps is per credential (the API key a request carries): the admitted requests
 * still in flight and the arrivals of the last minute.
 *
 * Reproducible: the latency and the overload draw are hashes of (seed, trial, request number within the trial).
 * Not reproducible: which request meets a full concurrency or rpm limit, and so the request numbers after it, depends
 * on timing; and the overload window is measured from the simulator's start on the clock.
 */

/** The 95th percentile of the standard normal. */
const Z95 = 1.6448536269514722;
const WINDOW_MS = 60_000;

interface CredentialState {
  /** Admitted requests not yet ended: request id → when its response is expected to start (ms). */
  inFlight: Map<number, number>;
  /** Arrivals (ms) that passed the limits in the last minute, oldest first. */
  recent: number[];
  /** Requests admitted since the usage limit last reset (`usageLimit`), and until when it refuses (ms), once reached. */
  used: number;
  limitedUntil?: number;
}

export interface ProviderState {
  /** When the simulator started (ms): the overload window counts from it. */
  startedAt: number;
  credentials: Map<string, CredentialState>;
}

export function newProviderState(startedAt: number): ProviderState {
  return { startedAt, credentials: new Map() };
}

/** One model call at the gate. */
export interface GateRequest {
  /** Unique per request: what `release` names. */
  id: number;
  credential: string;
  /** Now (ms). */
  now: number;
  seed: number;
  /** The trial's key, and this request's number within the trial (0 for its first). */
  trialKey: string;
  n: number;
}

export type GateDecision =
  | { type: 'admit'; latencyMs: number }
  | { type: 'rate_limited'; limit: 'concurrency' | 'rpm'; retryAfter: number }
  | { type: 'overloaded'; retryAfter: number }
  /** The subscription's usage limit: refused until `resetAt` (ms). */
  | { type: 'usage_limited'; resetAt: number };

/** A seeded lognormal draw with the given median and 95th percentile (the median alone: always the median). */
export function drawLatency(latency: ProviderLimits['latency'], seed: number, trialKey: string, n: number): number {
  if (latency === undefined || latency.medianMs <= 0) return 0;
  const sigma = latency.p95Ms === undefined ? 0 : Math.log(latency.p95Ms / latency.medianMs) / Z95;
  if (sigma === 0) return latency.medianMs;
  // Box–Muller from two independent seeded uniforms; 1 - u keeps the logarithm finite.
  const u1 = 1 - seededUniform(seed, trialKey, 'latency-r', String(n));
  const u2 = seededUniform(seed, trialKey, 'latency-theta', String(n));
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return latency.medianMs * Math.exp(sigma * z);
}

/** Whether `now` falls in the overload burst, and the seeded draw puts this request in its share. */
export function drawOverloaded(
  limits: ProviderLimits,
  startedAt: number,
  req: Pick<GateRequest, 'now' | 'seed' | 'trialKey' | 'n'>,
): boolean {
  const o = limits.overloaded;
  if (o === undefined || o.share <= 0) return false;
  const elapsed = req.now - startedAt;
  const from = (o.fromSeconds ?? 0) * 1000;
  if (elapsed < from || (o.forSeconds !== undefined && elapsed >= from + o.forSeconds * 1000)) return false;
  return seededUniform(req.seed, req.trialKey, 'overloaded', String(req.n)) < o.share;
}

/** Whole seconds until `at`, at least 1: a retry then arrives after the moment, never on it. */
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

function credentialState(state: ProviderState, credential: string): CredentialState {
  let c = state.credentials.get(credential);
  if (c === undefined) {
    c = { inFlight: new Map(), recent: [], used: 0 };
    state.credentials.set(credential, c);
  }
  return c;
}

/**
 * The gate's answer to one request, in this order: the usage limit's refusal while it holds (`usageLimit`), 429 when the credential's requests in flight reach `concurrency`,
 * 429 when its arrivals in the last 60 s reach `rpm`, 529 when the request falls in the overload burst's share, else
 * admitted after a latency. An arrival that passes the limits counts against rpm (an overloaded one too); only an
 * admitted one takes a slot, until `release`. A rate-limited request counts against nothing.
 */
export function gate(limits: ProviderLimits, state: ProviderState, req: GateRequest): GateDecision {
  const c = credentialState(state, req.credential);
  const quota = limits.usageLimit;
  if (quota !== undefined) {
    if (c.limitedUntil !== undefined && req.now >= c.limitedUntil) {
      c.limitedUntil = undefined;
      c.used = 0;
    }
    if (c.limitedUntil === undefined && c.used >= quota.afterRequests) c.limitedUntil = req.now + quota.resetSeconds * 1000;
    if (c.limitedUntil !== undefined) return { type: 'usage_limited', resetAt: c.limitedUntil };
  }
  while (c.recent.length > 0 && c.recent[0]! <= req.now - WINDOW_MS) c.recent.shift();
  if (limits.concurrency !== undefined && c.inFlight.size >= limits.concurrency) {
    const frees = Math.min(...c.inFlight.values());
    return { type: 'rate_limited', limit: 'concurrency', retryAfter: limits.retryAfterSeconds ?? secondsUntil(frees, req.now) };
  }
  if (limits.rpm !== undefined && c.recent.length >= limits.rpm) {
    const allows = c.recent[c.recent.length - limits.rpm]! + WINDOW_MS;
    return { type: 'rate_limited', limit: 'rpm', retryAfter: limits.retryAfterSeconds ?? secondsUntil(allows, req.now) };
  }
  c.recent.push(req.now);
  if (drawOverloaded(limits, state.startedAt, req)) return { type: 'overloaded', retryAfter: limits.retryAfterSeconds ?? 1 };
  const latencyMs = drawLatency(limits.latency, req.seed, req.trialKey, req.n);
  c.inFlight.set(req.id, req.now + latencyMs);
  c.used++;
  return { type: 'admit', latencyMs };
}

/** An admitted request's response ended (or its client went away): its slot frees. */
export function release(state: ProviderState, credential: string, id: number): void {
  const c = state.credentials.get(credential);
  c?.inFlight.delete(id);
  // A credential's state goes once nothing of it is left to count (its quota's use included).
  if (c && c.inFlight.size === 0 && c.recent.length === 0 && c.used === 0 && c.limitedUntil === undefined)
    state.credentials.delete(credential);
}

/** Admitted requests in flight over every credential. */
export function inFlightTotal(state: ProviderState): number {
  let n = 0;
  for (const c of state.credentials.values()) n += c.inFlight.size;
  return n;
}

/**
 * The credential a request carries, as each CLI sends it: `x-api-key` (Claude Code), `Authorization: Bearer` (Codex),
 * `x-goog-api-key` or a `key` query parameter (Gemini). Without one, every such request shares one bucket ('').
 */
export function credentialOf(header: (name: string) => string | undefined, query: URLSearchParams): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  return header('x-api-key') ?? bearer ?? header('x-goog-api-key') ?? query.get('key') ?? '';
}
