/**
 * The exact distribution of where a stopped run of Bernoulli trials ends. A case run under a sequential design ends
 * at (trials, passes) with probability paths(n, s) · p^s · (1 − p)^(n − s), where paths(n, s) counts the pass/fail
 * orders that reach (n, s) without meeting a boundary earlier: the design fixes which ends are possible and how
 * many orders lead to each, and p only weighs them. A fixed number of trials is the design that never stops early.
 */
import { stateAt, type SequentialDesign } from './sequential-design.js';
import { logAdd } from './log-space.js';

/** One outcome a stopped run can end in, with log paths(n, s). */
export interface StoppedEnd {
  trials: number;
  passes: number;
  logPaths: number;
}

/** n trials, no stopping before: the design whose every path ends at n. */
export function fixedTrialsDesign(n: number, p0 = 0.5, p1 = 0.5): SequentialDesign {
  return {
    p0,
    p1,
    minTrials: n,
    maxTrials: n,
    acceptFrom: new Array<number>(n + 1).fill(n + 1),
    rejectUpTo: new Array<number>(n + 1).fill(-1),
  };
}

/**
 * Every end of `d` (decided at a boundary, or open at its last stage), with its log number of paths: the count
 * walked stage by stage in log space, so thousands of trials neither overflow nor drop the rare ends (all passes,
 * all failures) that dominate at rates near 0 or 1.
 */
export function stoppedEnds(d: SequentialDesign): StoppedEnd[] {
  const ends: StoppedEnd[] = [];
  let alive = new Float64Array([0]);
  for (let n = 1; n <= d.maxTrials; n++) {
    const next = new Float64Array(n + 1).fill(Number.NEGATIVE_INFINITY);
    for (let k = 0; k < alive.length; k++) {
      const here = alive[k]!;
      if (here === Number.NEGATIVE_INFINITY) continue;
      next[k] = logAdd(next[k]!, here);
      next[k + 1] = logAdd(next[k + 1]!, here);
    }
    let open = false;
    for (let k = 0; k <= n; k++) {
      if (next[k] === Number.NEGATIVE_INFINITY) continue;
      if (n === d.maxTrials || stateAt(d, n, k) !== 'continue') {
        ends.push({ trials: n, passes: k, logPaths: next[k]! });
        next[k] = Number.NEGATIVE_INFINITY;
      } else open = true;
    }
    if (!open) break;
    alive = next;
  }
  return ends;
}

/** log P(end) when every trial passes at rate p (0 < p < 1). */
export function logEndProbability(e: StoppedEnd, logP: number, logQ: number): number {
  return e.logPaths + e.passes * logP + (e.trials - e.passes) * logQ;
}

/**
 * The ends of "the design, then `added` more trials" (a finished run topped up): each end of the design followed by
 * every count of passes among the added trials, the path counts multiplied by the binomial coefficient.
 */
export function addedEnds(ends: readonly StoppedEnd[], added: number): StoppedEnd[] {
  if (added === 0) return [...ends];
  const logChoose = [0];
  for (let i = 1; i <= added; i++) logChoose.push(logChoose[i - 1]! + Math.log((added - i + 1) / i));
  const merged = new Map<string, StoppedEnd>();
  for (const e of ends) {
    for (let i = 0; i <= added; i++) {
      const key = `${e.trials + added}:${e.passes + i}`;
      const was = merged.get(key);
      const logPaths = e.logPaths + logChoose[i]!;
      merged.set(key, { trials: e.trials + added, passes: e.passes + i, logPaths: was ? logAdd(was.logPaths, logPaths) : logPaths });
    }
  }
  return [...merged.values()];
}
