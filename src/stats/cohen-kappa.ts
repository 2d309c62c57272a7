import type { Interval, Rate } from '../run/schema.js';
import { wilsonInterval, zFor } from './wilson.js';

/**
 * How far the judge's verdicts agree with human labels beyond what two raters answering at their own rates would
 * agree by chance: Cohen's κ = (po − pe) / (1 − pe). Raw agreement po alone flatters a judge whenever one answer is
 * common (a judge saying yes to everything agrees 90 % with labels that are 90 % yes, and κ is 0).
 */

export type YesNo = 'yes' | 'no';

/** One labelled item: the judge's verdict and the human's label. */
export interface LabelPair {
  judge: YesNo;
  human: YesNo;
}

/** Counts of labelled items by the judge's verdict (first word) and the human's label (second). */
export interface AgreementTable {
  yesYes: number;
  yesNo: number;
  noYes: number;
  noNo: number;
}

/** Below this many labels κ's interval is wide enough to mislead: the result carries `fewLabels`. */
export const MIN_LABELS = 50;

/**
 * Added to every cell for the interval only (the estimate is the table's own). The plain large-sample interval
 * collapses to a point at perfect agreement and covers far below its level at high κ or small n (the Wald interval's
 * failure for a proportion, again); one pseudo-count per cell, as Agresti and Caffo add to a 2×2 table of two
 * proportions, pulls it off the boundary. bench/judge.mjs prints the exact coverage of both.
 */
export const KAPPA_PSEUDO_COUNT = 1;

export function agreementTable(pairs: readonly LabelPair[]): AgreementTable {
  const t: AgreementTable = { yesYes: 0, yesNo: 0, noYes: 0, noNo: 0 };
  for (const { judge, human } of pairs) {
    const cell = judge === 'yes' ? (human === 'yes' ? 'yesYes' : 'yesNo') : human === 'yes' ? 'noYes' : 'noNo';
    t[cell]++;
  }
  return t;
}

const labelsIn = (t: AgreementTable) => t.yesYes + t.yesNo + t.noYes + t.noNo;

/**
 * κ and its large-sample standard error (Fleiss, Cohen & Everitt), from cell counts that may be fractional; undefined
 * when chance agreement is certain (both raters gave one and the same answer throughout).
 */
function kappaWithSe(t: AgreementTable): { kappa: number; se: number } | undefined {
  const n = labelsIn(t);
  const [yy, yn, ny, nn] = [t.yesYes / n, t.yesNo / n, t.noYes / n, t.noNo / n];
  const [judgeYes, judgeNo, humanYes, humanNo] = [yy + yn, ny + nn, yy + ny, yn + nn];
  const pe = judgeYes * humanYes + judgeNo * humanNo;
  if (!(pe < 1)) return undefined;
  const kappa = (yy + nn - pe) / (1 - pe);
  const agreeing = yy * (1 - (judgeYes + humanYes) * (1 - kappa)) ** 2 + nn * (1 - (judgeNo + humanNo) * (1 - kappa)) ** 2;
  const disagreeing = (1 - kappa) ** 2 * (yn * (humanYes + judgeNo) ** 2 + ny * (humanNo + judgeYes) ** 2);
  const variance = agreeing + disagreeing - (kappa - pe * (1 - kappa)) ** 2;
  return { kappa, se: Math.sqrt(Math.max(0, variance)) / ((1 - pe) * Math.sqrt(n)) };
}

/** The large-sample interval κ ± z·se of the table with `pseudoCount` added to each cell, within [−1, 1]. */
export function kappaWaldInterval(t: AgreementTable, confidence = 0.95, pseudoCount = KAPPA_PSEUDO_COUNT): Interval | undefined {
  const e = kappaWithSe({
    yesYes: t.yesYes + pseudoCount,
    yesNo: t.yesNo + pseudoCount,
    noYes: t.noYes + pseudoCount,
    noNo: t.noNo + pseudoCount,
  });
  if (!e) return undefined;
  const half = zFor(confidence) * e.se;
  return { lo: Math.max(-1, e.kappa - half), hi: Math.min(1, e.kappa + half) };
}

export type CohenKappa = {
  labels: number;
  /** Raw agreement po with its Wilson interval: printed beside κ, never in its place. */
  agreement: Rate;
  /** Fewer than MIN_LABELS labels. */
  fewLabels: boolean;
} & ({ kappa: number; lo: number; hi: number } | { kappa: null; reason: string });

/**
 * κ with its interval, or null with the reason: no labels, or human labels all one class (then κ is 0 or undefined
 * whatever the judge does, so it cannot tell agreement from chance). A judge giving one answer throughout, against
 * labels of both classes, has κ = 0: it agrees exactly as often as chance would.
 */
export function cohenKappa(t: AgreementTable, confidence = 0.95): CohenKappa {
  const labels = labelsIn(t);
  const base = { labels, agreement: wilsonInterval(t.yesYes + t.noNo, labels, confidence), fewLabels: labels < MIN_LABELS };
  if (labels === 0) return { ...base, kappa: null, reason: 'no labels' };
  const humanYes = t.yesYes + t.noYes;
  if (humanYes === 0 || humanYes === labels)
    return {
      ...base,
      kappa: null,
      reason: `every human label is ${humanYes === 0 ? 'no' : 'yes'}: agreement beyond chance needs labels of both answers`,
    };
  // Human labels of both classes keep chance agreement below 1, so both are defined.
  const { kappa } = kappaWithSe(t)!;
  const { lo, hi } = kappaWaldInterval(t, confidence)!;
  // The pseudo-counts pull the interval's centre towards 0; on a handful of labels that can leave κ̂ itself outside
  // it, so it is widened to hold κ̂ (which only adds coverage).
  return { ...base, kappa, lo: Math.min(lo, kappa), hi: Math.max(hi, kappa) };
}

/** The half-width of κ's interval a labelling aims at: κ known to ±0.1 tells a fair judge (0.4) from a good one (0.6). */
export const KAPPA_TARGET_HALF_WIDTH = 0.1;

/** Past this many labels more, the count is reported as out of reach rather than searched further. */
const MOST_LABELS_ASKED = 100_000;

const halfWidth = (t: AgreementTable, confidence: number) => {
  const i = kappaWaldInterval(t, confidence);
  return i ? (i.hi - i.lo) / 2 : Infinity;
};

/**
 * How many labels more κ's interval needs to be no wider than ±`target`, if the labels to come fall in the cells as
 * the ones so far did (the table scaled up; the interval is `kappaWaldInterval`'s, as the reports give it): 0 when it
 * already is; undefined while κ cannot be estimated (no labels, or human labels of one answer only), or when no number
 * of labels up to MOST_LABELS_ASKED gets there. bench/labels.mjs measures what labelling that many more gives.
 */
export function labelsMoreNeeded(t: AgreementTable, confidence = 0.95, target = KAPPA_TARGET_HALF_WIDTH): number | undefined {
  const n = labelsIn(t);
  const humanYes = t.yesYes + t.noYes;
  if (n === 0 || humanYes === 0 || humanYes === n) return undefined;
  const scaled = (m: number): AgreementTable => {
    const f = (n + m) / n;
    return { yesYes: t.yesYes * f, yesNo: t.yesNo * f, noYes: t.noYes * f, noNo: t.noNo * f };
  };
  if (halfWidth(t, confidence) <= target) return 0;
  if (halfWidth(scaled(MOST_LABELS_ASKED), confidence) > target) return undefined;
  // The width falls as the labels grow (as 1/√n, the pseudo-counts' pull fading too): the smallest count is bisected.
  let [lo, hi] = [0, MOST_LABELS_ASKED];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (halfWidth(scaled(mid), confidence) <= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
