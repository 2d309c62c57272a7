/**
 * The truncated product of independent one-sided p-values (Zaykin et al.): X = −2 Σ ln pᵢ over the pᵢ at most τ,
 * against the null each p-value really has. p-values above τ carry no evidence of the effect sought; leaving them
 * out keeps the cases that did not move from diluting those that did (τ = 1 is Fisher's method).
 *
 * An exact test on few trials can take only a few values, and each value u is exactly the largest chance, over the
 * nuisance rate, of a p-value at most u: its null is a staircase, not the uniform a χ² reference assumes. Validity:
 * each pᵢ is stochastically at least its staircase, so its term is stochastically at most the staircase's own, and
 * sums of independent terms keep that order: the convolution of the staircases bounds the tail of X under every
 * combination of nuisance rates. A p-value without a staircase is taken as uniform.
 *
 * Hand-written: no package convolves discrete nulls of exact tests.
 */

/** One case's evidence: its p-value and, when known, every value its test can take (ascending, the last 1). */
export interface CombinedEvidence {
  p: number;
  nullValues?: readonly number[];
}

/**
 * Bins the statistic is rounded up to: the tail is over-, never under-stated, and by no more than the tail at
 * X · (1 − cases / BINS).
 */
export const COMBINATION_BINS = 2000;
const BINS = COMBINATION_BINS;

/** The combined p-value: P(X ≥ X_observed) under the staircase (or uniform) nulls, p-values above τ left out. */
export function truncatedProduct(evidence: readonly CombinedEvidence[], tau: number): number {
  if (evidence.length === 0) return 1;
  if (evidence.some((e) => e.p <= 0)) return 0;
  const term = (u: number) => (u <= tau ? -2 * Math.log(Math.min(1, u)) : 0);
  const observed = evidence.reduce((sum, e) => sum + term(e.p), 0);
  if (observed <= 0) return 1;
  const width = observed / BINS;
  // Each term rounded up to whole bins and capped at BINS: a term past X reaches the tail on its own, and the
  // terms are never negative, so the cap changes nothing the tail counts.
  const bin = (v: number) => Math.min(BINS, Math.max(0, Math.ceil(v / width - 1e-9)));
  const terms = evidence.map((e) => (e.nullValues?.length ? staircaseTerm(e.nullValues, (u) => bin(term(u))) : uniformTerm(tau, width)));
  return Math.min(1, convolveTerms(terms, BINS)[BINS]!);
}

/** One term's distribution over bins 0..bins: [bin, mass] pairs. */
export type BinnedTerm = [number, number][];

/** The distribution of the sum of independent binned terms, over bins 0..bins, every sum past the last bin in it. */
export function convolveTerms(terms: readonly BinnedTerm[], bins: number): Float64Array {
  let sum = new Float64Array(bins + 1);
  sum[0] = 1;
  for (const masses of terms) {
    const next = new Float64Array(bins + 1);
    for (let a = 0; a <= bins; a++) {
      const pa = sum[a]!;
      if (pa === 0) continue;
      for (const [b, pb] of masses) next[Math.min(bins, a + b)]! += pa * pb;
    }
    sum = next;
  }
  return sum;
}

/** A staircase null's term over bins: each step's mass at its value's bin. */
function staircaseTerm(values: readonly number[], binOf: (u: number) => number): BinnedTerm {
  const masses = new Map<number, number>();
  let before = 0;
  for (const raw of values) {
    const u = Math.min(1, raw);
    if (u > before) masses.set(binOf(u), (masses.get(binOf(u)) ?? 0) + u - before);
    before = Math.max(before, u);
  }
  if (before < 1) masses.set(0, (masses.get(0) ?? 0) + 1 - before);
  return [...masses];
}

/**
 * A uniform p-value's term over bins: 0 above τ; below it −2 ln U, exponential with mean 2, over bins
 * ((b − 1)w, bw] from −2 ln τ on, the rest capped.
 */
function uniformTerm(tau: number, width: number): BinnedTerm {
  const from = -2 * Math.log(tau);
  const out: BinnedTerm = [[0, 1 - tau]];
  for (let b = Math.max(1, Math.ceil(from / width - 1e-9)); b < BINS; b++) {
    const mass = Math.exp(-Math.max((b - 1) * width, from) / 2) - Math.exp((-b * width) / 2);
    if (mass > 0) out.push([b, mass]);
  }
  out.push([BINS, Math.exp(-Math.max((BINS - 1) * width, from) / 2)]);
  return out;
}
