import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';

/**
 * The holdout's sequential test of the winner against the original on recall. The holdout runs in rounds (one more
 * trial of every holdout case under each description); after a round it looks at the discordant pairs on the
 * positives so far (trial n of a case passed under one description only): W favour the winner, D in all.
 *
 * Why the error rates are exact: under "the winner behaves as the original" each discordant pair favours either side
 * with chance ½, whatever the cases' rates, independently of whether and when pairs turn out discordant. So the
 * winner's count is a fair coin's running tally over the discordant pairs, looked at where the rounds end. The
 * IMPROVED boundary is drawn on that tally as if it were looked at after every discordant pair, spending at most
 * α·d/(d + c) by the d-th: its chance of ever being crossed is computed exactly, and looking less often (at rounds'
 * ends), stopping at any cap, or raising the cap later by `--resume` can only lower it.
 *
 * A gain is ruled out the same way, under its least favourable case: recall gain Δ = q(2θ − 1), where q is the share
 * of pairs that are discordant and θ the share of those favouring the winner; q ≤ 1, so a gain of at least δ means
 * θ ≥ (1 + δ)/2 whatever the cases. The lower boundary spends at most β·d/(d + c) of that θ's chance of ever being
 * crossed, so a true gain of δ or more is ruled out with chance at most β; α holds with the lower boundary ignored.
 */
export interface HoldoutDesign {
  /** One-sided chance of IMPROVED when the winner is no better. */
  alpha: number;
  /** Chance of ruling out a gain of `gain` when the winner's recall is that much higher. */
  beta: number;
  /** The recall gain worth proving (and ruled out when the data say it is not there). */
  gain: number;
  /** Discordant pairs by which half of α (and of β) may be spent. */
  halfSpentAt: number;
}

export const HOLDOUT_DESIGN_DEFAULTS = { beta: 0.2, gain: 0.25, halfSpentAt: 8 } as const;

/** The error a design may have spent by the d-th discordant pair. */
export const spentBy = (total: number, d: number, halfSpentAt: number) => (total * d) / (d + halfSpentAt);

/** θ under the least favourable case for a gain of `gain`: every pair discordant. */
export const leastFavourableTheta = (gain: number) => (1 + gain) / 2;

/** For d = 0 … maxDiscordant: IMPROVED when the winner's count is at least improveAt[d]; a gain ruled out when at most ruledOutAt[d] (−1: never). */
export interface Boundaries {
  improveAt: number[];
  ruledOutAt: number[];
  /** The exact chance of ever crossing each boundary by maxDiscordant: under no gain (IMPROVED), under θ₁ (ruled out). */
  alpha: number;
  beta: number;
}

/** One boundary of a walk that steps up with chance θ, crossed with chance at most `total`·d/(d + c) by the d-th step. */
function boundary(
  maxDiscordant: number,
  theta: number,
  total: number,
  c: number,
  side: 'upper' | 'lower',
): { at: number[]; spent: number } {
  let mass = [1];
  let spent = 0;
  const at: number[] = [side === 'upper' ? 1 : -1];
  for (let d = 1; d <= maxDiscordant; d++) {
    const next = new Array<number>(d + 1).fill(0);
    mass.forEach((m, w) => {
      next[w]! += m * (1 - theta);
      next[w + 1]! += m * theta;
    });
    mass = next;
    const may = spentBy(total, d, c);
    let cut = side === 'upper' ? d + 1 : -1;
    let add = 0;
    if (side === 'upper') while (cut > 0 && spent + add + mass[cut - 1]! <= may) add += mass[--cut]!;
    else while (cut < d && spent + add + mass[cut + 1]! <= may) add += mass[++cut]!;
    spent += add;
    mass = mass.map((m, w) => ((side === 'upper' ? w >= cut : w <= cut) ? 0 : m));
    at.push(cut);
  }
  return { at, spent };
}

const cache = new Map<string, Boundaries>();

/** The design's boundaries up to `maxDiscordant` pairs: pure, exact, memoised. */
export function holdoutBoundaries(d: HoldoutDesign, maxDiscordant: number): Boundaries {
  const key = `${d.alpha}/${d.beta}/${d.gain}/${d.halfSpentAt}/${maxDiscordant}`;
  let b = cache.get(key);
  if (b === undefined) {
    const upper = boundary(maxDiscordant, 0.5, d.alpha, d.halfSpentAt, 'upper');
    const lower = boundary(maxDiscordant, leastFavourableTheta(d.gain), d.beta, d.halfSpentAt, 'lower');
    b = { improveAt: upper.at, ruledOutAt: lower.at, alpha: upper.spent, beta: lower.spent };
    cache.set(key, b);
  }
  return b;
}

export type HoldoutOutcome = 'improved' | 'ruled-out' | 'continue';

/** What a look at `discordant` pairs, `winnerOnly` of them for the winner, decides. */
export function holdoutOutcome(d: HoldoutDesign, discordant: number, winnerOnly: number): HoldoutOutcome {
  const b = holdoutBoundaries(d, discordant);
  if (winnerOnly >= b.improveAt[discordant]!) return 'improved';
  if (winnerOnly <= b.ruledOutAt[discordant]!) return 'ruled-out';
  return 'continue';
}

/**
 * The chance of IMPROVED within `rounds` rounds, exactly, for holdout positives whose pass rates are `original` and
 * `winner` (case by case), a look after each round `looksAt` names: the law of the (discordant, winner-only)
 * counts is carried round by round, and the paths a look stops are taken out. What `--plan` states as the power, and
 * what a NO SIGNIFICANT CHANGE says it had and would need.
 */
export function improvedChanceAtLooks(
  cases: readonly { original: number; winner: number }[],
  d: HoldoutDesign,
  rounds: number,
  looksAt: (round: number) => boolean,
): number {
  // One round: the law of (discordant, winner-only) over the cases, each case one pair.
  let one: number[][] = [[1]];
  for (const c of cases) {
    const wOnly = c.winner * (1 - c.original);
    const oOnly = c.original * (1 - c.winner);
    const next = Array.from({ length: one.length + 1 }, (_, dd) => new Array<number>(dd + 1).fill(0));
    one.forEach((row, dd) =>
      row.forEach((m, ww) => {
        next[dd + 1]![ww + 1]! += m * wOnly;
        next[dd + 1]![ww]! += m * oOnly;
        next[dd]![ww]! += m * (1 - wOnly - oOnly);
      }),
    );
    one = next;
  }
  const k = cases.length;
  let law: number[][] = [[1]];
  let improved = 0;
  for (let r = 1; r <= rounds; r++) {
    const next = Array.from({ length: r * k + 1 }, (_, dd) => new Array<number>(dd + 1).fill(0));
    law.forEach((row, dd) =>
      row.forEach((m, ww) => {
        if (m === 0) return;
        one.forEach((add, ad) => add.forEach((x, aw) => (next[dd + ad]![ww + aw]! += m * x)));
      }),
    );
    law = next;
    if (!looksAt(r)) continue;
    law.forEach((row, dd) =>
      row.forEach((m, ww) => {
        if (m === 0) return;
        const outcome = holdoutOutcome(d, dd, ww);
        if (outcome === 'continue') return;
        if (outcome === 'improved') improved += m;
        row[ww] = 0;
      }),
    );
  }
  return improved;
}

/** Rounds run before the first look, and between looks: each look is a step of the original and one of the winner. */
export const ROUNDS_PER_LOOK = 2;

/** The rounds at which the holdout looks, up to `cap`: every ROUNDS_PER_LOOK, and the cap. */
export function lookRounds(cap: number, from = 0): number[] {
  const out: number[] = [];
  for (let r = from + ROUNDS_PER_LOOK; r < cap; r += ROUNDS_PER_LOOK) out.push(r);
  if (cap > from) out.push(cap);
  return out;
}

/** The chance of IMPROVED within `rounds` rounds, looks where `lookRounds` puts them. */
export function powerAt(cases: readonly { original: number; winner: number }[], d: HoldoutDesign, rounds: number): number {
  const looks = new Set(lookRounds(rounds));
  return improvedChanceAtLooks(cases, d, rounds, (r) => looks.has(r));
}

/**
 * The power a plan states for a gain of d.gain over `positives` holdout cases within `cap` rounds, for two ways a
 * gain can fall on cases: every positive up by the gain around 50% (`spread`: the most discordant pairs, split
 * closest to even), and every positive from never to the gain (`oneWay`: the fewest discordant pairs, all the
 * winner's).
 */
export function plannedPower(positives: number, d: HoldoutDesign, cap: number): { spread: number; oneWay: number } {
  const half = (1 - d.gain) / 2;
  const all = (original: number) => Array.from({ length: positives }, () => ({ original, winner: original + d.gain }));
  return { spread: powerAt(all(half), d, cap), oneWay: powerAt(all(0), d, cap) };
}

/**
 * What an undecided holdout had and would need, from what it saw: each positive's original rate as observed, the
 * winner's the gain above it (at most 1). Its power at `rounds`, and the fewest rounds (in looks' steps, up to
 * `limit`) that give 1 − β; undefined when even `limit` does not.
 */
export function settling(
  originalRates: readonly number[],
  d: HoldoutDesign,
  rounds: number,
  limit: number,
): { power: number; rounds?: number } {
  const cases = originalRates.map((o) => ({ original: o, winner: Math.min(1, o + d.gain) }));
  const power = powerAt(cases, d, rounds);
  for (let r = rounds + ROUNDS_PER_LOOK; r <= limit; r += ROUNDS_PER_LOOK)
    if (powerAt(cases, d, r) >= 1 - d.beta) return { power, rounds: r };
  return { power };
}

/**
 * The best chance that McNemar's exact two-sided test at `alpha` flags a drop of `drop` on `pairs` pairs: the drop
 * carried by pairs the original passes and the winner fails and no pair the other way (the easiest case). Below 1 − β,
 * the holdout has too few of a role's cases to see such a drop, and the report says so.
 */
export function dropPower(pairs: number, drop: number, alpha: number): number {
  // With every discordant pair one way, p = 2·½^D: flagged from the smallest D with 2·½^D < alpha.
  const need = Math.max(1, Math.floor(Math.log2(2 / alpha)) + 1);
  let below = 0;
  for (let k = 0; k < need && k <= pairs; k++) below += binomialPmf(k, pairs, drop);
  return pairs < need ? 0 : 1 - below;
}
