import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { fixedPace, limitSignal } from '../src/runner/pace.js';
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
