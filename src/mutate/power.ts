import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { Rate } from '../run/schema.js';
import { boschlooTest } from '../stats/boschloo.js';
import { clopperPearsonInterval } from '../stats/clopper-pearson.js';
import { COMBINATION_BINS, convolveTerms, truncatedProduct, type BinnedTerm, type CombinedEvidence } from '../stats/combine-p-values.js';
import { adjustPValues } from '../stats/multiple-testing.js';
import { fixedTrialsDesign, logEndProbability, stoppedEnds, type StoppedEnd } from '../stats/stopped-binomial.js';
import { designKey } from '../stats/stopped-two-sample.js';
import { designOperating, type SequentialDesign } from '../stats/sequential-design.js';
import { suiteCanaryPower } from '../stats/suite-power.js';
import { designEvidence, fixedEvidence, regressedCase, type TestEvidence } from '../verdict/compare.js';
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
 * case REGRESSED on its own test, so the chance of noticing is at least this: the floor `simulatedNoticePower` stands on.
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
 * The fewest trials per case, both runs fixed-N, at which the suite-level combined test alone notices the mutant with
 * TARGET_POWER; undefined beyond MOST_TRIALS. It targets the floor, not the whole rule `noticed` counts: at that size the
 * suite notices the mutant at least that often (a simulated search would cost seconds per mutant for a few trials less). Doubling, then bisecting to within a tenth: the power grows with n but for the odd step
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

/** The seed a mutate's simulated powers take: the same suite and mutant give the same figure every time. */
export const NOTICE_SEED = 38;

/** The draws of `simulatedNoticePower`: its 95% interval is at most ±1.6% wide (at a chance of 50%), ±1% at 10% or 90%. */
export const NOTICE_DRAWS = 4000;

/** How `compare` tests one case when both runs end by its design: each run's ends, and the evidence of a pair of them. */
interface CaseTest {
  key: string;
  ends: StoppedEnd[];
  evidence: (base: number, candidate: number) => TestEvidence;
}

const caseTests = new Map<string, CaseTest>();

/**
 * Both runs fixed-N (`fixed`): Boschloo's test, as `compare` tests runs of a fixed decision mode; else the exact test
 * under both designs. Each pair's evidence is computed once per process: the cases of a suite share their designs.
 */
function caseTest(design: SequentialDesign, fixed: boolean): CaseTest {
  const key = `${fixed ? 'fixed' : 'design'}:${designKey(design)}`;
  const known = caseTests.get(key);
  if (known) return known;
  const ends = stoppedEnds(design);
  const tested = new Map<number, TestEvidence>();
  const evidence = (i: number, j: number) => {
    const pair = i * ends.length + j;
    let found = tested.get(pair);
    if (!found) {
      const [b, c] = [ends[i]!, ends[j]!];
      found = fixed
        ? fixedEvidence(b.passes, b.trials, c.passes, c.trials)
        : designEvidence({ design, trials: b.trials, passes: b.passes }, { design, trials: c.trials, passes: c.passes });
      tested.set(pair, found);
    }
    return found;
  };
  const test = { key, ends, evidence };
  caseTests.set(key, test);
  return test;
}

/** The cumulative chances of a design's ends when every trial passes at `rate` (taken just inside 0 and 1). */
function endCdf(ends: readonly StoppedEnd[], rate: number): Float64Array {
  const q = Math.min(1 - 1e-12, Math.max(1e-12, rate));
  const [logP, logQ] = [Math.log(q), Math.log1p(-q)];
  const cdf = new Float64Array(ends.length);
  let sum = 0;
  ends.forEach((e, i) => (cdf[i] = sum += Math.exp(logEndProbability(e, logP, logQ))));
  return cdf;
}

/** The end a uniform draw `u` picks: the first whose cumulative chance passes u of the whole. */
function endAt(cdf: Float64Array, u: number): number {
  const target = u * cdf[cdf.length - 1]!;
  let [lo, hi] = [0, cdf.length - 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const combinedCriticals = new Map<string, number>();

/** The truncated product's term of one p-value, as `truncatedProduct` sums it. */
const combinedTerm = (u: number) => (u <= SUITE_TRUNCATION ? -2 * Math.log(Math.min(1, u)) : 0);

/**
 * The combined test's p-value, quick where its answer at α is plain. The cases' staircases are the same every draw, so
 * the p-value is a function of the statistic X alone: the tail of X's null beyond X, overstated by the binning by no more
 * than the tail beyond X · (1 − cases / COMBINATION_BINS). The smallest X rejected at α is found once per suite's designs
 * (bisection on `truncatedProduct` itself); a draw farther from it than that margin (taken twice) is decided by its side,
 * 0 or 1 standing for the p-value, and one within it by `truncatedProduct`, once per statistic.
 */
function combinedTest(tests: readonly CaseTest[], alpha: number): (worse: CombinedEvidence[]) => number {
  const staircases = tests.map((t) => t.evidence(0, 0).worse.nullValues);
  const key = `${alpha}|${tests.map((t) => t.key).join('|')}`;
  let critical = combinedCriticals.get(key);
  // Fixed-N runs' p-values are taken as uniform: their critical value has a closed form.
  if (critical === undefined && staircases.every((v) => v === undefined)) critical = criticalStatistic(tests.length, alpha);
  if (critical === undefined) {
    // Evidence whose statistic is w: the first case's p-value carries it all, every staircase as it is.
    const pAt = (w: number) =>
      truncatedProduct(
        staircases.map((nullValues, i) => ({ p: i === 0 ? Math.exp(-w / 2) : 1, ...(nullValues ? { nullValues } : {}) })),
        SUITE_TRUNCATION,
      );
    const most = -2 * Math.log(Number.MIN_VALUE);
    let [lo, hi] = [combinedTerm(SUITE_TRUNCATION), 16];
    while (hi < most && pAt(hi) > alpha) [lo, hi] = [hi, 2 * hi];
    if (hi >= most) critical = Number.POSITIVE_INFINITY;
    else {
      // To a tenth of the margin a draw must clear to be decided by its side.
      while (hi - lo > (0.1 * hi * tests.length) / COMBINATION_BINS) {
        const mid = (lo + hi) / 2;
        if (pAt(mid) <= alpha) hi = mid;
        else lo = mid;
      }
      critical = hi;
    }
    combinedCriticals.set(key, critical);
  }
  const margin = (2 * tests.length) / COMBINATION_BINS;
  const exact = new Map<number, number>();
  return (worse) => {
    const statistic = worse.reduce((sum, e) => sum + combinedTerm(e.p), 0);
    if (statistic * (1 - margin) >= critical) return 0;
    if (statistic <= critical * (1 - margin)) return 1;
    let p = exact.get(statistic);
    if (p === undefined) exact.set(statistic, (p = truncatedProduct(worse, SUITE_TRUNCATION)));
    return p;
  };
}

/**
 * Whether `compare` says REGRESSED on these cases' evidence, as `noticed` reads it: some case REGRESSED on its own test
 * (p-values adjusted by Benjamini–Hochberg across the cases), or the truncated product of their one-sided p-values at
 * most α. `combined` computes the latter (a memo may stand in for `truncatedProduct`).
 */
export function regressedOn(
  evidence: readonly TestEvidence[],
  alpha: number,
  combined: (worse: CombinedEvidence[]) => number = (worse) => truncatedProduct(worse, SUITE_TRUNCATION),
): boolean {
  const adjusted = adjustPValues(
    evidence.map((e) => e.pValue),
    'bh',
  );
  return evidence.some((e, i) => regressedCase(adjusted[i]!, e.direction, alpha)) || combined(evidence.map((e) => e.worse)) <= alpha;
}

/**
 * The chance that the suite notices the mutant by the whole rule `noticed` counts (a case REGRESSED on its own test, or
 * the combined test), which no closed form gives (Benjamini–Hochberg's adjustment ties the cases together): each draw
 * ends both runs of every case by its design at its pass chance before and after, tests each case as `compare` does, and
 * decides by `regressedOn`. Seeded, so a mutant's figure is the same every time; with its 95% Clopper–Pearson interval.
 * `fixed`: the runs are fixed-N (a fixed decision mode), tested by Boschloo's test.
 */
export function simulatedNoticePower(
  cases: readonly MovedCase[],
  alpha: number,
  o: { seed: number; fixed: boolean; draws?: number },
): Rate {
  const draws = o.draws ?? NOTICE_DRAWS;
  const tests = cases.map((c) => {
    const test = caseTest(c.design, o.fixed);
    return { test, before: endCdf(test.ends, c.from), after: endCdf(test.ends, c.to) };
  });
  const combined = combinedTest(
    tests.map((t) => t.test),
    alpha,
  );
  const rng = xoroshiro128plus(o.seed);
  let noticed = 0;
  for (let d = 0; d < draws; d++) {
    const evidence = tests.map((t) => t.test.evidence(endAt(t.before, uniformFloat64(rng)), endAt(t.after, uniformFloat64(rng))));
    if (regressedOn(evidence, alpha, combined)) noticed++;
  }
  return clopperPearsonInterval(noticed, draws);
}
