import hypergeometricCdf from '@stdlib/stats-base-dists-hypergeometric-cdf';
import { describe, expect, it } from 'vitest';
import { boschlooTest, candidateWorseRejectionBoundary } from '../src/stats/boschloo.js';
import { anytimeDifference, confidenceSequence } from '../src/stats/confidence-sequence.js';
import betaln from '@stdlib/math-base-special-betaln';
import { newcombeDifference } from '../src/stats/newcombe.js';
import { pairedSignTest } from '../src/stats/paired-sign.js';
import { EXACT_SEARCH_LIMIT, exactPower, normalApproxTrials, trialsToDetect } from '../src/stats/sample-size.js';

/** Fisher's one-sided p-value for "run 2 worse": P(X2 ≤ x2) given the total passes. */
function fisherCandidateWorse(x1: number, n1: number, x2: number, n2: number): number {
  return hypergeometricCdf(x2, n1 + n2, x1 + x2, n2);
}

function tables(n1: number, n2: number): [number, number][] {
  const out: [number, number][] = [];
  for (let a = 0; a <= n1; a++) for (let b = 0; b <= n2; b++) out.push([a, b]);
  return out;
}

function expectRelativelyClose(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

describe("Boschloo's exact unconditional test", () => {
  // scipy 1.17.1 boschloo_exact on [[x1, x2], [n1 − x1, n2 − x2]] ('greater' is lower, 'less' is upper), each
  // confirmed to 6 digits by a brute-force supremum over 200,000 values of π; the last row is scipy's own example.
  it.each([
    [7, 12, 3, 11, 0.080524, 0.941472],
    [9, 10, 3, 10, 0.00397778, 0.997094],
    [5, 20, 12, 20, 0.989731, 0.0147903],
    [45, 50, 38, 50, 0.0393931, 0.973814],
    [10, 10, 7, 10, 0.057888, 1],
    [18, 20, 11, 20, 0.00835734, 0.99525],
    [30, 40, 30, 40, 0.545494, 0.545494],
    [3, 15, 9, 15, 0.990341, 0.015034],
    [50, 50, 44, 50, 0.00863309, 1],
    [2, 8, 6, 9, 0.96033, 0.0551321],
    [28, 30, 20, 25, 0.0960729, 0.945903],
    [74, 117, 31, 63, 0.0355641, 0.966503],
  ])('%i/%i → %i/%i: lower %f, upper %f', (x1, n1, x2, n2, lower, upper) => {
    const r = boschlooTest(x1, n1, x2, n2);
    expectRelativelyClose(r.lower, lower, 1e-4);
    expectRelativelyClose(r.upper, upper, 1e-4);
    expect(r.twoSided).toBeCloseTo(Math.min(1, 2 * Math.min(lower, upper)), 4);
  });

  it("Fisher's p-value is monotone in each count, the premise of the staircase regions", () => {
    for (const [n1, n2] of [
      [12, 12],
      [9, 25],
      [40, 40],
    ] as const) {
      for (const [a, b] of tables(n1, n2)) {
        const f = fisherCandidateWorse(a, n1, b, n2);
        if (a < n1) expect(fisherCandidateWorse(a + 1, n1, b, n2)).toBeLessThanOrEqual(f * (1 + 1e-12));
        if (b < n2) expect(fisherCandidateWorse(a, n1, b + 1, n2)).toBeGreaterThanOrEqual(f * (1 - 1e-12));
      }
    }
  });

  it("is never above Fisher's one-sided p-value (Fisher is the floor of its power)", () => {
    for (const [n1, n2] of [
      [8, 8],
      [10, 15],
      [20, 20],
    ] as const) {
      for (const [a, b] of tables(n1, n2)) {
        const r = boschlooTest(a, n1, b, n2);
        expect(r.lower).toBeLessThanOrEqual(fisherCandidateWorse(a, n1, b, n2) * (1 + 1e-9));
        expect(r.upper).toBeLessThanOrEqual(fisherCandidateWorse(b, n2, a, n1) * (1 + 1e-9));
      }
    }
  });

  it('swapping the runs swaps lower and upper; recoding passes as fails does too', () => {
    for (const [x1, n1, x2, n2] of [
      [7, 12, 3, 11],
      [45, 50, 38, 50],
      [0, 30, 4, 20],
      [25, 25, 18, 30],
    ] as const) {
      const r = boschlooTest(x1, n1, x2, n2);
      const swapped = boschlooTest(x2, n2, x1, n1);
      expect(swapped.lower).toBe(r.upper);
      expect(swapped.upper).toBe(r.lower);
      const recoded = boschlooTest(n1 - x1, n1, n2 - x2, n2);
      expectRelativelyClose(recoded.upper, r.lower, 1e-9);
      expectRelativelyClose(recoded.lower, r.upper, 1e-9);
    }
  });

  it('finds no change between identical runs, and nothing in an empty run', () => {
    for (const [x, n] of [
      [0, 20],
      [5, 10],
      [15, 30],
      [20, 20],
      [37, 50],
      [90, 100],
    ] as const) {
      const r = boschlooTest(x, n, x, n);
      expect(r.lower).toBe(r.upper);
      expect(r.twoSided).toBeGreaterThan(0.9);
    }
    expect(boschlooTest(0, 20, 0, 20).twoSided).toBe(1);
    expect(boschlooTest(0, 0, 5, 10)).toEqual({ lower: 1, upper: 1, twoSided: 1 });
    expect(boschlooTest(3, 10, 0, 0)).toEqual({ lower: 1, upper: 1, twoSided: 1 });
  });

  it('stays finite at 500 per side: the most extreme table has p = sup π^500 (1 − π)^500 = 2^−1000', () => {
    const r = boschlooTest(500, 500, 0, 500);
    expectRelativelyClose(r.lower, 2 ** -1000, 1e-9);
    expect(r.upper).toBe(1);
    const moderate = boschlooTest(450, 500, 400, 500);
    expect(moderate.lower).toBeGreaterThan(0);
    expect(moderate.lower).toBeLessThan(fisherCandidateWorse(450, 500, 400, 500));
  });

  it('rejects counts that are not 0 ≤ x ≤ n integers', () => {
    expect(() => boschlooTest(11, 10, 3, 10)).toThrow(RangeError);
    expect(() => boschlooTest(1.5, 10, 3, 10)).toThrow(RangeError);
    expect(() => boschlooTest(1, 10, -1, 10)).toThrow(RangeError);
  });

  it('its rejection boundary is exactly the tables whose lower p-value is within the level', () => {
    for (const [n1, n2, level] of [
      [12, 12, 0.025],
      [10, 14, 0.05],
      [15, 9, 0.1],
    ] as const) {
      const boundary = candidateWorseRejectionBoundary(n1, n2, level);
      for (const [a, b] of tables(n1, n2)) expect(b <= boundary[a]!).toBe(boschlooTest(a, n1, b, n2).lower <= level);
    }
  });
});

describe("Newcombe's hybrid score interval for a difference of rates", () => {
  // Newcombe (1998) method 10, published as p1 − p2 for (a) to (h); here the base is his second group, so the
  // difference candidate − base carries his sign. (a) and (b) also match an independent R implementation's tests.
  it.each([
    [48, 80, 56, 70, 0.2, 0.0524, 0.3339],
    [3, 10, 9, 10, 0.6, 0.1705, 0.809],
    [0, 29, 5, 56, 0.0893, -0.0381, 0.1926],
    [0, 20, 0, 10, 0, -0.1611, 0.2775],
    [0, 10, 0, 10, 0, -0.2775, 0.2775],
    [0, 20, 10, 10, 1, 0.6791, 1],
    [0, 10, 10, 10, 1, 0.6075, 1],
  ])('base %i/%i, candidate %i/%i: %f in [%f, %f]', (x1, n1, x2, n2, diff, lo, hi) => {
    const r = newcombeDifference(x1, n1, x2, n2);
    expect(r.diff).toBeCloseTo(diff, 4);
    expect(r.lo).toBeCloseTo(lo, 4);
    expect(r.hi).toBeCloseTo(hi, 4);
  });

  it('is candidate − base: swapping the runs negates it', () => {
    const r = newcombeDifference(56, 70, 48, 80);
    expect(r.diff).toBeCloseTo(-0.2, 12);
    expect(r.lo).toBeCloseTo(-0.3339, 4);
    expect(r.hi).toBeCloseTo(-0.0524, 4);
  });

  it('contains the estimate, stays in [−1, 1], widens with confidence', () => {
    for (const [n1, n2] of [
      [10, 10],
      [7, 30],
    ] as const) {
      for (const [a, b] of tables(n1, n2)) {
        const r = newcombeDifference(a, n1, b, n2);
        const wide = newcombeDifference(a, n1, b, n2, 0.99);
        expect(r.lo).toBeGreaterThanOrEqual(-1);
        expect(r.hi).toBeLessThanOrEqual(1);
        expect(r.lo).toBeLessThanOrEqual(r.diff + 1e-12);
        expect(r.diff).toBeLessThanOrEqual(r.hi + 1e-12);
        expect(wide.lo).toBeLessThanOrEqual(r.lo);
        expect(wide.hi).toBeGreaterThanOrEqual(r.hi);
      }
    }
  });

  it('is uninformative when a run is empty', () => {
    const r = newcombeDifference(0, 0, 4, 5);
    expect(r.diff).toBeNaN();
    expect(r).toMatchObject({ lo: -1, hi: 1 });
  });
});

describe('beta-binomial mixture confidence sequence', () => {
  // Root-found with scipy's brentq on the same boundary, Beta(½, ½) prior.
  it.each([
    [9, 10, 0.05, 0.45599132, 0.99953438],
    [50, 100, 0.05, 0.33825755, 0.66174245],
    [0, 20, 0.05, 0, 0.22400611],
    [30, 30, 0.1, 0.85842396, 1],
    [3, 7, 0.01, 0.03022154, 0.92550522],
    [95, 100, 0.025, 0.83573688, 0.99389967],
  ])('%i/%i at α = %f is [%f, %f]', (s, n, alpha, lo, hi) => {
    const r = confidenceSequence(s, n, alpha);
    expect(r.lo).toBeCloseTo(lo, 7);
    expect(r.hi).toBeCloseTo(hi, 7);
  });

  it('contains s/n, stays in [0, 1] and shrinks as α grows', () => {
    for (let n = 1; n <= 40; n++) {
      for (let s = 0; s <= n; s++) {
        const strict = confidenceSequence(s, n, 0.01);
        const usual = confidenceSequence(s, n, 0.05);
        const loose = confidenceSequence(s, n, 0.2);
        expect(strict.lo).toBeGreaterThanOrEqual(0);
        expect(strict.hi).toBeLessThanOrEqual(1);
        expect(loose.lo).toBeLessThanOrEqual(s / n);
        expect(loose.hi).toBeGreaterThanOrEqual(s / n);
        expect(strict.lo).toBeLessThanOrEqual(usual.lo);
        expect(usual.lo).toBeLessThanOrEqual(loose.lo);
        expect(strict.hi).toBeGreaterThanOrEqual(usual.hi);
        expect(usual.hi).toBeGreaterThanOrEqual(loose.hi);
      }
    }
    expect(confidenceSequence(0, 0, 0.05)).toEqual({ lo: 0, hi: 1 });
  });

  it('excludes the true rate at any time up to 30 trials with probability ≤ α (exact, over every path)', () => {
    const horizon = 30;
    for (const alpha of [0.05, 0.2]) {
      const sequences = Array.from({ length: horizon + 1 }, (_, n) =>
        Array.from({ length: n + 1 }, (_, s) => confidenceSequence(s, n, alpha)),
      );
      let worst = 0;
      for (const p of [0.02, 0.1, 0.25, 0.5, 0.7, 0.85, 0.95, 0.99]) {
        // Probability of each pass count among paths whose sequence has covered p so far.
        let covered = [1];
        let excluded = 0;
        for (let n = 1; n <= horizon; n++) {
          const next = new Array<number>(n + 1).fill(0);
          covered.forEach((mass, s) => {
            next[s + 1]! += mass * p;
            next[s]! += mass * (1 - p);
          });
          covered = next.map((mass, s) => {
            const cs = sequences[n]![s]!;
            if (p >= cs.lo && p <= cs.hi) return mass;
            excluded += mass;
            return 0;
          });
        }
        expect(excluded).toBeLessThanOrEqual(alpha);
        worst = Math.max(worst, excluded);
      }
      expect(worst).toBeGreaterThan(0);
    }
  });
});

describe('anytime-valid difference interval', () => {
  it('is the Minkowski difference of the two sequences at α/2 around candidate − base', () => {
    const r = anytimeDifference(18, 20, 12, 25, 0.9);
    const base = confidenceSequence(18, 20, 0.05);
    const candidate = confidenceSequence(12, 25, 0.05);
    expect(r.diff).toBeCloseTo(12 / 25 - 18 / 20, 12);
    expect(r.lo).toBe(candidate.lo - base.hi);
    expect(r.hi).toBe(candidate.hi - base.lo);
    expect(r.lo).toBeLessThan(r.diff);
    expect(r.hi).toBeGreaterThan(r.diff);
  });

  it('holds zero when the rates agree, and is uninformative when a run is empty', () => {
    const same = anytimeDifference(7, 10, 14, 20);
    expect(same.lo).toBeLessThan(0);
    expect(same.hi).toBeGreaterThan(0);
    const empty = anytimeDifference(0, 0, 4, 5);
    expect(empty.diff).toBeNaN();
    expect(empty.lo).toBeLessThan(-0.5);
    expect(empty.hi).toBeGreaterThan(0.5);
  });

  it('under no change, excludes zero at any time up to 20 trials per run with probability ≤ α (exact, over every path)', () => {
    const horizon = 20;
    const alpha = 0.1;
    const rejects = Array.from({ length: horizon + 1 }, (_, n) =>
      Array.from({ length: n + 1 }, (_, s1) =>
        Array.from({ length: n + 1 }, (_, s2) => {
          if (n === 0) return false;
          const r = anytimeDifference(s1, n, s2, n, 1 - alpha);
          return r.lo > 0 || r.hi < 0;
        }),
      ),
    );
    for (const q of [0.3, 0.5, 0.9]) {
      let alive = new Map<string, number>([['0,0', 1]]);
      let rejected = 0;
      for (let n = 1; n <= horizon; n++) {
        const next = new Map<string, number>();
        for (const [key, mass] of alive) {
          const [s1, s2] = key.split(',').map(Number) as [number, number];
          for (const [d1, p1] of [
            [1, q],
            [0, 1 - q],
          ] as const) {
            for (const [d2, p2] of [
              [1, q],
              [0, 1 - q],
            ] as const) {
              const k = `${s1 + d1},${s2 + d2}`;
              next.set(k, (next.get(k) ?? 0) + mass * p1 * p2);
            }
          }
        }
        alive = new Map();
        for (const [key, mass] of next) {
          const [s1, s2] = key.split(',').map(Number) as [number, number];
          if (rejects[n]![s1]![s2]) rejected += mass;
          else alive.set(key, mass);
        }
      }
      expect(rejected).toBeLessThanOrEqual(alpha);
    }
  });
});

describe('trials needed to detect a change', () => {
  // The continuity-corrected normal formula, evaluated by hand in Python (e.g. 0.9 → 0.75: n' = 99.54,
  // corrected 112.48).
  it.each([
    [0.9, 0.75, 0.05, 0.8, 113],
    [0.5, 0.3, 0.05, 0.8, 103],
    [0.95, 0.8, 0.05, 0.9, 114],
    [0.8, 0.6, 0.01, 0.8, 131],
    [0.6, 0.4, 0.05, 0.8, 107],
  ])('approximation: %f → %f at α = %f, power %f needs %i per run', (pBase, pCandidate, alpha, power, n) => {
    expect(normalApproxTrials(pBase, pCandidate, alpha, power)).toBe(n);
    expect(normalApproxTrials(pCandidate, pBase, alpha, power)).toBe(n);
  });

  // Brute force in Python: scipy's hypergeometric CDF, a 20,000-point supremum per table and per side.
  it.each([
    [0.9, 0.5, 12, 0.05, 0.5883970101],
    [0.8, 0.3, 10, 0.05, 0.6216319804],
    [0.5, 0.9, 12, 0.1, 0.7245965135],
  ])('exact power of %f → %f with %i per run at α = %f is %f', (pBase, pCandidate, n, alpha, power) => {
    expect(exactPower(pBase, pCandidate, n, alpha)).toBeCloseTo(power, 6);
  });

  it('exact power under no change is at most α: the test is exact', () => {
    for (const n of [15, 40]) {
      for (const p of [0.1, 0.5, 0.8, 0.97]) expect(exactPower(p, p, n, 0.05)).toBeLessThanOrEqual(0.05);
    }
  });

  it.each([
    [0.9, 0.75, 0.05, 0.8],
    [0.5, 0.3, 0.05, 0.8],
    [0.9, 0.6, 0.05, 0.8],
    [1, 0.8, 0.05, 0.9],
  ])('%f → %f at α = %f: the returned n reaches power %f, one fewer does not', (pBase, pCandidate, alpha, power) => {
    const n = trialsToDetect(pBase, pCandidate, alpha, power);
    expect(exactPower(pBase, pCandidate, n, alpha)).toBeGreaterThanOrEqual(power);
    expect(exactPower(pBase, pCandidate, n - 1, alpha)).toBeLessThan(power);
    // Boschloo is at least as powerful as Fisher's test, which the approximation tracks.
    expect(n).toBeLessThanOrEqual(normalApproxTrials(pBase, pCandidate, alpha, power));
  });

  it('returns the first n that reaches the power', () => {
    const n = trialsToDetect(0.9, 0.4, 0.05, 0.8);
    for (let m = 1; m < n; m++) expect(exactPower(0.9, 0.4, m, 0.05)).toBeLessThan(0.8);
  });

  it('falls back to the approximation past the exact-search limit, and cannot detect no change', () => {
    const approx = normalApproxTrials(0.9, 0.85, 0.05, 0.8);
    expect(approx).toBeGreaterThan(EXACT_SEARCH_LIMIT);
    expect(trialsToDetect(0.9, 0.85, 0.05, 0.8)).toBe(approx);
    expect(trialsToDetect(0.7, 0.7, 0.05, 0.8)).toBe(Number.POSITIVE_INFINITY);
    expect(() => trialsToDetect(0.9, 0.7, 0, 0.8)).toThrow(RangeError);
    expect(() => trialsToDetect(0.9, 1.2, 0.05, 0.8)).toThrow(RangeError);
  });
});

describe('pairedSignTest: anytime-valid for runs that stopped early', () => {
  const seq = (s: string) => [...s].map((c) => c === 'P');

  it.each<[string, string, string, { pairs: number; baseOnly: number; candidateOnly: number }]>([
    ['identical runs: no discordant pair, p = 1', 'PPPPF', 'PPPPF', { pairs: 5, baseOnly: 0, candidateOnly: 0 }],
    ['pairs stop at the shorter run', 'PPPPPPPP', 'FFF', { pairs: 3, baseOnly: 3, candidateOnly: 0 }],
    ['concordant pairs carry no evidence', 'PPFFPF', 'PFFPPF', { pairs: 6, baseOnly: 1, candidateOnly: 1 }],
  ])('%s', (_, base, candidate, counts) => {
    expect(pairedSignTest(seq(base), seq(candidate))).toMatchObject(counts);
  });

  it('p = 1 / the running maximum of the mixture e-value', () => {
    // 10 discordant pairs, all for the base run: E = B(½, 10½) / B(½, ½) · 2^10.
    const e = Math.exp(betaln(0.5, 10.5) - betaln(0.5, 0.5) + 10 * Math.LN2);
    expect(pairedSignTest(seq('P'.repeat(10)), seq('F'.repeat(10))).pValue).toBeCloseTo(1 / e, 12);
    // Evidence that later turns around still counts at its peak (Ville's inequality covers the whole path).
    const peaked = pairedSignTest(seq('P'.repeat(10) + 'F'.repeat(10)), seq('F'.repeat(10) + 'P'.repeat(10)));
    expect(peaked.pValue).toBeCloseTo(1 / e, 12);
  });

  it.each([0.05, 0.2])(
    'under no change, the chance it ever reaches p ≤ %f within 60 discordant pairs is at most α (exact, over every path)',
    (alpha) => {
      // Only the discordant pairs move the e-process, each a fair coin under no change: follow the probability of
      // every (baseOnly, candidateOnly) state not yet rejected, and add up what crosses.
      let alive = new Map<string, number>([['0,0', 1]]);
      let crossed = 0;
      for (let d = 1; d <= 60; d++) {
        const next = new Map<string, number>();
        for (const [key, p] of alive) {
          const [b, c] = key.split(',').map(Number) as [number, number];
          for (const [nb, nc] of [
            [b + 1, c],
            [b, c + 1],
          ] as const) {
            const logE = betaln(0.5 + nc, 0.5 + nb) - betaln(0.5, 0.5) + d * Math.LN2;
            if (logE >= Math.log(1 / alpha)) crossed += p / 2;
            else next.set(`${nb},${nc}`, (next.get(`${nb},${nc}`) ?? 0) + p / 2);
          }
        }
        alive = next;
      }
      expect(crossed).toBeGreaterThan(alpha / 10);
      expect(crossed).toBeLessThanOrEqual(alpha);
    },
  );
});
