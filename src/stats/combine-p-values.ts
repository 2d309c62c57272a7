/**
 * Fisher's combination of independent one-sided p-values, X = −2 Σ ln pᵢ, with the null each p-value really has.
 * An exact test on few trials can take only a few values, and each value u is exactly the largest chance, over the
 * nuisance rate, of a p-value at most u: its null is a staircase, not the uniform the χ² reference assumes. A
 * p-value whose null puts its mass on few large steps (a case that passed 6 of 6 cannot look much worse) then adds
 * far less to X by chance, and the χ² reference, built for uniforms, overstates how large X gets by chance.
 *
 * Validity: each pᵢ is stochastically at least its staircase (P(pᵢ ≤ u) ≤ the largest step at most u), so −2 ln pᵢ is
 * stochastically at most the staircase's own −2 ln, and sums of independent terms keep that order: the
 * convolution of the staircases bounds the tail of X under every combination of nuisance rates. A p-value without
 * a staircase is taken as uniform, the χ² case.
 *
 * Hand-written: no package convolves discrete nulls of exact tests.
 */

/** One case's evidence: its p-value and, when known, every value its test can take (ascending, the last 1). */
export interface CombinedEvidence {
  p: number;
  nullValues?: readonly number[];
}

/** Bins the statistic is rounded up to: the tail is over-, never under-stated, by at most cases × X / BINS. */
const BINS = 2000;

/** The combined p-value: P(−2 Σ ln Pᵢ ≥ X_observed) under the staircase (or uniform) nulls. */
export function fisherCombination(evidence: readonly CombinedEvidence[]): number {
  if (evidence.length === 0) return 1;
  if (evidence.some((e) => e.p <= 0)) return 0;
  const observed = evidence.reduce((sum, e) => sum - 2 * Math.log(Math.min(1, e.p)), 0);
  if (observed <= 0) return 1;
  const width = observed / BINS;
  // Each term rounded up to whole bins and capped at BINS: a term past X reaches the tail on its own, and the
  // terms are never negative, so the cap changes nothing the tail counts.
  const bin = (v: number) => Math.min(BINS, Math.max(0, Math.ceil(v / width - 1e-9)));
  let sum = new Float64Array(BINS + 1);
  sum[0] = 1;
  const convolve = (term: [number, number][]) => {
    const next = new Float64Array(BINS + 1);
    for (let a = 0; a <= BINS; a++) {
      const pa = sum[a]!;
      if (pa === 0) continue;
      for (const [b, pb] of term) next[Math.min(BINS, a + b)]! += pa * pb;
    }
    sum = next;
  };
  const staircases = evidence.filter((e) => e.nullValues?.length);
  for (const e of staircases) convolve(staircaseTerm(e.nullValues!, bin));
  // The uniform terms' sum is χ² with 2j degrees of freedom: one term, whatever j.
  const uniforms = evidence.length - staircases.length;
  if (uniforms > 0) convolve(chiSquareTerm(uniforms, width));
  return Math.min(1, sum[BINS]!);
}

/** A staircase null's −2 ln P over bins: each step's mass at its value. */
function staircaseTerm(values: readonly number[], bin: (v: number) => number): [number, number][] {
  const masses = new Map<number, number>();
  let before = 0;
  for (const raw of values) {
    const u = Math.min(1, raw);
    if (u > before) masses.set(bin(-2 * Math.log(u)), (masses.get(bin(-2 * Math.log(u))) ?? 0) + u - before);
    before = Math.max(before, u);
  }
  if (before < 1) masses.set(0, (masses.get(0) ?? 0) + 1 - before);
  return [...masses];
}

/** The sum of `terms` uniforms' −2 ln U (χ² with 2·terms degrees of freedom) over bins ((b − 1)w, bw], the rest capped. */
function chiSquareTerm(terms: number, width: number): [number, number][] {
  // Its survival at x, e^{−x/2} Σ_{i<terms} (x/2)^i / i!, in closed form.
  const survival = (x: number) => {
    let term = Math.exp(-x / 2);
    let total = term;
    for (let i = 1; i < terms; i++) {
      term *= x / 2 / i;
      total += term;
    }
    return total;
  };
  const out: [number, number][] = [];
  let previous = 1;
  for (let b = 1; b < BINS; b++) {
    const s = survival(b * width);
    out.push([b, previous - s]);
    previous = s;
  }
  out.push([BINS, previous]);
  return out;
}
