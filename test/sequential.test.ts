import { describe, expect, it } from 'vitest';
import {
  bestBetaAt,
  binomialTestAbove,
  binomialTestBelow,
  fixedNEquivalent,
  rejectionCutoff,
  trialsForPerfectPass,
} from '../src/stats/binomial-test.js';
import { adjustPValues } from '../src/stats/multiple-testing.js';
import { boundaries, increments, waldDesign } from '../src/stats/sprt.js';
import { decideSequential, designOperating } from '../src/stats/sequential-design.js';
import { armsFor, FixedScheduler, SequentialScheduler } from '../src/trials/schedule.js';
import { resolveDecision, decisionProblem } from '../src/load/decision.js';
import { configSchema } from '../src/run/config-schema.js';
import { exitCode, fixedVerdicts, sequentialVerdict } from '../src/verdict/verdict.js';
import { buildDesign } from '../src/stats/case-design.js';
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import type { CaseVerdict, GradableCase, SprtParams, TrialOutcome } from '../src/run/schema.js';
import { quietOutcome } from './run-fixtures.js';

const P: SprtParams = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 1000 };
const seq = (s: string) => [...s].map((ch) => ch === 'P');
/** Wald's test over outcomes, as the sequential walk runs it. */
const sprtDecide = (outcomes: boolean[], p: SprtParams) => decideSequential(outcomes, waldDesign(p));

describe('Wald SPRT', () => {
  it('has boundaries ≈ +1.56 and ≈ −2.77 for α = 0.05, β = 0.20', () => {
    const b = boundaries(P);
    expect(b.accept).toBeCloseTo(1.558, 3);
    expect(b.reject).toBeCloseTo(-2.773, 3);
  });

  it('adds log(p0/p1) ≈ +0.118 per pass and log((1−p0)/(1−p1)) ≈ −0.693 per fail', () => {
    const inc = increments(P);
    expect(inc.pass).toBeCloseTo(0.1178, 4);
    expect(inc.fail).toBeCloseTo(-0.6931, 4);
  });

  it('accepts after 14 straight passes, not 13', () => {
    expect(sprtDecide(seq('P'.repeat(13)), P).state).toBe('continue');
    expect(sprtDecide(seq('P'.repeat(14)), P)).toMatchObject({ state: 'accept', trials: 14 });
  });

  it('rejects pass, fail, fail, pass, fail, fail, fail at trial 7', () => {
    expect(sprtDecide(seq('PFFPFF'), P).state).toBe('continue');
    expect(sprtDecide(seq('PFFPFFF'), P)).toMatchObject({ state: 'reject', trials: 7 });
  });

  it('stops at the first boundary, ignoring what comes after', () => {
    expect(sprtDecide(seq('FFFFPPPPPPPPPPPPPPPPPPPPPP'), P)).toMatchObject({ state: 'reject', trials: 4 });
  });

  it('waits for minTrials and gives up at maxTrials', () => {
    expect(sprtDecide(seq('FFFF'), { ...P, minTrials: 6 }).state).toBe('continue');
    expect(sprtDecide(seq('FFFFPP'), { ...P, minTrials: 6 }).state).toBe('continue'); // −2.54 > −2.77
    expect(sprtDecide(seq('FFFFFP'), { ...P, minTrials: 6 })).toMatchObject({ state: 'reject', trials: 6 });
    expect(sprtDecide(seq('PFPFPFPFPF'), { ...P, maxTrials: 8 })).toMatchObject({ state: 'continue', trials: 8 });
  });

  it('with threshold 1, a single failure rejects', () => {
    expect(sprtDecide(seq('PPF'), { ...P, threshold: 1, delta: 0.1 })).toMatchObject({ state: 'reject', trials: 3 });
  });

  it('exact operating characteristics: probabilities sum to 1, errors at or below nominal', () => {
    const s = { ...P, minTrials: 5, maxTrials: 50 };
    for (const p of [0.6, 0.8, 0.9, 0.95]) {
      const oc = designOperating(waldDesign(s), p);
      expect(oc.accept + oc.reject + oc.undecided).toBeCloseTo(1, 10);
    }
    expect(designOperating(waldDesign(s), 0.9).reject).toBeLessThanOrEqual(0.05);
    expect(designOperating(waldDesign(s), 0.8).accept).toBeLessThanOrEqual(0.2);
    expect(designOperating(waldDesign(s), 1).expectedTrials).toBe(14);
  });

  it('exact ASN agrees with a seeded simulation of the same test', () => {
    const s = { ...P, minTrials: 5, maxTrials: 50 };
    let x = 12345;
    const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
    let total = 0;
    for (let r = 0; r < 3000; r++)
      total += sprtDecide(
        Array.from({ length: 50 }, () => rand() < 0.95),
        s,
      ).trials;
    expect(total / 3000).toBeCloseTo(designOperating(waldDesign(s), 0.95).expectedTrials, 0);
  });
});

describe('exact binomial tests and the fixed-N equivalent', () => {
  it('computes one-sided p-values', () => {
    expect(binomialTestBelow(0, 10, 0.9)).toBeCloseTo(1e-10, 15);
    expect(binomialTestBelow(10, 10, 0.9)).toBe(1);
    expect(binomialTestAbove(10, 10, 0.8)).toBeCloseTo(0.8 ** 10, 12);
    expect(binomialTestAbove(0, 10, 0.8)).toBe(1);
  });

  it('the rejection cutoff is the largest k with P(X ≤ k) ≤ α: the one a scan of every k finds', () => {
    const scan = (n: number, p0: number, alpha: number) => {
      let k = -1;
      while (k + 1 <= n && binomialCdf(k + 1, n, p0) <= alpha) k++;
      return k;
    };
    for (const n of [1, 2, 3, 7, 20, 78, 150, 499, 1000])
      for (const p0 of [0.01, 0.5, 0.8, 0.9, 0.99, 0.999])
        for (const alpha of [0.001, 0.0125, 0.05, 0.2])
          expect(rejectionCutoff(n, p0, alpha), `${n} ${p0} ${alpha}`).toBe(scan(n, p0, alpha));
  });

  it('the fixed-N equivalent is the smallest N with size ≤ α and power ≥ 1 − β', () => {
    const n = fixedNEquivalent(0.9, 0.8, 0.05, 0.2)!;
    const ok = (m: number) => {
      const k = rejectionCutoff(m, 0.9, 0.05);
      return k >= 0 && binomialCdf(k, m, 0.9) <= 0.05 && 1 - binomialCdf(k, m, 0.8) <= 0.2;
    };
    expect(ok(n)).toBe(true);
    for (let m = 1; m < n; m++) expect(ok(m)).toBe(false);
    expect(n).toBe(78);
  });
});

describe('multiple-testing corrections on the real p-values', () => {
  // Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57:289–300, section 4: 15 p-values, q = 0.05 rejects 4.
  const P15 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1.0];

  it('BH rejects the 4 smallest at 0.05, as in the paper', () => {
    const adj = adjustPValues(P15, 'bh');
    expect(adj.filter((p) => p <= 0.05)).toHaveLength(4);
    expect(adj[0]).toBeCloseTo(0.0015, 10);
    expect(adj[1]).toBeCloseTo(0.003, 10);
    expect(adj[2]).toBeCloseTo(0.0095, 10);
    expect(adj[3]).toBeCloseTo(0.035625, 10);
    expect(adj[4]).toBeCloseTo(0.0603, 10); // min over j ≥ 5 of p(j)·15/j
    expect(adj[14]).toBe(1);
  });

  it('keeps the input order and monotonicity', () => {
    const shuffled = [P15[9]!, P15[0]!, P15[4]!];
    const adj = adjustPValues(shuffled, 'bh');
    expect(adj[1]).toBeLessThan(adj[2]!);
    expect(adj[2]).toBeLessThan(adj[0]!);
  });

  it('Bonferroni multiplies by m and caps at 1; none leaves them', () => {
    expect(adjustPValues([0.01, 0.2, 0.5], 'bonferroni')).toEqual([0.03, 0.6000000000000001, 1]);
    expect(adjustPValues([0.01, 0.2], 'none')).toEqual([0.01, 0.2]);
  });
});

describe('decision parameters', () => {
  const decision = configSchema.parse({ decision: { tags: { vague: { threshold: 0.5 } } } }).decision;

  it('resolve defaults ← first tag with overrides ← case', () => {
    expect(resolveDecision(decision, [], undefined).threshold).toBe(0.9);
    expect(resolveDecision(decision, ['happy', 'vague'], undefined).threshold).toBe(0.5);
    expect(resolveDecision(decision, ['vague'], { threshold: 0.7, maxTrials: 9 })).toMatchObject({
      threshold: 0.7,
      maxTrials: 9,
      alpha: 0.05,
    });
  });

  it('name impossible combinations', () => {
    expect(decisionProblem({ ...P, threshold: 0.1, delta: 0.2 }, 'sequential')).toMatch(/p1 ≤ 0/);
    expect(decisionProblem({ ...P, minTrials: 9, maxTrials: 3 }, 'sequential')).toMatch(/minTrials 9 exceeds/);
    // A design for 0.99 against 0.985 would need thousands of trials: refused for the sequential modes, fine for fixed N.
    const tight = { ...P, threshold: 0.99, delta: 0.005 };
    expect(decisionProblem(tight, 'sequential')).toMatch(
      /takes about \d+ trials per case, more than the 1000 a sequential design is built for — widen delta/,
    );
    // Wald's test needs the design only for its default maximum: with a maxTrials of its own it needs none.
    expect(decisionProblem({ ...tight, maxTrials: undefined }, 'sprt')).toMatch(/more than the 1000/);
    expect(decisionProblem(tight, 'sprt')).toBeUndefined();
    expect(decisionProblem(tight, 'fixed')).toBeUndefined();
    expect(decisionProblem({ ...P, minTrials: 5000, maxTrials: undefined }, 'sequential')).toMatch(
      /minTrials 5000 is more than the 1000 .* — lower minTrials/,
    );
  });
});

function outcome(caseId: string, n: number, passed: boolean | null, arm: 'skill' | 'ablation' = 'skill'): TrialOutcome {
  return quietOutcome({ caseId, arm, n, status: passed === null ? 'infra_error' : 'ok', passed });
}
const caseWith = (id: string, decision: Partial<SprtParams> = {}): GradableCase => ({
  id,
  expect: 'x',
  exclusive: false,
  tags: [],
  decision: { ...P, minTrials: 5, maxTrials: 50, ...decision },
});
const outcomes = (id: string, pattern: string) =>
  [...pattern].map((ch, i) => outcome(id, i + 1, ch === 'P' ? true : ch === 'F' ? false : null));

describe('verdicts', () => {
  it.each([
    ['P'.repeat(14), 'PASS', 14],
    ['P'.repeat(16), 'PASS', 14], // two more finished in flight: recorded, verdict unchanged
    ['PFFPFFF', 'FAIL', 7],
    ['PFPFPF', 'INCONCLUSIVE', undefined],
    ['XXXX', 'ERROR', undefined],
    ['PPXXPP', 'ERROR', undefined], // 4 usable < minTrials 5 because of infra errors
    ['PPXPPPP', 'INCONCLUSIVE', undefined],
  ] as const)('SPRT over %s → %s', (pattern, verdict, decidedAt) => {
    const v = sequentialVerdict(caseWith('c'), outcomes('c', pattern));
    expect(v.verdict).toBe(verdict);
    expect(v.decidedAt).toBe(decidedAt);
    expect(v.trials).toBe(pattern.length);
    expect(v.descriptiveInterval).toBe(decidedAt !== undefined);
  });

  it('SPRT skips trials with no evidence and replays in trial order', () => {
    const o = outcomes('c', 'PXFFPFFF').reverse(); // order of arrival must not matter
    expect(sequentialVerdict(caseWith('c'), o)).toMatchObject({ verdict: 'FAIL', decidedAt: 7, excluded: 1, afterDecision: 0 });
  });

  it.each([
    ['P'.repeat(50), 'PASS'],
    ['P'.repeat(10), 'PASS'],
    ['P'.repeat(5), 'INCONCLUSIVE'],
    ['P'.repeat(30) + 'F'.repeat(20), 'FAIL'],
    ['XXXXX', 'ERROR'],
  ] as const)('fixed N over %s → %s', (pattern, verdict) => {
    expect(fixedVerdicts([caseWith('c')], outcomes('c', pattern), 'bh')[0]!.verdict).toBe(verdict);
  });

  it('an INCONCLUSIVE says why in words: 5 of 5 cannot show 0.8 is beaten at β 0.2, and how many trials could', () => {
    const v = fixedVerdicts([caseWith('c')], outcomes('c', 'PPPPP'), 'bh')[0]!;
    expect(v.verdict).toBe('INCONCLUSIVE');
    expect(v.reason).toMatch(/5 of 5 passed/);
    expect(v.reason).toMatch(/even 5 of 5 could not, since 0\.80\^5 > β 0\.2: at least 8 trials are needed/);
    const s = sequentialVerdict(caseWith('c', { maxTrials: 6 }), outcomes('c', 'PFPPFP'));
    expect(s.reason).toMatch(/4 of 6 passed: the evidence sits between 0\.9 and 0\.80; undecided at maxTrials 6 \(raise maxTrials/);
  });

  it.each([
    // Neyman–Pearson's randomised test (values from a separate summation over math.comb): below the plain exact
    // test's β, which it must never exceed.
    [50, 0.9, 0.8, 0.3395, 0.44],
    [10, 0.9, 0.7, 0.4766, 0.65],
    [78, 0.9, 0.8, 0.1837, 0.2],
  ])('the best β of any test of %i trials, %f against %f at α 0.05, is %f (the plain exact test reaches %f)', (n, p0, p1, best, plain) => {
    expect(bestBetaAt(n, p0, p1, 0.05)).toBeCloseTo(best, 4);
    const k = rejectionCutoff(n, p0, 0.05);
    expect(1 - binomialCdf(k, n, p1)).toBeLessThanOrEqual(plain + 0.005);
    expect(bestBetaAt(n, p0, p1, 0.05)).toBeLessThan(1 - binomialCdf(k, n, p1));
  });

  it.each([
    [0.8, 0.2, 8],
    [0.7, 0.2, 5],
    [0.5, 0.05, 5],
    [0.9, 0.1, 22],
  ])('all-pass decides above p1 = %f at β %f from %i trials on', (p1, beta, n) => {
    expect(trialsForPerfectPass(p1, beta)).toBe(n);
    expect(binomialTestAbove(n, n, p1)).toBeLessThanOrEqual(beta);
    expect(binomialTestAbove(n - 1, n - 1, p1)).toBeGreaterThan(beta);
  });

  it('the default config PASSes a perfect skill within its maximum, in both designs', () => {
    const d = configSchema.parse({}).decision;
    expect(d.mode).toBe('sequential');
    const built = buildDesign(resolveDecision(d, [], undefined), 'sequential');
    const c = { ...caseWith('c'), decision: built.params, design: built.design };
    const seq = sequentialVerdict(c, outcomes('c', 'P'.repeat(built.params.maxTrials)));
    expect(seq.verdict).toBe('PASS');
    expect(seq.mode).toBe('sequential');
    expect(seq.decidedAt).toBeLessThanOrEqual(built.design.maxTrials);
    const fixed = fixedVerdicts([c], outcomes('c', 'P'.repeat(configSchema.parse({}).trials)), 'bh')[0]!;
    expect(fixed.verdict).toBe('PASS');
  });

  it('fixed mode corrects across cases: a marginal FAIL alone survives, among many cases BH keeps it only if it is strong', () => {
    // 40/50 at p0 = 0.9: raw p ≈ 0.0245.
    const marginal = outcomes('m', 'P'.repeat(40) + 'F'.repeat(10));
    const clean = ['a', 'b', 'c', 'd'].flatMap((id) => outcomes(id, 'P'.repeat(50)));
    const alone = fixedVerdicts([caseWith('m')], marginal, 'bh')[0]!;
    expect(alone.pBelow).toBeCloseTo(binomialTestBelow(40, 50, 0.9), 12);
    expect(alone.verdict).toBe('FAIL');
    const cases = ['m', 'a', 'b', 'c', 'd'].map((id) => caseWith(id));
    const bonf = fixedVerdicts(cases, [...marginal, ...clean], 'bonferroni').find((v) => v.caseId === 'm')!;
    expect(bonf.pBelowAdjusted).toBeCloseTo(Math.min(1, 5 * alone.pBelow!), 12);
    expect(bonf.verdict).not.toBe('FAIL');
  });

  it.each([
    [['PASS', 'PASS'], 'warn', 0],
    [['PASS', 'FAIL', 'INCONCLUSIVE', 'ERROR'], 'pass', 1],
    [['PASS', 'ERROR', 'INCONCLUSIVE'], 'warn', 4],
    [['PASS', 'INCONCLUSIVE'], 'warn', 3],
    [['PASS', 'INCONCLUSIVE'], 'fail', 1],
    [['PASS', 'INCONCLUSIVE'], 'pass', 0],
    [['ERROR'], 'pass', 4],
  ] as const)('exit code of %j under %s is %i', (vs, policy, code) => {
    expect(
      exitCode(
        vs.map((verdict) => ({ verdict }) as CaseVerdict),
        policy,
      ),
    ).toBe(code);
  });
});

describe('which arms a case runs in', () => {
  const checks = { matches: [], mustNot: [], verb: 'create' };
  it.each([
    [{ expect: 'x', plan: checks }, 'scored', ['skill', 'ablation']],
    [{ expect: 'x' }, 'scored', ['skill']],
    [{ expect: 'none' }, 'scored', ['skill']],
    [{ expect: 'none' }, 'always', ['skill', 'ablation']],
  ] as const)('%j with ablation %s → %j', (c, mode, arms) => {
    expect(armsFor(c, ['skill', 'ablation'], mode)).toEqual(arms);
  });

  it('a fixed schedule runs the ablation arm only where it scores', () => {
    const s = new FixedScheduler(
      [
        { id: 'p', expect: 'x', exclusive: false, tags: [], plan: checks, decision: P },
        { id: 'n', expect: 'none', exclusive: false, tags: [], decision: P },
      ],
      ['skill', 'ablation'],
      2,
      'scored',
    );
    const refs: string[] = [];
    for (let r = s.next(); r; r = s.next()) refs.push(`${r.caseId}/${r.arm}/${r.n}`);
    expect(refs).toEqual(['p/skill/1', 'p/ablation/1', 'n/skill/1', 'p/skill/2', 'p/ablation/2', 'n/skill/2']);
    expect(s.plannedTotal()).toBe(6);
  });
});

describe('sequential scheduler', () => {
  const params = { ...P, minTrials: 1, maxTrials: 20 };

  it('schedules only undecided cases, pairs the ablation arm, and stops at the boundary', () => {
    const s = new SequentialScheduler([{ id: 'a', expect: 'x', decision: params }], ['skill', 'ablation'], 'always');
    const refs = [s.next()!, s.next()!];
    expect(refs).toEqual([
      { caseId: 'a', arm: 'skill', n: 1 },
      { caseId: 'a', arm: 'ablation', n: 1 },
    ]);
    s.finished(refs[0]!, false);
    s.finished(refs[1]!, undefined);
    for (let n = 2; n <= 4; n++) {
      const r = s.next()!;
      expect(r).toEqual({ caseId: 'a', arm: 'skill', n });
      s.next(); // its ablation companion
      s.finished(r, false);
    }
    expect(s.next()).toBeUndefined();
    expect(s.exhausted()).toBe(true);
  });

  it('with trials in flight: decides on the finished prefix in trial order; late finishers are still recorded', () => {
    const s = new SequentialScheduler([{ id: 'a', expect: 'x', decision: params }], ['skill'], 'scored');
    const inFlight = Array.from({ length: 6 }, () => s.next()!);
    expect(inFlight.map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6]);
    // Trials 2–5 fail and finish first; trial 1 is still running, so nothing is decided yet.
    for (const r of inFlight.slice(1, 5)) s.finished(r, false);
    expect(s.exhausted()).toBe(false);
    s.finished(inFlight[0]!, true); // now the prefix 1..5 is P F F F F → Λ ≈ −2.65, not yet −2.77
    expect(s.exhausted()).toBe(false);
    const more = s.next()!;
    expect(more.n).toBe(7);
    s.finished(inFlight[5]!, false); // prefix 1..6 → reject
    expect(s.next()).toBeUndefined();
    s.finished(more, true); // finished after the decision: recorded, and the verdict ignores it
    const v = sequentialVerdict(caseWith('a', params), outcomes('a', 'PFFFFFP'));
    expect(v).toMatchObject({ verdict: 'FAIL', decidedAt: 6, trials: 7, afterDecision: 1 });
  });

  it('gives up on a case whose trials carry no evidence', () => {
    const s = new SequentialScheduler([{ id: 'a', expect: 'x', decision: { ...params, minTrials: 2 } }], ['skill', 'ablation'], 'scored');
    s.finished(s.next()!, undefined);
    s.finished(s.next()!, undefined);
    expect(s.next()).toBeUndefined();
    expect(s.exhausted()).toBe(true);
  });
});
