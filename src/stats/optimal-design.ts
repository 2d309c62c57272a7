/**
 * The truncated sequential design that always decides, found by backward induction: for a maximum N it minimises
 * a weighted sum of expected trials at a few true rates plus λ0·P(FAIL | p0) + λ1·P(PASS | p1) over every
 * stopping rule that decides by N (the Bayes-optimal truncated test), then tunes λ0, λ1 until the exact error
 * rates sit at or just under α and β. A Lagrangian search over boundaries is the standard solution of the
 * modified Kiefer–Weiss problem; no library provides it for the binomial, hence by hand.
 */
import { calibrate, type Multipliers } from './calibrate.js';
import { endWhereDecided, worstExpectedTrials, type SequentialDesign } from './sequential-design.js';

export interface DesignGoal {
  p0: number;
  p1: number;
  alpha: number;
  beta: number;
  minTrials: number;
}

/** Where expected trials are costed: weight per true rate. */
export interface CostPoint {
  p: number;
  weight: number;
}

/** The likelihood ratios the induction needs, per (n, k), computed once per maximum. */
interface Lattice {
  /** The maximum: stages 0..n. */
  n: number;
  /** Per (n, k): the likelihood ratio at p0 and at p1, and the cost of one more trial, all against pRef. */
  rho0: Float64Array;
  rho1: Float64Array;
  cost: Float64Array;
  pRef: number;
}

/** Index of (n, k) in the flat arrays: stage n starts at n(n+1)/2. */
const at = (n: number, k: number) => (n * (n + 1)) / 2 + k;

/** p^k (1−p)^(n−k) over the reference rate's, safe at p = 1 (no fails allowed) and p = 0. */
function ratio(p: number, pRef: number, n: number, k: number): number {
  const passes = k === 0 ? 0 : k * Math.log(p / pRef);
  const fails = n - k === 0 ? 0 : (n - k) * Math.log((1 - p) / (1 - pRef));
  return Math.exp(passes + fails);
}

function lattice(goal: DesignGoal, maxTrials: number, points: readonly CostPoint[]): Lattice {
  const size = at(maxTrials + 1, 0);
  const pRef = (goal.p0 + goal.p1) / 2;
  const l: Lattice = { n: maxTrials, rho0: new Float64Array(size), rho1: new Float64Array(size), cost: new Float64Array(size), pRef };
  for (let n = 0; n <= maxTrials; n++) {
    for (let k = 0; k <= n; k++) {
      const i = at(n, k);
      l.rho0[i] = ratio(goal.p0, pRef, n, k);
      l.rho1[i] = ratio(goal.p1, pRef, n, k);
      let c = 0;
      for (const pt of points) c += pt.weight * ratio(pt.p, pRef, n, k);
      l.cost[i] = c;
    }
  }
  return l;
}

/** Backward induction for given λ0, λ1: the optimal action at every (n, k), read off as boundaries on k. */
function induce(goal: DesignGoal, l: Lattice, lambda0: number, lambda1: number): SequentialDesign {
  const N = l.n;
  const acceptFrom = new Array<number>(N + 1).fill(0);
  const rejectUpTo = new Array<number>(N + 1).fill(-1);
  acceptFrom[0] = 1;
  let risk = new Float64Array(N + 2);
  for (let n = N; n >= 0; n--) {
    const here = new Float64Array(n + 1);
    // action: 1 accept, −1 reject, 0 continue
    const action = new Int8Array(n + 1);
    for (let k = 0; k <= n; k++) {
      const i = at(n, k);
      const fail = lambda0 * l.rho0[i]!;
      const pass = lambda1 * l.rho1[i]!;
      const stop = Math.min(fail, pass);
      const go = n === N ? Number.POSITIVE_INFINITY : l.cost[i]! + l.pRef * risk[k + 1]! + (1 - l.pRef) * risk[k]!;
      if (n >= goal.minTrials && n > 0 && stop <= go) {
        here[k] = stop;
        action[k] = fail <= pass ? -1 : 1;
      } else here[k] = go;
    }
    let reject = -1;
    while (reject + 1 <= n && action[reject + 1] === -1) reject++;
    let accept = n + 1;
    while (accept - 1 > reject && action[accept - 1] === 1) accept--;
    rejectUpTo[n] = reject;
    acceptFrom[n] = accept;
    risk = here;
  }
  return endWhereDecided({ p0: goal.p0, p1: goal.p1, minTrials: goal.minTrials, maxTrials: N, acceptFrom, rejectUpTo });
}

export interface InducedDesign {
  design: SequentialDesign;
  /** The Lagrange multipliers on log scale, to warm-start the search at the next maximum. */
  start: Multipliers;
}

/**
 * The Bayes-optimal design with maximum N whose exact α and β are at or under the goal's, or undefined when no
 * design that decides by N can hold both.
 */
export function inducedDesign(
  goal: DesignGoal,
  maxTrials: number,
  points: readonly CostPoint[],
  start?: Multipliers,
): InducedDesign | undefined {
  const l = lattice(goal, maxTrials, points);
  const initial = start ?? { u0: Math.log(10 * maxTrials), u1: Math.log(10 * maxTrials) };
  return calibrate(goal, (u) => induce(goal, l, Math.exp(u.u0), Math.exp(u.u1)), initial);
}

/**
 * Where the design costs expected trials: half the weight midway between p1 and p0, where a sequential test is
 * slowest (the Kiefer–Weiss problem), the rest spread over p1, p0 and one rate beyond each (p1 − 2δ and p0 + δ/2,
 * kept inside (0, 1)), so that clear cases still stop about as early as under Wald's test.
 */
export function costPoints(goal: Pick<DesignGoal, 'p0' | 'p1'>): CostPoint[] {
  const delta = goal.p0 - goal.p1;
  const rates = [
    Math.max(goal.p1 - 2 * delta, goal.p1 / 2),
    goal.p1,
    (goal.p0 + goal.p1) / 2,
    goal.p0,
    Math.min(goal.p0 + delta / 2, (1 + goal.p0) / 2),
  ];
  return rates.map((p, i) => ({ p, weight: i === 2 ? 0.5 : 0.125 }));
}

/** How far above the equal-error fixed N the search for the maximum goes, and how close to the best it settles. */
const SEARCH_FACTOR = 1.5;
const SETTLE_WITHIN = 1.01;

const chosen = new Map<string, SequentialDesign>();

/**
 * The default design: among maxima from a little under the equal-error fixed N to 1.5 times it, the smallest whose
 * worst-case expected trials (over true rates between p1 and p0) is within 1% of the best found. Larger maxima buy
 * little and make the rare long path longer. Deterministic, so a run's design can always be rebuilt; memoised.
 */
export function optimalDesign(goal: DesignGoal, fixedN: number): SequentialDesign {
  const key = JSON.stringify([goal.p0, goal.p1, goal.alpha, goal.beta, goal.minTrials, fixedN]);
  const known = chosen.get(key);
  if (known) return known;
  const points = costPoints(goal);
  const lo = Math.max(goal.minTrials, 1, Math.floor(0.9 * fixedN));
  const hi = Math.max(lo, Math.ceil(SEARCH_FACTOR * fixedN));
  // About 25 maxima for small designs, 10 for large ones (each costs time growing as the maximum squared).
  const step = Math.max(1, Math.round(fixedN / (fixedN > 200 ? 10 : 25)));
  // The grid, and the fixed N itself: a design deciding by fixedN holds both error rates (the fixed test does).
  const maxima = [
    ...new Set([...Array.from({ length: Math.floor((hi - lo) / step) + 1 }, (_, i) => lo + i * step), Math.max(lo, fixedN)]),
  ].sort((a, b) => a - b);
  const found: { design: SequentialDesign; worst: number }[] = [];
  let start: Multipliers | undefined;
  for (const n of maxima) {
    const induced = inducedDesign(goal, n, points, start);
    if (!induced) continue;
    start = induced.start;
    found.push({ design: induced.design, worst: worstExpectedTrials(induced.design).expectedTrials });
  }
  if (found.length === 0)
    throw new RangeError(
      `no sequential design holds α ${goal.alpha} and β ${goal.beta} for ${goal.p0} against ${goal.p1} within ${hi} trials`,
    );
  const best = Math.min(...found.map((f) => f.worst));
  const design = found.find((f) => f.worst <= SETTLE_WITHIN * best)!.design;
  chosen.set(key, design);
  return design;
}
