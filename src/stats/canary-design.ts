/**
 * A sequential canary against a stored base run: the candidate keeps sampling a case until its drop from the base
 * is shown (REGRESSED), a drop of the margin is ruled out (UNCHANGED), or it reaches its cap. The base has already
 * ended, at a known end of its own known stopping rule, so the candidate's boundaries are drawn for that end; their
 * level is calibrated over every end the base could have had, so that under no change (one unknown rate π for both
 * runs) the chance of a REGRESSED is at most α whatever π is:
 *
 *   sup over π of  Σ over base ends e  P_π(e) · P_π(the candidate's pooled z against e reaches c by the cap)
 *
 * computed exactly by dynamic programming over the candidate's passes, for each base end. The UNCHANGED boundary
 * only stops sampling: it is left out of the level (non-binding), so stopping there never adds a false alarm.
 */
import { designOperating, type SequentialDesign } from './sequential-design.js';
import { logEndProbability, stoppedEnds, type StoppedEnd } from './stopped-binomial.js';
import { stagewiseUpper } from './stagewise.js';
import { supremumOverRate } from './rate-supremum.js';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

export interface CanaryParams {
  /** The chance of a REGRESSED under no change, for this case (already corrected across the suite's cases). */
  alpha: number;
  /** The drop UNCHANGED rules out. */
  margin: number;
  /**
   * One-sided confidence of the candidate's exact stagewise lower bound on its rate, the one the comparison reports
   * (with the base's upper bound at the same level, the difference's interval at the comparison's confidence).
   */
  futilityLevel: number;
  /** No decision before this many candidate trials. */
  minTrials: number;
  /** The candidate's cap. */
  maxTrials: number;
  /**
   * The last trial at which a REGRESSED is looked for, the cap its critical z is calibrated for (default maxTrials);
   * the trials after it only look for UNCHANGED, which adds no false alarm, so the level stays the calibrated one.
   */
  regressionCap?: number;
}

/** The base run's case: every end its rule allows (with log path counts), and the one it stopped at. */
export interface BaseEnds {
  ends: readonly StoppedEnd[];
  observed: { trials: number; passes: number };
}

/**
 * Candidate trials a case needs for UNCHANGED under no change, at `rate` against a fixed base of `baseTrials`, with
 * chance `power` (normal approximation): the row rules out the margin when the candidate's lower bound less the
 * base's upper bound (each one-sided at `futilityLevel`) is above −margin, so the margin must hold both half-widths
 * and `power`'s quantile of the two runs' joint noise: z_f (σ_b + σ_c) + z_π √(σ_b² + σ_c²) ≤ margin. Infinity
 * where no candidate can (the base's own half-width and noise take the margin).
 */
export function unchangedTrials(rate: number, baseTrials: number, margin: number, futilityLevel: number, power: number): number {
  const [zf, zp] = [normalQuantile(futilityLevel, 0, 1), normalQuantile(power, 0, 1)];
  const variance = rate * (1 - rate);
  const sb = Math.sqrt(variance / baseTrials);
  const room = (sc: number) => margin - zf * (sb + sc) - zp * Math.hypot(sb, sc);
  if (room(0) <= 0) return Number.POSITIVE_INFINITY;
  // room rises as σ_c falls: the largest σ_c that fits, by bisection, gives the fewest trials.
  let [lo, hi] = [0, Math.max(Math.sqrt(variance), 1e-6)];
  if (room(hi) >= 0) return 1;
  for (let i = 0; i < 60; i++) [lo, hi] = room((lo + hi) / 2) >= 0 ? [(lo + hi) / 2, hi] : [lo, (lo + hi) / 2];
  return Math.max(1, Math.ceil(variance / lo ** 2));
}

/**
 * A fixed base large enough that a case at any rate (the worst variance, ½) can be ruled UNCHANGED with chance
 * `power` by a candidate of `candidateOverBase` times the base's trials: z_f σ (1 + 1/√r) + z_π σ √(1 + 1/r) = margin.
 */
export function unchangedBaseTrials(margin: number, futilityLevel: number, power: number, candidateOverBase: number): number {
  const [zf, zp] = [normalQuantile(futilityLevel, 0, 1), normalQuantile(power, 0, 1)];
  const r = candidateOverBase;
  const sigma = margin / (zf * (1 + 1 / Math.sqrt(r)) + zp * Math.sqrt(1 + 1 / r));
  return Math.ceil(0.25 / sigma ** 2);
}

/** The pooled z of a drop from the base's rate to the candidate's: positive when the candidate is lower. */
export function dropZ(basePasses: number, baseTrials: number, passes: number, trials: number): number {
  const pooled = (basePasses + passes) / (baseTrials + trials);
  if (pooled <= 0 || pooled >= 1) return 0;
  return (basePasses / baseTrials - passes / trials) / Math.sqrt(pooled * (1 - pooled) * (1 / baseTrials + 1 / trials));
}

/**
 * The z a stage must reach: c at the cap, higher before it as the information falls (Wang and Tsiatis' shape with
 * Δ = SHAPE: between O'Brien and Fleming's 0, which keeps nearly all of a fixed test's power at the cap, and
 * Pocock's ½, which stops soonest).
 */
const SHAPE = 0.25;
/** How much higher than the cap's critical z stage m's must be. */
const stageFactor = (baseTrials: number, m: number, maxTrials: number) =>
  ((1 / baseTrials + 1 / m) / (1 / baseTrials + 1 / maxTrials)) ** (0.5 - SHAPE);

/** Most candidate passes at each stage that reach the stage's z against a base end; −1 where none can (and before minTrials). */
export function regressedUpTo(
  base: { trials: number; passes: number },
  c: number,
  p: Pick<CanaryParams, 'minTrials' | 'maxTrials' | 'regressionCap'>,
): number[] {
  const out = new Array<number>(p.maxTrials + 1).fill(-1);
  const last = Math.min(p.regressionCap ?? p.maxTrials, p.maxTrials);
  for (let m = Math.max(1, p.minTrials); m <= last; m++) {
    const needed = c * stageFactor(base.trials, m, last);
    let j = -1;
    while (j + 1 <= m && dropZ(base.passes, base.trials, j + 1, m) >= needed) j++;
    out[m] = j;
  }
  return out;
}

/**
 * How the UNCHANGED boundary spends its error over the stages: by stage m at most tail · (m / maxTrials)^ρ. Under
 * the stagewise ordering every earlier UNCHANGED counts against a later one's bound, so a boundary that spent its
 * whole error at the first stages could never stop later. ρ = 2 is the middle way, measured exactly against a
 * base of 167 of 186 at a margin of 0.15: ρ 1, 2, 3 take 108, 114, 121 expected trials and leave 4.4, 3.2, 2.5% undecided.
 */
const FUTILITY_SPENDING = 2;

/**
 * Fewest candidate passes at each stage at which the candidate's exact stagewise lower bound (one-sided, at
 * `futilityLevel`) on its rate is above `floor` (the base's upper bound less the margin): the bound the comparison
 * reports, so that the canary stops at UNCHANGED only where its row says UNCHANGED. Under the stagewise ordering an
 * UNCHANGED at stage m with j passes ranks below every earlier one and above every other outcome of stage m with
 * fewer passes, so its bound is above `floor` when P_floor(an earlier UNCHANGED, or j passes or more at stage m) is
 * below the tail: one walk at the rate `floor`, spending the tail over the stages, settles every stage in turn.
 * n + 1 where none can.
 */
export function unchangedFrom(
  floor: number,
  rejectUpTo: readonly number[],
  p: Pick<CanaryParams, 'futilityLevel' | 'minTrials' | 'maxTrials'>,
): number[] {
  const out = rejectUpTo.map((r, m) => Math.max(m + 1, r + 1));
  if (floor >= 1) return out;
  // Every bound is at least 0: below a floor under 0 every stage from the minimum on rules the drop out.
  if (floor < 0) return out.map((a, m) => (m >= p.minTrials ? rejectUpTo[m]! + 1 : a));
  const tail = 1 - p.futilityLevel;
  let alive = [1];
  let accepted = 0;
  for (let m = 1; m <= p.maxTrials; m++) {
    const next = new Array<number>(m + 1).fill(0);
    alive.forEach((mass, k) => {
      next[k + 1]! += mass * floor;
      next[k]! += mass * (1 - floor);
    });
    if (m >= p.minTrials) {
      // Strictly below the tail at the cap, so the bound is strictly above the floor.
      const budget = tail * (m / p.maxTrials) ** FUTILITY_SPENDING * (1 - 1e-9);
      let [j, above] = [m + 1, accepted];
      while (j > 0 && above + next[j - 1]! <= budget) above += next[--j]!;
      out[m] = Math.max(j, rejectUpTo[m]! + 1);
      for (let k = out[m]!; k <= m; k++) {
        accepted += next[k]!;
        next[k] = 0;
      }
    }
    for (let k = 0; k <= Math.min(m, rejectUpTo[m]!); k++) next[k] = 0;
    alive = next;
  }
  return out;
}

/** A base end and its upper bound on its rate (as the comparison reports it): what the candidate's UNCHANGED is drawn against. */
export interface BoundedBase {
  trials: number;
  passes: number;
  upper: number;
}

/** The candidate's design against one base end, at critical z `c`: its boundaries walked like any other design's. */
export function canaryDesign(base: BoundedBase, c: number, p: Omit<CanaryParams, 'alpha'>): SequentialDesign {
  const rejectUpTo = regressedUpTo(base, c, p);
  const acceptFrom = unchangedFrom(base.upper - p.margin, rejectUpTo, p);
  const rate = base.passes / base.trials;
  return { p0: rate, p1: Math.max(0, rate - p.margin), minTrials: p.minTrials, maxTrials: p.maxTrials, acceptFrom, rejectUpTo };
}

const NEGLIGIBLE = 1e-13;

/** P(a path of `maxTrials` trials at rate q reaches passes ≤ upTo[m] at some stage m). */
function reachProbability(upTo: readonly number[], q: number, maxTrials: number): number {
  // One array updated in place from the top down: alive[j] is the chance of j passes so far, never yet reached.
  const alive = new Float64Array(maxTrials + 1);
  alive[0] = 1;
  let [hit, low] = [0, 0];
  for (let m = 1; m <= maxTrials; m++) {
    for (let j = m; j > low; j--) alive[j] = alive[j]! * (1 - q) + alive[j - 1]! * q;
    alive[low] = alive[low]! * (1 - q);
    for (let j = low; j <= upTo[m]!; j++) {
      hit += alive[j]!;
      alive[j] = 0;
    }
    // Below the boundary every state is empty: the walk starts above it.
    low = Math.max(low, upTo[m]! + 1);
  }
  return hit;
}

/** The base ends that can lead to a REGRESSED at critical z `c`, each with its boundary. */
function reachableEnds(base: BaseEnds, c: number, p: Pick<CanaryParams, 'minTrials' | 'maxTrials'>) {
  return base.ends.map((e) => ({ e, upTo: regressedUpTo(e, c, p) })).filter((x) => x.upTo.some((j) => j >= 0));
}

/** log P_π(REGRESSED at critical z c) under no change, π = sin²θ: the base end weighed by its own rule. */
function logFalseAlarm(ends: ReturnType<typeof reachableEnds>, maxTrials: number, theta: number): number {
  // The search may touch the ends of the range, where log 0 would turn 0 · log 0 into NaN.
  const q = Math.min(Math.max(Math.sin(theta) ** 2, 1e-300), 1 - 1e-16);
  const [logP, logQ] = [Math.log(q), Math.log(1 - q)];
  let mass = 0;
  for (const { e, upTo } of ends) {
    const weight = Math.exp(logEndProbability(e, logP, logQ));
    // A base end this unlikely at this rate moves no false-alarm rate anyone reads (they are shown to 3 digits).
    if (weight > NEGLIGIBLE) mass += weight * reachProbability(upTo, q, maxTrials);
  }
  return Math.log(mass);
}

/**
 * Rates the supremum scans before refining its peaks: the false-alarm rate is a smooth function of the rate (a sum
 * of polynomials), and each point costs a pass over every base end.
 */
const CANARY_GRID = 64;

/** The exact false-alarm rate of critical z `c`: the supremum over the common rate. */
export function canaryFalseAlarm(base: BaseEnds, c: number, p: Pick<CanaryParams, 'minTrials' | 'maxTrials'>): number {
  const ends = reachableEnds(base, c, p);
  return ends.length === 0 ? 0 : supremumOverRate((theta) => logFalseAlarm(ends, p.maxTrials, theta), CANARY_GRID);
}

/** Halvings of the search for the critical z from [0, 12] on a coarse grid of rates, then with the exact supremum. */
const COARSE_BISECTIONS = 12;
const COARSE_GRID = 16;
const EXACT_BISECTIONS = 6;
const HIGHEST_Z = 12;

/**
 * The smallest critical z whose exact false-alarm rate is at most α, by bisection (the rate only falls as z rises,
 * and at HIGHEST_Z no path reaches it). Memoised per base rule and parameters: a suite's cases share them.
 */
const criticals = new Map<string, number>();
export function canaryCritical(base: BaseEnds, p: Pick<CanaryParams, 'alpha' | 'minTrials' | 'maxTrials'>): number {
  const key = `${base.ends.map((e) => `${e.trials}:${e.passes}:${e.logPaths.toFixed(9)}`).join(',')}|${p.alpha}|${p.minTrials}|${p.maxTrials}`;
  const known = criticals.get(key);
  if (known !== undefined) return known;
  // A coarse grid can only miss the peak, never exceed it: its answer is a lower bound on the critical z.
  const coarse = (c: number) => {
    const ends = reachableEnds(base, c, p);
    let best = 0;
    for (let g = 0; g < COARSE_GRID; g++)
      best = Math.max(best, Math.exp(logFalseAlarm(ends, p.maxTrials, ((g + 0.5) * Math.PI) / 2 / COARSE_GRID)));
    return best;
  };
  const bisect = (lo: number, hi: number, times: number, rate: (c: number) => number) => {
    for (let i = 0; i < times; i++) {
      const mid = (lo + hi) / 2;
      if (rate(mid) <= p.alpha) hi = mid;
      else lo = mid;
    }
    return [lo, hi] as const;
  };
  const exact = (c: number) => canaryFalseAlarm(base, c, p);
  const [below] = bisect(0, HIGHEST_Z, COARSE_BISECTIONS, coarse);
  // Widen the bracket upward until the exact rate holds at its top, then close it with the exact rate.
  let top = below + 0.05;
  while (top < HIGHEST_Z && exact(top) > p.alpha) top = Math.min(HIGHEST_Z, below + 2 * (top - below));
  const [, c] = bisect(below, top, EXACT_BISECTIONS, exact);
  criticals.set(key, c);
  return c;
}

/**
 * The largest critical z the candidate's trials would have reached: at each stage from minTrials on, its pooled z
 * over that stage's factor, so that the path crossed the boundary of critical z c exactly when this is at least c.
 */
export function largestCritical(
  base: { trials: number; passes: number },
  sequence: readonly boolean[],
  p: Pick<CanaryParams, 'minTrials' | 'maxTrials' | 'regressionCap'>,
): number {
  const last = Math.min(p.regressionCap ?? p.maxTrials, p.maxTrials);
  let [passes, best] = [0, Number.NEGATIVE_INFINITY];
  sequence.forEach((passed, i) => {
    if (passed) passes++;
    const m = i + 1;
    if (m >= p.minTrials && m <= last)
      best = Math.max(best, dropZ(base.passes, base.trials, passes, m) / stageFactor(base.trials, m, last));
  });
  return best;
}

/**
 * The canary's one-sided p-value: the exact chance, under no change, that the candidate would have crossed the
 * boundary of the observed largest critical z by the cap. Sampling stopped earlier, at UNCHANGED or when the run
 * stopped, only lowers that largest value, so the p-value stays valid however the candidate stopped; it is at or
 * below α exactly when the trials crossed the run's own boundary.
 */
export function canaryPValue(base: BaseEnds, reached: number, p: Pick<CanaryParams, 'minTrials' | 'maxTrials' | 'regressionCap'>): number {
  const looks = { minTrials: p.minTrials, maxTrials: Math.min(p.regressionCap ?? p.maxTrials, p.maxTrials) };
  return reached === Number.NEGATIVE_INFINITY ? 1 : canaryFalseAlarm(base, reached, looks);
}

export interface CanaryOperating {
  /** P(REGRESSED). */
  regressed: number;
  unchanged: number;
  undecided: number;
  /** Expected candidate trials. */
  expectedTrials: number;
}

/**
 * Every end of the base's stopping rule with its exact stagewise upper bound at two-sided `level` (the bound the
 * comparison reports for a base stopped by its rule). Each bound is solved when first read: a calibration reads
 * none, and an operating characteristic only those of the ends its rate can reach (a base of 447 has 448 ends, and
 * solving them all took most of `plan --compare`'s time).
 */
export function boundedEnds(design: SequentialDesign, level: number): (StoppedEnd & BoundedBase)[] {
  return stoppedEnds(design).map((e) => {
    let upper: number | undefined;
    return {
      ...e,
      get upper() {
        return (upper ??= stagewiseUpper(design, e.trials, e.passes, level));
      },
    };
  });
}

/** Exact operating characteristics when the base's rate is `baseRate` and the candidate's `rate`, at critical z c. */
export function canaryOperating(
  base: readonly (StoppedEnd & BoundedBase)[],
  baseRate: number,
  rate: number,
  c: number,
  p: Omit<CanaryParams, 'alpha'>,
): CanaryOperating {
  const [logP, logQ] = [Math.log(baseRate), Math.log(1 - baseRate)];
  const out = { regressed: 0, unchanged: 0, undecided: 0, expectedTrials: 0 };
  for (const e of base) {
    const w =
      baseRate <= 0
        ? e.passes === 0
          ? Math.exp(e.logPaths)
          : 0
        : baseRate >= 1
          ? e.passes === e.trials
            ? Math.exp(e.logPaths)
            : 0
          : Math.exp(logEndProbability(e, logP, logQ));
    // As in the false-alarm rate: an end this unlikely moves no figure anyone reads.
    if (w <= NEGLIGIBLE) continue;
    const o = designOperating(canaryDesign(e, c, p), rate);
    out.regressed += w * o.reject;
    out.unchanged += w * o.accept;
    out.undecided += w * o.undecided;
    out.expectedTrials += w * o.expectedTrials;
  }
  return out;
}
