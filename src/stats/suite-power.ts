/**
 * The exact power of the suite-level canary (the truncated product of the cases' one-sided design tests against
 * their exact nulls) before any trial: the combined statistic's distribution is the convolution of the cases'
 * own, under the null (its critical value) and under a drop (its power), each from the exact distribution of
 * where both runs' designs end. No simulation.
 */
import { convolveTerms, type BinnedTerm } from './combine-p-values.js';
import { logEndProbability } from './stopped-binomial.js';
import { nullFor } from './stopped-two-sample.js';
import type { SequentialDesign } from './sequential-design.js';

/** One case of the suite: the design each run stops it by, and its pass rate before and after. */
export interface PlannedCase {
  base: SequentialDesign;
  candidate: SequentialDesign;
  from: number;
  to: number;
}

const BINS = 4000;

/** Per case, −2 ln of the combination's p-value at each pair of ends, with that pair's chance under the drop. */
function dropTerms(c: PlannedCase, term: (u: number) => number): { value: number; mass: number }[] {
  const table = nullFor({ design: c.base }, { design: c.candidate });
  const { base, candidate } = table.ends;
  // Rates of exactly 0 or 1 are taken just inside, where every end's probability is defined.
  const at = (p: number) => {
    const q = Math.min(1 - 1e-12, Math.max(1e-12, p));
    return [Math.log(q), Math.log1p(-q)] as const;
  };
  const [f, t] = [at(c.from), at(c.to)];
  return base.flatMap((b, i) =>
    candidate.map((e, j) => {
      const u = table.lower.values[table.lower.levelOf[i * candidate.length + j]!]!;
      return { value: term(u), mass: Math.exp(logEndProbability(b, ...f) + logEndProbability(e, ...t)) };
    }),
  );
}

/** The staircase null of one case's −2 ln p: each value of its p-value with its step's mass. */
function nullTerms(c: PlannedCase, term: (u: number) => number): { value: number; mass: number }[] {
  const values = nullFor({ design: c.base }, { design: c.candidate }).lower.values;
  return values.map((u, l) => ({ value: term(u), mass: u - (l ? values[l - 1]! : 0) })).filter((x) => x.mass > 0);
}

/** Values binned by `round` (capped at the last bin), masses of equal bins merged. */
function binned(term: { value: number; mass: number }[], width: number, round: (x: number) => number, bins: number): BinnedTerm {
  const masses = new Map<number, number>();
  for (const { value, mass } of term) {
    const b = Math.min(bins, round(value / width));
    masses.set(b, (masses.get(b) ?? 0) + mass);
  }
  return [...masses];
}

/**
 * The chance the suite-level test (truncated at τ) flags a regression at level α when every case drops from its
 * `from` to its `to` (a case with from = to does not move). The null's tail is rounded up and the drop's values down, so the
 * power is never overstated; fewer `bins` compute faster and understate it a little more.
 */
export function suiteCanaryPower(cases: readonly PlannedCase[], alpha: number, tau: number, bins = BINS): number {
  if (cases.length === 0) return 0;
  const term = (u: number) => (u <= tau ? -2 * Math.log(u) : 0);
  const nulls = cases.map((c) => nullTerms(c, term));
  const top = nulls.reduce((s, t) => s + Math.max(...t.map((x) => x.value)), 0);
  const width = top / bins;
  const underNull = convolveTerms(
    nulls.map((t) => binned(t, width, Math.ceil, bins)),
    bins,
  );
  // The smallest bin whose tail under the null is at most α: the critical value.
  let tail = 0;
  let critical = bins + 1;
  for (let b = bins; b >= 0; b--) {
    if (tail + underNull[b]! > alpha) break;
    tail += underNull[b]!;
    critical = b;
  }
  const underDrop = convolveTerms(
    cases.map((c) => binned(dropTerms(c, term), width, Math.floor, bins)),
    bins,
  );
  let power = 0;
  for (let b = critical; b <= bins; b++) power += underDrop[b]!;
  return Math.min(1, power);
}
