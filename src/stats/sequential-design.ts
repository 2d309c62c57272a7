/**
 * A sequential design for one case's pass rate, as boundaries on the number of passes: after n scored trials with
 * k passes, the case PASSes when k ≥ acceptFrom[n], FAILs when k ≤ rejectUpTo[n], and goes on otherwise. Every
 * test this harness runs (Wald's SPRT, the optimal truncated design, the candidates it was chosen over) has this
 * shape, so one decision walk, one exact operating characteristic and one stagewise interval serve them all.
 */

export type SequentialState = 'accept' | 'reject' | 'continue';

export interface SequentialDesign {
  /** p0: the rate the case must reach; p1 < p0 the rate it must be told apart from. */
  p0: number;
  p1: number;
  /** No decision before this many scored trials. */
  minTrials: number;
  /** The last stage: the arrays have maxTrials + 1 entries (index 0 is never a decision). */
  maxTrials: number;
  /** Fewest passes among n scored trials that PASS the case; n + 1 where none can. */
  acceptFrom: number[];
  /** Most passes among n scored trials that FAIL it; −1 where none can. */
  rejectUpTo: number[];
}

export interface SequentialDecision {
  state: SequentialState;
  /** Scored trials consumed when the decision was made (or all of them, up to maxTrials, while continuing). */
  trials: number;
  passes: number;
}

/** The state after n scored trials with k passes (before minTrials: always continue). */
export function stateAt(d: SequentialDesign, n: number, k: number): SequentialState {
  if (n < d.minTrials || n > d.maxTrials) return 'continue';
  if (k >= d.acceptFrom[n]!) return 'accept';
  if (k <= d.rejectUpTo[n]!) return 'reject';
  return 'continue';
}

/** Runs the design over scored outcomes in trial order; stops at the first boundary reached. */
export function decideSequential(outcomes: readonly boolean[], d: SequentialDesign): SequentialDecision {
  let passes = 0;
  const last = Math.min(outcomes.length, d.maxTrials);
  for (let n = 1; n <= last; n++) {
    if (outcomes[n - 1]) passes++;
    const state = stateAt(d, n, passes);
    if (state !== 'continue') return { state, trials: n, passes };
  }
  return { state: 'continue', trials: last, passes };
}

/** True when every path is decided by the last stage: the boundaries meet there. */
export function alwaysDecides(d: SequentialDesign): boolean {
  return d.acceptFrom[d.maxTrials]! <= d.rejectUpTo[d.maxTrials]! + 1;
}

/** The design stopped at `cap` trials (a user's budget): paths still open there end undecided. */
export function truncateDesign(d: SequentialDesign, cap: number): SequentialDesign {
  if (cap >= d.maxTrials) return d;
  return { ...d, maxTrials: cap, acceptFrom: d.acceptFrom.slice(0, cap + 1), rejectUpTo: d.rejectUpTo.slice(0, cap + 1) };
}

/** The design ended at the first stage (from minTrials on) where its boundaries meet: stages after it are never reached. */
export function endWhereDecided(d: SequentialDesign): SequentialDesign {
  for (let n = Math.max(1, d.minTrials); n < d.maxTrials; n++) {
    if (d.acceptFrom[n]! <= d.rejectUpTo[n]! + 1) return truncateDesign(d, n);
  }
  return d;
}

export interface OperatingCharacteristics {
  /** Expected scored trials until a decision (or the last stage). */
  expectedTrials: number;
  accept: number;
  reject: number;
  /** Still open at the last stage: INCONCLUSIVE. */
  undecided: number;
}

/**
 * Exact operating characteristics at true pass rate p, by dynamic programming over the number of passes: no
 * simulation. `from` starts in a state already reached and still open (n scored trials, k passes), so
 * `expectedTrials` is then the expected number of further trials.
 */
export function designOperating(
  d: SequentialDesign,
  p: number,
  from: { trials: number; passes: number } = { trials: 0, passes: 0 },
): OperatingCharacteristics {
  // alive[k - lo]: probability of being open with k passes; the open set is one run of k at every stage.
  let lo = from.passes;
  let alive = [1];
  let accept = 0;
  let reject = 0;
  let expected = 0;
  for (let n = from.trials + 1; n <= d.maxTrials && alive.length; n++) {
    const next = new Array<number>(alive.length + 1).fill(0);
    for (let i = 0; i < alive.length; i++) {
      next[i + 1]! += alive[i]! * p;
      next[i]! += alive[i]! * (1 - p);
    }
    let first = next.length;
    let end = 0;
    for (let i = 0; i < next.length; i++) {
      const state = stateAt(d, n, lo + i);
      if (state === 'continue') {
        first = Math.min(first, i);
        end = i + 1;
        continue;
      }
      const mass = next[i]!;
      if (state === 'accept') accept += mass;
      else reject += mass;
      expected += (n - from.trials) * mass;
    }
    alive = first < end ? next.slice(first, end) : [];
    lo += first < end ? first : 0;
  }
  let undecided = 0;
  for (const mass of alive) undecided += mass;
  expected += Math.max(0, d.maxTrials - from.trials) * undecided;
  return { expectedTrials: expected, accept, reject, undecided };
}

/** Exact α: the chance the design FAILs a case whose rate is p0. */
export const alphaOf = (d: SequentialDesign): number => designOperating(d, d.p0).reject;
/** Exact β: the chance it PASSes a case whose rate is p1. */
export const betaOf = (d: SequentialDesign): number => designOperating(d, d.p1).accept;

/** The design's exact error rates. */
export function exactErrors(d: SequentialDesign): { alpha: number; beta: number } {
  return { alpha: alphaOf(d), beta: betaOf(d) };
}

/** Expected further trials from a reached state, at the worse of p0 and p1: what a progress estimate should plan for. */
export function expectedRemainingTrials(d: SequentialDesign, from: { trials: number; passes: number }): number {
  return Math.max(designOperating(d, d.p0, from).expectedTrials, designOperating(d, d.p1, from).expectedTrials);
}

/**
 * The largest expected number of trials over true rates between p1 and p0 (where a sequential test is slowest),
 * and the rate where it peaks: a grid, then golden-section refinement around the grid's best.
 */
export function worstExpectedTrials(d: SequentialDesign): { p: number; expectedTrials: number } {
  const at = (p: number) => designOperating(d, p).expectedTrials;
  const steps = 20;
  let best = { p: d.p1, expectedTrials: at(d.p1) };
  for (let i = 1; i <= steps; i++) {
    const p = d.p1 + ((d.p0 - d.p1) * i) / steps;
    const e = at(p);
    if (e > best.expectedTrials) best = { p, expectedTrials: e };
  }
  const width = (d.p0 - d.p1) / steps;
  let [a, b] = [Math.max(d.p1, best.p - width), Math.min(d.p0, best.p + width)];
  const g = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 30; i++) {
    const c = b - g * (b - a);
    const e = a + g * (b - a);
    if (at(c) > at(e)) b = e;
    else a = c;
  }
  const p = (a + b) / 2;
  const e = at(p);
  return e > best.expectedTrials ? { p, expectedTrials: e } : best;
}
