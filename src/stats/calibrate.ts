/**
 * Tuning a two-parameter family of sequential designs until its exact error rates sit at or just under α and β.
 * u0 moves the FAIL boundary (raising it makes FAILs rarer: α falls, β rises), u1 the PASS boundary (the reverse).
 */
import { alphaOf, betaOf, type SequentialDesign } from './sequential-design.js';

export interface Multipliers {
  u0: number;
  u1: number;
}

export interface ErrorGoal {
  alpha: number;
  beta: number;
}

/** How far from its start a multiplier may move, and how finely it is placed (log scale). */
const REACH = 50;
const TOLERANCE = 1e-3;

/**
 * The smallest u that meets `ok` (monotone in u), by bisection in a bracket around `near` that widens until it
 * holds the answer; undefined when even near + REACH does not meet it.
 */
function smallestMeeting(near: number, ok: (u: number) => boolean): number | undefined {
  let step = 0.5;
  let [lo, hi] = [near - step, near + step];
  while (!ok(hi)) {
    if (hi > near + REACH) return undefined;
    [lo, hi] = [hi, hi + (step *= 2)];
  }
  step = 0.5;
  while (ok(lo)) {
    if (lo < near - REACH) return lo;
    [hi, lo] = [lo, lo - (step *= 2)];
  }
  while (hi - lo > TOLERANCE) {
    const mid = (lo + hi) / 2;
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Nested bisection from `start`: for each u1 the smallest u0 that holds α, and the smallest u1 whose design then
 * holds β. (Alternating the two searches zig-zags slowly down a narrow valley; nesting lands in one pass.)
 * Undefined when the family cannot hold both error rates.
 */
export function calibrate(
  goal: ErrorGoal,
  make: (u: Multipliers) => SequentialDesign,
  start: Multipliers,
): { design: SequentialDesign; start: Multipliers } | undefined {
  let u0 = start.u0;
  // The last design that held both, with its multipliers: what is returned, never one rebuilt afterwards.
  let held: { design: SequentialDesign; start: Multipliers } | undefined;
  const holdAlpha = (u1: number): number | undefined => {
    const found = smallestMeeting(u0, (u) => alphaOf(make({ u0: u, u1 })) <= goal.alpha);
    if (found !== undefined) u0 = found;
    return found;
  };
  const u1 = smallestMeeting(start.u1, (u) => {
    const v0 = holdAlpha(u);
    if (v0 === undefined) return false;
    const design = make({ u0: v0, u1: u });
    if (betaOf(design) > goal.beta) return false;
    held = { design, start: { u0: v0, u1: u } };
    return true;
  });
  return u1 === undefined ? undefined : held;
}
