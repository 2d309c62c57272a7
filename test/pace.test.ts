import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { fixedPace, limitSignal } from '../src/runner/pace.js';
import { fillPool } from '../src/runner/run-suite.js';
import type { TrialRecord } from '../src/runner/trial.js';
import type { ErrorEvent } from '../src/transcript/types.js';

const record = (errors: Partial<ErrorEvent>[]): TrialRecord =>
  ({
    ref: { caseId: 'c', arm: 'skill', n: 1 },
    transcript: {
      events: errors.map((e) => ({ kind: 'error', source: 'system', errorKind: 'unknown', message: 'm', retrying: true, ...e })),
    },
    meta: { wallMs: 1234 },
  }) as unknown as TrialRecord;

describe('what a finished trial tells the concurrency limit', () => {
  it.each<[string, Partial<ErrorEvent>[], string]>([
    ['no error: a normal finish, with its wall time', [], 'ok'],
    ['a 429 the CLI retried', [{ errorKind: 'rate_limit', httpStatus: 429 }], 'rate_limited'],
    ['a 429 by status alone', [{ httpStatus: 429 }], 'rate_limited'],
    ['a 529', [{ errorKind: 'overloaded', httpStatus: 529 }], 'overloaded'],
    ['a 500', [{ errorKind: 'server_error', httpStatus: 500 }], 'overloaded'],
    ['a 503 without a kind', [{ httpStatus: 503 }], 'overloaded'],
    ['a 429 beside a 529: the rate limit is what the pool can change', [{ httpStatus: 529 }, { httpStatus: 429 }], 'rate_limited'],
    ['an error that says nothing of the provider', [{ errorKind: 'authentication_failed', httpStatus: 401 }], 'ok'],
  ])('%s', (_, errors, kind) => {
    const s = limitSignal(record(errors), 99);
    expect(s.kind).toBe(kind);
    expect(s.at).toBe(99);
    if (s.kind === 'ok') expect(s.wallMs).toBe(1234);
  });

  it('a fixed number never moves and never waits', () => {
    const pace = fixedPace(3);
    expect(pace.trialDone(record([{ httpStatus: 429 }]), 3)).toEqual([]);
    expect([pace.current(), pace.startsAfter(), pace.meanLimit(), pace.trace.length]).toEqual([3, 0, 3, 0]);
  });
});

describe('what each CLI says of the provider while it runs', () => {
  it.each<[string, typeof claudeCode, string, 'stdout' | 'stderr', unknown]>([
    [
      'Claude Code: an api_retry for a 429, with the delay it honours',
      claudeCode,
      '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":3000,"error_status":429,"error":"rate_limit"}',
      'stdout',
      { kind: 'rate_limited', retryAfterMs: 3000 },
    ],
    [
      'Claude Code: an api_retry for a 529',
      claudeCode,
      '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":597,"error_status":529,"error":"overloaded"}',
      'stdout',
      { kind: 'overloaded' },
    ],
    [
      'Claude Code: a timeout retry names no status',
      claudeCode,
      '{"type":"system","subtype":"api_retry","attempt":1,"retry_delay_ms":500,"error_status":null,"error":"unknown"}',
      'stdout',
      undefined,
    ],
    [
      'Claude Code: an assistant line',
      claudeCode,
      '{"type":"assistant","message":{"content":[{"type":"text","text":"429"}]}}',
      'stdout',
      undefined,
    ],
    [
      'Codex: a reconnect after a 429',
      codex,
      '{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}',
      'stdout',
      { kind: 'rate_limited' },
    ],
    [
      'Codex: a reconnect after a 503',
      codex,
      '{"type":"error","message":"Reconnecting... 2/5 (503 Service Unavailable)"}',
      'stdout',
      { kind: 'overloaded' },
    ],
    [
      'Codex: a message that mentions 429',
      codex,
      '{"type":"item.completed","item":{"type":"agent_message","text":"HTTP 429 means"}}',
      'stdout',
      undefined,
    ],
    ['Gemini: a retry on stderr', gemini, 'Attempt 1 failed with status 429. Retrying with backoff...', 'stderr', { kind: 'rate_limited' }],
    ['Gemini: a 500 on stderr', gemini, 'Attempt 2 failed with status 500. Retrying with backoff...', 'stderr', { kind: 'overloaded' }],
    ['Gemini: the same words on stdout are the model’s', gemini, 'Attempt 1 failed with status 429.', 'stdout', undefined],
  ])('%s', (_, adapter, line, from, signal) => {
    expect(adapter.providerSignal?.(line, from)).toEqual(signal);
  });
});

describe('the pool during a Retry-After hold', () => {
  /** A running trial whose agent, killed on abort, is seen to exit on a later turn of the event loop, as a child's exit is. */
  const trialKilledOnAbort = (signal: AbortSignal, running: Set<Promise<void>>) => {
    const exited = new Promise<void>((resolve) => signal.addEventListener('abort', () => setTimeout(resolve, 5)));
    const tracked: Promise<void> = exited.finally(() => running.delete(tracked));
    running.add(tracked);
  };

  it('an abort ends the hold at once: the loop yields to the event loop (the agent is reaped), nothing starts', async () => {
    const abort = new AbortController();
    const running = new Set<Promise<void>>();
    trialKilledOnAbort(abort.signal, running);
    const holdEnds = Date.now() + 1500;
    let asked = 0;
    let started = 0;
    const pace = { current: () => 4, startsAfter: () => (asked++, holdEnds) };
    const done = fillPool({ pace, signal: abort.signal, running, start: () => (started++, false), exhausted: () => false });
    setTimeout(() => abort.abort(), 20);
    const t0 = Date.now();
    await done;
    // Before the fix the loop spun on an aborted timer until the hold ended, asking the pace millions of times and
    // never letting the killed agent's exit (or a second Ctrl-C) through.
    expect(Date.now() - t0).toBeLessThan(500);
    expect(asked).toBeLessThan(10);
    expect([started, running.size]).toEqual([0, 0]);
  });

  it('without an abort, waits out the hold without spinning, then starts the next trial', async () => {
    const running = new Set<Promise<void>>();
    const holdEnds = Date.now() + 100;
    let asked = 0;
    const startedAt: number[] = [];
    const start = () => {
      if (startedAt.length) return false;
      startedAt.push(Date.now());
      const tracked: Promise<void> = Promise.resolve().finally(() => running.delete(tracked));
      running.add(tracked);
      return true;
    };
    await fillPool({
      pace: { current: () => 1, startsAfter: () => (asked++, holdEnds) },
      signal: new AbortController().signal,
      running,
      start,
      exhausted: () => startedAt.length > 0,
    });
    expect(startedAt).toHaveLength(1);
    expect(startedAt[0]!).toBeGreaterThanOrEqual(holdEnds);
    expect(asked).toBeLessThan(10);
  });
});
