import { describe, expect, it } from 'vitest';
import { settledSavings } from '../src/verdict/settled-savings.js';
import { settledText } from '../src/report/wording.js';

const line = (os: TrialOutcome[]) => settledText(settledSavings(os), os.length);
import type { TrialOutcome } from '../src/run/schema.js';

const outcome = (over: Partial<TrialOutcome>): TrialOutcome => ({
  caseId: 'a',
  arm: 'skill',
  n: 1,
  status: 'ok',
  passed: true,
  firings: [],
  firedColumn: 'atl',
  fired: 'expected',
  readOnly: false,
  flags: { noop: false, clarifying: false },
  parseWarnings: 0,
  wallMs: 4000,
  attempt: 1,
  ...over,
});
const usage = (input: number, output: number) => ({ usage: { input, cached: 0, output } });

describe('what settling saved, from the unsettled trials alike', () => {
  it('a settled trial against the mean of the same case, arm and choice run to its end', () => {
    const s = settledSavings([
      outcome({ status: 'settled', wallMs: 3000, costUsd: 0.01, ...usage(9000, 20) }),
      outcome({ n: 2, wallMs: 4000, costUsd: 0.03, ...usage(20000, 100) }),
      outcome({ n: 3, wallMs: 6000, costUsd: 0.05, ...usage(22000, 140) }),
      // Not alike: another choice, another case, another arm, a fault.
      outcome({ n: 4, fired: 'none', wallMs: 9000, ...usage(1, 1) }),
      outcome({ caseId: 'b', wallMs: 9000, ...usage(1, 1) }),
      outcome({ arm: 'ablation', wallMs: 9000, ...usage(1, 1) }),
      outcome({ n: 5, status: 'infra_error', wallMs: 9000, ...usage(1, 1) }),
    ]);
    expect(s).toEqual({ settled: 1, estimated: 1, saved: { inputTokens: 12000, outputTokens: 100, wallMs: 2000, costUsd: 0.03 } });
  });

  it('a settled trial with nothing alike is counted, never estimated', () => {
    const s = settledSavings([outcome({ status: 'settled' }), outcome({ n: 2, fired: 'none' })]);
    expect(s).toEqual({ settled: 1, estimated: 0, saved: { inputTokens: 0, outputTokens: 0, wallMs: 0 } });
    expect(line([outcome({ status: 'settled' }), outcome({ n: 2, fired: 'none' })])).toContain(
      'no trial of the same case and choice ran to its end',
    );
  });

  it('no cost where a trial alike reported none; no line without a settled trial', () => {
    expect(settledSavings([outcome({ status: 'settled', costUsd: 0.01 }), outcome({ n: 2 })])!.saved.costUsd).toBeUndefined();
    expect(settledSavings([outcome({})])).toBeUndefined();
    expect(line([outcome({})])).toBeUndefined();
  });

  it('the SETTLED line names the count and the estimate', () => {
    const text = line([
      outcome({ status: 'settled', wallMs: 3000, ...usage(9000, 20) }),
      outcome({ status: 'settled', caseId: 'b', wallMs: 3000 }),
      outcome({ n: 2, wallMs: 4000, ...usage(20000, 100) }),
    ]);
    expect(text).toMatch(/^SETTLED · 2 of 3 trials stopped once their outcome was settled/);
    expect(text).toContain('saved about 11k input and 80 output tokens, 1.0 s of trial time in the 1 with a trial');
    expect(text).toContain('; 1 had none to estimate from');
  });
});
