/**
 * What is left of a run, in time and money, for progress. Pure: the durations, counts and elapsed time come in.
 *
 * The time is the pool's pace at its current limit (Little's law: `limit` trials in flight, each taking the typical
 * duration, finish limit / duration trials a second) applied to the trials expected to remain, not to the planned
 * maximum: a sequential design stops most cases well before it.
 */

/** Wall times read: the most recent, so a change of pace (a cut, a slower provider hour) shows soon. */
export const ETA_WINDOW = 100;
/** Wall times above this many medians count as this many medians: a stuck trial moves the pace by little. */
export const CLIP = 3;
/** Finished trials before any ETA is given. */
export const ETA_MIN_FINISHED = 5;

/**
 * The mean trial duration, robustly: each value above `clip` medians counts as `clip` medians. The pace needs the
 * mean (Little's law), not the median: trial durations are right-skewed (a lognormal with a p95 of 2.5 medians has
 * its mean 17% above its median), and a symmetric trimmed mean cuts the long tail that is really there, so it runs
 * short by about a tenth. Clipping at 3 medians (about the 97th percentile of such a lognormal) costs ~2%.
 */
export function clippedMean(xs: readonly number[], clip = CLIP): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  return s.reduce((sum, x) => sum + Math.min(x, clip * m), 0) / s.length;
}

/**
 * Remaining seconds: from the measured trial durations (a clipped mean of recent ones), the limit, and the trials
 * expected to remain (a sequential design's expected remaining, not its maximum); undefined before enough trials
 * finished. When the limit moves (AdaptiveLimit), pass its time average over the last two minutes (`meanLimit`):
 * it swings ±15% around a provider's limit, and the pool holds the average.
 */
export function etaSeconds(o: {
  finishedWallMs: readonly number[];
  remainingTrials: number;
  limit: number;
  elapsedMs: number;
  finished: number;
}): number | undefined {
  if (o.remainingTrials <= 0) return 0;
  if (o.finished < ETA_MIN_FINISHED || o.finishedWallMs.length < ETA_MIN_FINISHED || o.limit < 1) return undefined;
  const typical = clippedMean(o.finishedWallMs.slice(-ETA_WINDOW));
  // Early on only the fast trials have finished, so the durations seen are short of the truth: wait until the run
  // has lasted two typical trials, by when most of the first wave is in.
  if (o.elapsedMs < 2 * typical) return undefined;
  // Fewer remaining than the limit still take a trial's time: they run side by side, each about half done on average.
  const ms = typical * Math.max(o.remainingTrials / o.limit, 0.5);
  return ms / 1000;
}

/** The running cost and its projection to the end: the mean cost of a finished trial times the trials expected to remain. */
export function costProjection(o: {
  spentUsd: number;
  finished: number;
  remainingTrials: number;
}): { spentUsd: number; projectedUsd: number } | undefined {
  if (o.finished < 1 || !Number.isFinite(o.spentUsd) || o.spentUsd < 0) return undefined;
  return { spentUsd: o.spentUsd, projectedUsd: o.spentUsd + (o.spentUsd / o.finished) * Math.max(0, o.remainingTrials) };
}
