/**
 * Two designs with straight boundaries in the (trials, passes) plane that meet, so they always decide: Lorden's
 * 2-SPRT and Whitehead's triangular test. Both are tuned to the exact error rates by the same search as the
 * optimal design; `npm run bench` compares the three (the optimal one is the product's default).
 */
import { calibrate } from './calibrate.js';
import { worstExpectedTrials, type SequentialDesign } from './sequential-design.js';
import type { DesignGoal } from './optimal-design.js';

/** Longest design a line pair may describe before it is taken to never close. */
const LINE_LIMIT = 100_000;

/**
 * Boundaries from a PASS line (fewest passes that pass, real-valued) and a FAIL line (most that fail), up to
 * the first stage where no pass count is left between them; there every count is decided, split at the midline.
 */
export function linesDesign(goal: DesignGoal, passLine: (n: number) => number, failLine: (n: number) => number): SequentialDesign {
  const acceptFrom = [1];
  const rejectUpTo = [-1];
  for (let n = 1; n <= LINE_LIMIT; n++) {
    const [pass, fail] = [passLine(n), failLine(n)];
    let accept = Math.min(n + 1, Math.max(0, Math.ceil(pass)));
    let reject = Math.max(-1, Math.min(n, Math.floor(fail)));
    const closed = reject + 1 >= accept;
    if (closed && n >= goal.minTrials) {
      reject = Math.max(-1, Math.min(n, Math.ceil((pass + fail) / 2) - 1));
      accept = reject + 1;
    } else if (closed) [accept, reject] = [n + 1, -1];
    acceptFrom.push(accept);
    rejectUpTo.push(reject);
    if (closed && n >= goal.minTrials) return { p0: goal.p0, p1: goal.p1, minTrials: goal.minTrials, maxTrials: n, acceptFrom, rejectUpTo };
  }
  throw new RangeError(`boundaries for ${JSON.stringify(goal)} do not meet within ${LINE_LIMIT} trials`);
}

const logit = (p: number) => Math.log(p / (1 - p));

/**
 * Whitehead's triangular test, with the score Z = k − n·p1 and information V = n·p1(1−p1) against p1: PASS when
 * Z ≥ a_u + cV, FAIL when Z ≤ −a_l + 3cV, c = θ/4 for θ = logit(p0) − logit(p1). The intercepts are tuned to
 * the exact α and β. Needs p0 < 1.
 */
export function triangularDesign(goal: DesignGoal): SequentialDesign | undefined {
  const theta = logit(goal.p0) - logit(goal.p1);
  const c = theta / 4;
  const v = goal.p1 * (1 - goal.p1);
  const make = (u: { u0: number; u1: number }) =>
    linesDesign(
      goal,
      (n) => n * goal.p1 + Math.exp(u.u1) + c * n * v,
      (n) => n * goal.p1 - Math.exp(u.u0) + 3 * c * n * v,
    );
  const a = Math.log((2 * Math.log(1 / (goal.alpha + goal.beta))) / theta);
  return calibrate(goal, make, { u0: a, u1: a })?.design;
}

/**
 * Lorden's 2-SPRT: two one-sided SPRTs of an intermediate rate p* against p0 (FAIL when Λ(p*:p0) ≥ a0) and
 * against p1 (PASS when Λ(p*:p1) ≥ a1), tuned to the exact α and β; p* is the one of nine between p1 and p0 with
 * the smallest worst-case expected trials. Needs p0 < 1.
 */
export function twoSprtDesign(goal: DesignGoal): SequentialDesign | undefined {
  let best: { design: SequentialDesign; worst: number } | undefined;
  for (let i = 1; i <= 9; i++) {
    const star = goal.p1 + ((goal.p0 - goal.p1) * i) / 10;
    const [h0, g0] = [Math.log(star / goal.p0), Math.log((1 - star) / (1 - goal.p0))];
    const [h1, g1] = [Math.log(star / goal.p1), Math.log((1 - star) / (1 - goal.p1))];
    const make = (u: { u0: number; u1: number }) =>
      linesDesign(
        goal,
        (n) => (Math.exp(u.u1) - n * g1) / (h1 - g1),
        (n) => (n * g0 - Math.exp(u.u0)) / (g0 - h0),
      );
    const design = calibrate(goal, make, { u0: Math.log(Math.log(1 / goal.alpha)), u1: Math.log(Math.log(1 / goal.beta)) })?.design;
    if (!design) continue;
    const worst = worstExpectedTrials(design).expectedTrials;
    if (!best || worst < best.worst) best = { design, worst };
  }
  return best?.design;
}
