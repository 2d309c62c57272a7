import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, DEFAULT_TRIAL_MS, HARD_CAP, machineLimit, type LimitSignal } from '../src/runner/adaptive-limit.js';
import { clippedMean, costProjection, etaSeconds } from '../src/runner/eta.js';

const GB = 2 ** 30;
const MB = 2 ** 20;
const ok = (at: number, wallMs = 1000): LimitSignal => ({ kind: 'ok', at, wallMs });
const r429 = (at: number, retryAfterMs?: number): LimitSignal => ({ kind: 'rate_limited', at, retryAfterMs });
const r529 = (at: number, retryAfterMs?: number): LimitSignal => ({ kind: 'overloaded', at, retryAfterMs });

/** Feeds signals, each with the pool full unless `inFlight` says otherwise; returns the limit after each. */
function feed(limit: AdaptiveLimit, signals: readonly LimitSignal[], inFlight?: number): number[] {
  return signals.map((s) => {
    limit.observe(s, inFlight ?? limit.current());
    return limit.current();
  });
}

describe('AdaptiveLimit: cut on 429, once per episode', () => {
  it.each<[string, { start: number; min: number; max: number }, LimitSignal[], number[]]>([
    ['a 429 cuts ×0.8, rounded down', { start: 10, min: 1, max: 20 }, [r429(1000)], [8]],
    [
      'a second 429 in the same episode does not cut again',
      { start: 10, min: 1, max: 20 },
      [r429(1000), r429(2000), r429(9000)],
      [8, 8, 8],
    ],
    [
      'a trial started after the cut finishing ends the episode: the next 429 cuts',
      { start: 10, min: 1, max: 20 },
      [ok(500, 10_000), r429(1000), ok(3000, 1500), r429(3500)],
      [11, 8, 8, 6],
    ],
    [
      'a trial started before the cut finishing does not end it',
      { start: 10, min: 1, max: 20 },
      [ok(500, 10_000), r429(1000), ok(3000, 2500), r429(3500)],
      [11, 8, 8, 8],
    ],
    [
      'without such a trial the episode ends one typical duration after the cut',
      { start: 10, min: 1, max: 20 },
      [r429(1000), r429(1000 + DEFAULT_TRIAL_MS - 1), r429(1000 + DEFAULT_TRIAL_MS)],
      [8, 8, 6],
    ],
    ['never below min', { start: 3, min: 2, max: 20 }, [r429(1000), r429(20_000), r429(40_000)], [2, 2, 2]],
    ['min 1 at 1: nothing to cut', { start: 1, min: 1, max: 20 }, [r429(1000)], [1]],
    ['a 529 never cuts', { start: 10, min: 1, max: 20 }, [r529(1000), r529(2000), r529(30_000)], [10, 10, 10]],
  ])('%s', (_, o, signals, after) => {
    expect(feed(new AdaptiveLimit(o), signals)).toEqual(after);
  });

  it('says the cut in words, and keeps it in the trace', () => {
    const l = new AdaptiveLimit({ start: 12, min: 1, max: 20 });
    expect(l.observe(r429(1000), 12)).toEqual({ at: 1000, from: 12, to: 9, why: 'HTTP 429: cut to 9 (×0.8)' });
    expect(l.observe(r429(1500), 12)).toBeUndefined();
    expect(l.observe(r529(1600), 12)).toBeUndefined();
    expect(l.trace.map((c) => c.to)).toEqual([9]);
  });
});

describe('AdaptiveLimit: Retry-After is shared', () => {
  it.each<[string, LimitSignal[], number]>([
    ['none yet', [], 0],
    ['a 429 with Retry-After holds every start until then', [r429(1000, 5000)], 6000],
    ['a 429 without one holds nothing', [r429(1000)], 0],
    ['a 529 with one holds too (without a cut)', [r529(1000, 3000)], 4000],
    ['the latest end wins, an earlier one does not shorten it', [r429(1000, 5000), r529(2000, 1000)], 6000],
    ['a later one extends it', [r429(1000, 5000), r429(3000, 5000)], 8000],
  ])('%s', (_, signals, after) => {
    const l = new AdaptiveLimit({ start: 10, min: 1, max: 20 });
    feed(l, signals);
    expect(l.startsAfter()).toBe(after);
  });
});

describe('AdaptiveLimit: growth only when the pool is used and the provider quiet', () => {
  it.each<[string, { start: number; max: number }, LimitSignal[], number | undefined, number[]]>([
    ['before any 429: a step a success with the pool full', { start: 4, max: 10 }, [ok(1000), ok(2000)], undefined, [5, 6]],
    ['at ≥ 80% used (4 of 5) it counts', { start: 5, max: 10 }, [ok(1000)], 4, [6]],
    ['below 80% used it does not', { start: 5, max: 10 }, [ok(1000), ok(2000)], 3, [5, 5]],
    ['never above max', { start: 9, max: 10 }, [ok(1000), ok(2000), ok(3000)], undefined, [10, 10, 10]],
    ['the step is 5% from 20 up', { start: 40, max: 64 }, [ok(1000)], undefined, [42]],
  ])('%s', (_, o, signals, inFlight, after) => {
    expect(feed(new AdaptiveLimit({ ...o, min: 1 }), signals, inFlight)).toEqual(after);
  });

  it('a 529 pauses growth for two typical trials, then it resumes', () => {
    const l = new AdaptiveLimit({ start: 4, min: 1, max: 10 });
    feed(l, [r529(1000)]);
    expect(feed(l, [ok(2000), ok(1000 + 2 * DEFAULT_TRIAL_MS - 1)])).toEqual([4, 4]);
    expect(feed(l, [ok(1000 + 2 * DEFAULT_TRIAL_MS)])).toEqual([5]);
  });

  it('after a cut: holds, climbs back fast to one below the cut level, waits three rounds there, then probes', () => {
    const l = new AdaptiveLimit({ start: 10, min: 1, max: 20 });
    feed(l, [r429(0)]);
    expect(l.current()).toBe(8);
    // Growth waits half a typical trial after the 429.
    expect(feed(l, [ok(1000), ok(2000)])).toEqual([8, 8]);
    const t = DEFAULT_TRIAL_MS;
    // Below 9 (one below the 10 it was cut from) a step takes ceil(8 / 4) = 2 successes.
    expect(feed(l, [ok(t), ok(t + 1)])).toEqual([8, 9]);
    // At 9 it takes 3 × 9 successes.
    expect(
      feed(
        l,
        Array.from({ length: 26 }, (_, i) => ok(t + 2 + i)),
      ),
    ).toEqual(Array(26).fill(9));
    expect(feed(l, [ok(t + 100)])).toEqual([10]);
    // From 10 on (the provider's room grew?) one round: 10 successes a step.
    expect(
      feed(
        l,
        Array.from({ length: 10 }, (_, i) => ok(t + 200 + i)),
      ).at(-1),
    ).toBe(11);
  });

  it('says the growth in words', () => {
    const l = new AdaptiveLimit({ start: 4, min: 1, max: 10 });
    expect(l.observe(ok(1000), 4)?.why).toBe('grew to 5 (+1: 1 trial finished with the pool ≥ 80% used, no 429 yet)');
  });
});

describe('AdaptiveLimit: bounds', () => {
  it.each<[{ start: number; min: number; max: number }, number]>([
    [{ start: 2, min: 1, max: 8 }, 2],
    [{ start: 20, min: 1, max: 8 }, 8],
    [{ start: 0, min: 1, max: 8 }, 1],
    [{ start: 3, min: 4, max: 8 }, 4],
    [{ start: 5, min: 4, max: 2 }, 4],
    [{ start: 2.7, min: 1, max: 8 }, 2],
  ])('%j starts at %i', (o, current) => {
    expect(new AdaptiveLimit(o).current()).toBe(current);
  });

  it('a lower machine limit, once measured, cuts at once; a higher one lets it grow', () => {
    const l = new AdaptiveLimit({ start: 6, min: 1, max: 8 });
    expect(l.setMax(3, 500)).toEqual({ at: 500, from: 6, to: 3, why: 'machine limit: cut to 3' });
    expect(l.setMax(40, 600)).toBeUndefined();
    expect(feed(l, [ok(1000)])).toEqual([4]);
  });

  it('meanLimit: the time average of the limit over a window', () => {
    const l = new AdaptiveLimit({ start: 10, min: 1, max: 20 });
    feed(l, [r429(1000)]);
    expect(l.meanLimit(3000, 2000)).toBe(8);
    expect(l.meanLimit(3000, 3000)).toBeCloseTo((10 * 1000 + 8 * 2000) / 3000, 9);
    expect(l.meanLimit(500, 500)).toBe(10);
  });

  it('paceLimit: the current limit while it climbs toward a limit not yet met, the time average once a 429 was met', () => {
    const l = new AdaptiveLimit({ start: 2, min: 1, max: 20 });
    feed(l, [ok(1000), ok(2000), ok(3000)]);
    expect(l.current()).toBeGreaterThan(2);
    expect(l.paceLimit(3000, 3000)).toBe(l.current());
    expect(l.meanLimit(3000, 3000)).toBeLessThan(l.current());
    feed(l, [r429(4000)]);
    expect(l.paceLimit(5000, 5000)).toBe(l.meanLimit(5000, 5000));
  });
});

describe('machineLimit: cores over the CPU a trial needs, bounded by memory, at least 1', () => {
  it.each<[string, { cores: number; freeMemBytes: number; trialMemBytes: number; cpuShare: number }, number]>([
    [
      'CPU-bound simulator trials on 2 cores: 2 / 0.9 → 3 (every core busy)',
      { cores: 2, freeMemBytes: 16 * GB, trialMemBytes: 400 * MB, cpuShare: 0.9 },
      3,
    ],
    ['a trial a core', { cores: 2, freeMemBytes: 16 * GB, trialMemBytes: 400 * MB, cpuShare: 1 }, 2],
    ['float noise does not add a trial', { cores: 2, freeMemBytes: 16 * GB, trialMemBytes: 400 * MB, cpuShare: 0.9999999 }, 2],
    ['a real model: wait-bound, 2 / 0.05', { cores: 2, freeMemBytes: 32 * GB, trialMemBytes: 400 * MB, cpuShare: 0.05 }, 40],
    ['memory binds: 80% of 4 GiB / 400 MiB', { cores: 8, freeMemBytes: 4 * GB, trialMemBytes: 400 * MB, cpuShare: 0.05 }, 8],
    ['at least 1 however little memory', { cores: 2, freeMemBytes: 100 * MB, trialMemBytes: 400 * MB, cpuShare: 0.05 }, 1],
    ['at least 1 however heavy the trial', { cores: 1, freeMemBytes: 16 * GB, trialMemBytes: 400 * MB, cpuShare: 4 }, 1],
    [
      'no CPU measured yet: memory and the hard cap bound it',
      { cores: 2, freeMemBytes: 64 * GB, trialMemBytes: 400 * MB, cpuShare: 0 },
      HARD_CAP,
    ],
    ['never above the hard cap', { cores: 64, freeMemBytes: 1024 * GB, trialMemBytes: 100 * MB, cpuShare: 0.01 }, HARD_CAP],
  ])('%s', (_, m, limit) => {
    expect(machineLimit(m)).toBe(limit);
  });
});

describe('etaSeconds: the pace at the limit over the expected remaining trials', () => {
  const ten = Array<number>(10).fill(10_000);
  it.each<[string, Parameters<typeof etaSeconds>[0], number | undefined]>([
    [
      'fewer than 5 finished: none',
      { finishedWallMs: [10_000, 10_000], remainingTrials: 50, limit: 4, elapsedMs: 60_000, finished: 2 },
      undefined,
    ],
    ['nothing remains: 0', { finishedWallMs: [], remainingTrials: 0, limit: 4, elapsedMs: 0, finished: 0 }, 0],
    [
      '100 left at 10 side by side, 10 s each: 100 s',
      { finishedWallMs: ten, remainingTrials: 100, limit: 10, elapsedMs: 60_000, finished: 10 },
      100,
    ],
    ['a fractional (mean) limit', { finishedWallMs: ten, remainingTrials: 100, limit: 12.5, elapsedMs: 60_000, finished: 10 }, 80],
    [
      'before two typical trials have passed: none (only the fast ones are in)',
      { finishedWallMs: ten, remainingTrials: 100, limit: 10, elapsedMs: 19_999, finished: 10 },
      undefined,
    ],
    ['fewer left than the limit: half a trial', { finishedWallMs: ten, remainingTrials: 2, limit: 10, elapsedMs: 60_000, finished: 10 }, 5],
    [
      'a stuck trial counts as 3 medians',
      { finishedWallMs: [...Array<number>(9).fill(10_000), 600_000], remainingTrials: 10, limit: 1, elapsedMs: 700_000, finished: 10 },
      120,
    ],
    [
      'only the last 100 durations',
      {
        finishedWallMs: [...Array<number>(50).fill(1000), ...Array<number>(100).fill(20_000)],
        remainingTrials: 10,
        limit: 2,
        elapsedMs: 10 ** 6,
        finished: 150,
      },
      100,
    ],
    ['no limit: none', { finishedWallMs: ten, remainingTrials: 10, limit: 0, elapsedMs: 60_000, finished: 10 }, undefined],
  ])('%s', (_, o, seconds) => {
    const eta = etaSeconds(o);
    if (seconds === undefined) expect(eta).toBeUndefined();
    else expect(eta).toBeCloseTo(seconds, 9);
  });

  it.each<[number[], number]>([
    [[1, 2, 3], 2],
    [[1, 1, 1, 100], 0.75 + 3 * 0.25],
    [[10, 20], 15],
  ])('clippedMean(%j) = %d', (xs, mean) => {
    expect(clippedMean(xs)).toBeCloseTo(mean, 9);
  });
});

describe('costProjection: spent so far and projected to the end', () => {
  it.each<[string, Parameters<typeof costProjection>[0], { spentUsd: number; projectedUsd: number } | undefined]>([
    ['nothing finished: none', { spentUsd: 0, finished: 0, remainingTrials: 10 }, undefined],
    ['$2 over 4 trials, 6 to go: $5', { spentUsd: 2, finished: 4, remainingTrials: 6 }, { spentUsd: 2, projectedUsd: 5 }],
    ['nothing to go: what was spent', { spentUsd: 2, finished: 4, remainingTrials: 0 }, { spentUsd: 2, projectedUsd: 2 }],
    ['a negative remaining counts as none', { spentUsd: 2, finished: 4, remainingTrials: -3 }, { spentUsd: 2, projectedUsd: 2 }],
    ['no cost known (NaN): none', { spentUsd: Number.NaN, finished: 4, remainingTrials: 6 }, undefined],
  ])('%s', (_, o, projection) => {
    expect(costProjection(o)).toEqual(projection);
  });
});
