import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { boschlooTest } from '../stats/boschloo.js';
import { convolveTerms, truncatedProduct, type BinnedTerm } from '../stats/combine-p-values.js';
import { fixedTrialsDesign } from '../stats/stopped-binomial.js';
import { designOperating, type SequentialDesign } from '../stats/sequential-design.js';
import { suiteCanaryPower } from '../stats/suite-power.js';
import { SUITE_TRUNCATION } from '../verdict/compare-defaults.js';

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

/** The power the report states, and the trials per case it aims for when a mutant survives. */
export const TARGET_POWER = 0.8;
/** The most trials per case the search for a deciding size looks at: beyond it, the change is named too small to chase. */
export const MOST_TRIALS = 100;

/**
 * Exact power of the suite-level test at level α to notice the mutant, both runs stopped by each case's design; `bins`
 * fewer than the default for a search, which understates it a little (never overstates).
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
export function aaVerdictFlipRate(cases: readonly { design: SequentialDesign; rate: number }[]): number {
  const stays = cases.reduce((keep, c) => {
    const pass = designOperating(c.design, c.rate).accept;
    return keep * (1 - pass * (1 - pass));
  }, 1);
  return 1 - stays;
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
 * The smallest statistic whose truncated-product p-value over `k` uniform p-values is at most α, by bisection on
 * `truncatedProduct` itself (so the rule is `compare`'s): the same for every mutant of a suite, computed once.
 */
function criticalStatistic(k: number, alpha: number): number {
  const key = `${k}:${alpha}`;
  const known = criticals.get(key);
  if (known !== undefined) return known;
  const ones = Array.from({ length: k - 1 }, () => ({ p: 1 }));
  const rejects = (w: number) => truncatedProduct([{ p: Math.exp(-w / 2) }, ...ones], SUITE_TRUNCATION) <= alpha;
  let [lo, hi] = [-2 * Math.log(SUITE_TRUNCATION), 16];
  while (!rejects(hi)) [lo, hi] = [hi, 2 * hi];
  while (hi - lo > 1e-3) {
    const mid = (lo + hi) / 2;
    if (rejects(mid)) hi = mid;
    else lo = mid;
  }
  criticals.set(key, hi);
  return hi;
}
