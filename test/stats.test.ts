import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicView } from '../src/sim/dialects/anthropic-view.js';
import { decideReply } from '../src/sim/policy.js';
import { parseProfile } from '../src/sim/profile.js';
import { mcnemarExact, pairCounts, pairedDifference } from '../src/stats/mcnemar.js';
import { passAtK, passHatK, passKTable } from '../src/stats/pass-k.js';
import { wilsonInterval } from '../src/stats/wilson.js';
import { clopperPearsonInterval } from '../src/stats/clopper-pearson.js';
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';

describe('Wilson score interval', () => {
  // Published values: Newcombe (1998), Statistics in Medicine 17:857–872, table II (method 3), and the 10/10.
  it.each([
    [10, 10, 0.7225, 1.0],
    [0, 10, 0.0, 0.2775],
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0.0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i at 95%% is [%f, %f]', (x, n, lo, hi) => {
    const r = wilsonInterval(x, n);
    expect(r.lo).toBeCloseTo(lo, 3);
    expect(r.hi).toBeCloseTo(hi, 3);
  });

  it('contains the point estimate and stays in [0, 1]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0.8, 0.9, 0.95, 0.99),
        (n, f, conf) => {
          const x = Math.round(f * n);
          const r = wilsonInterval(x, n, conf);
          return r.lo >= 0 && r.hi <= 1 && r.lo <= r.p + 1e-12 && r.p <= r.hi + 1e-12;
        },
      ),
    );
  });

  it('widens with confidence and is uninformative at n = 0', () => {
    expect(wilsonInterval(5, 10, 0.99).hi).toBeGreaterThan(wilsonInterval(5, 10, 0.95).hi);
    expect(wilsonInterval(0, 0)).toMatchObject({ lo: 0, hi: 1 });
  });
});

describe('Clopper–Pearson (exact) interval', () => {
  it.each([
    // Textbook values at 95%.
    [0, 10, 0, 0.3084971078],
    [10, 10, 0.6915028922, 1],
    [5, 10, 0.1870860284, 0.8129139716],
    [2, 200, 0.001213349, 0.0356546684],
  ])('%i of %i: [%f, %f]', (k, n, lo, hi) => {
    const r = clopperPearsonInterval(k, n);
    expect(r).toMatchObject({ successes: k, n, p: k / n });
    expect(r.lo).toBeCloseTo(lo, 8);
    expect(r.hi).toBeCloseTo(hi, 8);
  });

  it('each bound leaves exactly (1 − level)/2 in its tail, and the interval holds Wilson’s point', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0.8, 0.9, 0.95, 0.99),
        (n, share, level) => {
          const k = Math.round(share * n);
          const r = clopperPearsonInterval(k, n, level);
          const tail = (1 - level) / 2;
          if (k > 0) expect(1 - binomialCdf(k - 1, n, r.lo)).toBeCloseTo(tail, 6);
          if (k < n) expect(binomialCdf(k, n, r.hi)).toBeCloseTo(tail, 6);
          expect(r.lo).toBeLessThanOrEqual(k / n);
          expect(r.hi).toBeGreaterThanOrEqual(k / n);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('no trials: the uninformative [0, 1]', () => {
    expect(clopperPearsonInterval(0, 0)).toMatchObject({ lo: 0, hi: 1, n: 0 });
  });
});

describe('pass@k and pass^k', () => {
  const nck = fc
    .integer({ min: 1, max: 60 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })));

  it('pass^k ≤ p̂ ≤ pass@k, bounded in [0, 1]', () => {
    fc.assert(
      fc.property(nck, ([n, c, k]) => {
        const p = c / n;
        const at = passAtK(n, c, k);
        const hat = passHatK(n, c, k);
        return hat <= p + 1e-12 && p <= at + 1e-12 && hat >= 0 && at <= 1;
      }),
    );
  });

  it('equal to p̂ at k = 1', () => {
    fc.assert(fc.property(nck, ([n, c]) => Math.abs(passAtK(n, c, 1) - c / n) < 1e-12 && Math.abs(passHatK(n, c, 1) - c / n) < 1e-12));
  });

  it('monotone in k: pass@k rises, pass^k falls', () => {
    fc.assert(
      fc.property(nck, ([n, c]) => {
        const t = passKTable(n, c);
        return t.every((row, i) => i === 0 || (row.passAtK >= t[i - 1]!.passAtK - 1e-12 && row.passHatK <= t[i - 1]!.passHatK + 1e-12));
      }),
    );
  });

  it.each([
    [10, 9, 3, 1, 0.7],
    [6, 5, 3, 1, 0.5],
    [6, 3, 2, 0.8, 0.2],
    [5, 0, 2, 0, 0],
    [5, 5, 5, 1, 1],
  ])('n=%i c=%i k=%i → pass@k %f, pass^k %f', (n, c, k, at, hat) => {
    expect(passAtK(n, c, k)).toBeCloseTo(at, 10);
    expect(passHatK(n, c, k)).toBeCloseTo(hat, 10);
  });

  it('rejects k > n', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
  });

  it('does not overflow at large n', () => {
    expect(passHatK(5000, 4500, 50)).toBeGreaterThan(0);
    expect(passAtK(5000, 10, 1000)).toBeLessThanOrEqual(1);
  });
});

describe('McNemar exact test and the paired difference', () => {
  it.each([
    [0, 6, 0.03125],
    [6, 0, 0.03125],
    [3, 3, 1],
    [0, 0, 1],
    [1, 9, 0.021484375],
  ])('discordant %i vs %i → p = %f', (b, c, p) => {
    expect(mcnemarExact({ both: 4, skillOnly: b, ablationOnly: c, neither: 2 })).toBeCloseTo(p, 9);
  });

  it('counts pairs', () => {
    expect(
      pairCounts([
        [true, true],
        [true, false],
        [false, true],
        [false, false],
        [true, false],
      ]),
    ).toEqual({ both: 1, skillOnly: 2, ablationOnly: 1, neither: 1 });
  });

  it('reduces to the independent-samples Newcombe interval when the pairs are uncorrelated (ad = bc)', () => {
    // a=4 b=2 c=2 d=1: φ = 0, so the limits are D ∓ sqrt((p1 − l1)² + (u2 − p2)²) etc. from two Wilson intervals.
    const n = 9;
    const s = wilsonInterval(6, n);
    const a = wilsonInterval(6, n);
    const d = pairedDifference({ both: 4, skillOnly: 2, ablationOnly: 2, neither: 1 });
    expect(d.diff).toBe(0);
    expect(d.lo).toBeCloseTo(-Math.hypot(s.p - s.lo, a.hi - a.p), 12);
    expect(d.hi).toBeCloseTo(Math.hypot(s.hi - s.p, a.p - a.lo), 12);
  });

  it('narrows when the arms are positively correlated', () => {
    const independent = pairedDifference({ both: 4, skillOnly: 2, ablationOnly: 2, neither: 1 });
    const correlated = pairedDifference({ both: 6, skillOnly: 0, ablationOnly: 0, neither: 3 });
    expect(correlated.hi - correlated.lo).toBeLessThan(independent.hi - independent.lo);
  });

  it('always contains the observed difference, within [−1, 1]', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.nat(20), fc.nat(20), fc.nat(20), (a, b, c, d) => {
        fc.pre(a + b + c + d > 0);
        const r = pairedDifference({ both: a, skillOnly: b, ablationOnly: c, neither: d });
        return r.lo <= r.diff + 1e-12 && r.diff <= r.hi + 1e-12 && r.lo >= -1 && r.hi <= 1;
      }),
    );
  });
});

describe('ground truth from the simulator', () => {
  it('the 95% Wilson interval covers the simulator’s known trigger probability in 93–97% of repetitions', () => {
    const p = 0.8;
    const profile = parseProfile({
      seed: 424242,
      rules: [
        {
          case: 'c',
          do: [
            { p, skill: 'atl-jira' },
            { p: 1 - p, answer: 'no' },
          ],
        },
      ],
    });
    const view = anthropicView({
      tools: [{ name: 'Skill' }],
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: '<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- atl-jira: x\n</system-reminder>',
            },
            { type: 'text', text: 'go' },
          ],
        },
      ],
    });
    const reps = 2000;
    const n = 40;
    let covered = 0;
    for (let r = 0; r < reps; r++) {
      let fired = 0;
      for (let i = 0; i < n; i++) {
        const reply = decideReply(profile, view, { key: `rep${r}/trial${i}`, caseId: 'c' });
        if (reply.type === 'message' && reply.blocks.some((b) => b.type === 'skill')) fired++;
      }
      const w = wilsonInterval(fired, n);
      if (w.lo <= p && p <= w.hi) covered++;
    }
    const coverage = covered / reps;
    expect(coverage).toBeGreaterThanOrEqual(0.93);
    expect(coverage).toBeLessThanOrEqual(0.97);
  });
});
