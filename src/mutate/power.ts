import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { boschlooTest } from '../stats/boschloo.js';
import { convolveTerms, truncatedProduct, type BinnedTerm } from '../stats/combine-p-values.js';
import { fixedTrialsDesign } from '../stats/stopped-binomial.js';
import { designOperating, type SequentialDesign } from '../stats/sequential-design.js';
import { suiteCanaryPower } from '../stats/suite-power.js';
import { SUITE_TRUNCATION } from '../verdict/compare-defaults.js';
import { TARGET_POWER } from '../run/mutate-schema.js';

/**
 * What the suite's design can see of a mutant, exactly and before any trial: the chance that `compare`'s suite-level
 * test (the truncated combination of the cases' one-sided exact tests, both runs at their designs) flags the mutant
 * REGRESSED against the unmutated run, from each case's pass chance before and after; and, where it is low, the trials
 * per case in each run that would see it.
 */

/** One case of the suite: the design each run stops it by, and its pass chance before and after the mutation. */
export interface MovedCase {
  caseId: string;
  design: SequentialDesign;
  from: number;
  to: number;
}

export { TARGET_POWER };
/** The most trials per case the search for a deciding size looks at: beyond it, the change is named too small to chase. */
export const MOST_TRIALS = 100;

/**
 * Exact power of the suite-level combined test at level α to notice the mutant, both runs stopped by each case's design;
 * `bins` fewer than the default for a search, which understates it a little (never overstates). `noticed` also counts a
 * case REGRESSED on its own test, so the chance of noticing is at least this.
 */
export const noticePower = (cases: readonly MovedCase[], alpha: number, bins?: number): number =>
  suiteCanaryPower(
    cases.map((c) => ({ base: c.design, candidate: c.design, from: c.from, to: c.to })),
    alpha,
    SUITE_TRUNCATION,
    bins,
  );

/** The bins of the search for a deciding size: a quarter of the stated power's, sixteen times faster. */
const SEARCH_BINS = 1000;

/**
 * The fewest trials per case, both runs fixed-N, at which the suite-level test notices the mutant with TARGET_POWER;
 * undefined beyond MOST_TRIALS. Doubling, then bisecting to within a tenth: the power grows with n but for the odd step
 * of a discrete test, so the answer is a size that reaches the target, at most a tenth above the smallest.
 */
export function trialsToNotice(cases: readonly MovedCase[], alpha: number): number | undefined {
  const at = (n: number) =>
    noticePower(
      cases.map((c) => ({ ...c, design: fixedTrialsDesign(n) })),
      alpha,
      SEARCH_BINS,
    ) >= TARGET_POWER;
  let hi = 5;
  while (hi < MOST_TRIALS && !at(hi)) hi *= 2;
  if (hi >= MOST_TRIALS) {
    if (!at(MOST_TRIALS)) return undefined;
    hi = MOST_TRIALS;
  }
  let lo = Math.floor(hi / 2);
  while (hi - lo > Math.max(1, Math.floor(hi / 10))) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The literal rule's false alarms: the chance that some case's verdict changes from PASS between two runs of the very
 * same skill (A/A), at each case's pass chance, exact from each design's operating characteristics.
 */
export const aaVerdictFlipRate = (cases: readonly { design: SequentialDesign; rate: number }[]): number =>
  1 - cases.reduce((keep, c) => keep * (1 - aaVerdictFlipChance(c.design, c.rate)), 1);

/** One case's share of it: PASS in the first run (the design accepts), not in the second. */
export function aaVerdictFlipChance(design: SequentialDesign, rate: number): number {
  const pass = designOperating(design, rate).accept;
  return pass * (1 - pass);
}

/** The largest fixed count whose Boschloo table is worth computing for a plan: (n + 1)² exact tests. */
export const FIXED_EXACT_MAX = 25;
const BINS = 4000;

/**
 * Exact power of the suite-level test when both runs ran every case `n` times (fixed-N): `compare` then tests each case
 * with Boschloo's one-sided p-value and combines them taking each as uniform, so the power is the chance, over both
 * runs' binomial counts, that the truncated product's p-value is at most α. Undefined past FIXED_EXACT_MAX.
 */
export function fixedNoticePower(cases: readonly Pick<MovedCase, 'from' | 'to'>[], n: number, alpha: number): number | undefined {
  if (n > FIXED_EXACT_MAX || cases.length === 0) return undefined;
  const counts = Array.from({ length: n + 1 }, (_, k) => k);
  const lower = boschlooLower(n);
  const term = (u: number) => (u <= SUITE_TRUNCATION ? -2 * Math.log(u) : 0);
  const top = cases.length * Math.max(...lower.flat().map(term));
  if (top === 0) return 0;
  const width = top / BINS;
  // Values rounded down: the power is never overstated.
  const terms = cases.map((c): BinnedTerm => {
    const masses = new Map<number, number>();
    for (const x1 of counts)
      for (const x2 of counts) {
        const b = Math.min(BINS, Math.floor(term(lower[x1]![x2]!) / width));
        masses.set(b, (masses.get(b) ?? 0) + binomialPmf(x1, n, c.from) * binomialPmf(x2, n, c.to));
      }
    return [...masses];
  });
  const sum = convolveTerms(terms, BINS);
  const critical = criticalStatistic(cases.length, alpha);
  let power = 0;
  for (let b = Math.ceil(critical / width); b <= BINS; b++) power += sum[b]!;
  return Math.min(1, power);
}

const lowers = new Map<number, number[][]>();

/** Boschloo's one-sided p-value of a drop for every pair of counts out of n: the same for every mutant, computed once. */
function boschlooLower(n: number): number[][] {
  const counts = Array.from({ length: n + 1 }, (_, k) => k);
  const table = lowers.get(n) ?? counts.map((x1) => counts.map((x2) => boschlooTest(x1, n, x2, n).lower));
  lowers.set(n, table);
  return table;
}

const criticals = new Map<string, number>();

/**
 * The exact p-value of the truncated product's statistic `w` over `k` uniform p-values (Zaykin et al.): given j of them
 * at most τ, each such term is −2 ln τ plus an exponential of mean 2, so their sum past j·(−2 ln τ) is χ² on 2j degrees.
 */
function uniformTruncatedP(w: number, k: number, tau: number): number {
  const c = -2 * Math.log(tau);
  let p = 0;
  let choose = 1;
  for (let j = 1; j <= k; j++) {
    choose = (choose * (k - j + 1)) / j;
    const x = Math.max(0, w - j * c) / 2;
    // P(χ²_{2j} ≥ 2x) = e^{−x} Σ_{i<j} x^i / i!
    let sum = 0;
    let term = 1;
    for (let i = 0; i < j; i++) {
      sum += term;
      term = (term * x) / (i + 1);
    }
    p += choose * tau ** j * (1 - tau) ** (k - j) * Math.exp(-x) * sum;
  }
  return p;
}

/**
 * The smallest statistic `compare` rejects at level α when it combines `k` cases' p-values as uniform: found on the
 * exact formula, then stepped up until `truncatedProduct` itself (which rounds the tail up) agrees, so the power is
 * never overstated. The same for every mutant of a suite: computed once.
 */
function criticalStatistic(k: number, alpha: number): number {
  const key = `${k}:${alpha}`;
  const known = criticals.get(key);
  if (known !== undefined) return known;
  let [lo, hi] = [0, 16];
  while (uniformTruncatedP(hi, k, SUITE_TRUNCATION) > alpha) [lo, hi] = [hi, 2 * hi];
  while (hi - lo > 1e-6 * hi) {
    const mid = (lo + hi) / 2;
    if (uniformTruncatedP(mid, k, SUITE_TRUNCATION) <= alpha) hi = mid;
    else lo = mid;
  }
  const ones = Array.from({ length: k - 1 }, () => ({ p: 1 }));
  while (truncatedProduct([{ p: Math.exp(-hi / 2) }, ...ones], SUITE_TRUNCATION) > alpha) hi *= 1.001;
  criticals.set(key, hi);
  return hi;
}
