import { describe, expect, it } from 'vitest';
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
