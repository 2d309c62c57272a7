/**
 * `run --baseline`: the candidate's canary per case, drawn against where the stored base run ended it, and the
 * canary's test when `compare` meets the run against that same base. Pure.
 */
import type { GradableCase, StoredCanary } from '../run/schema.js';
import {
  canaryCritical,
  canaryDesign,
  canaryPValue,
  largestCritical,
  unchangedBaseTrials,
  unchangedTrials,
  type BaseEnds,
} from '../stats/canary-design.js';
import { normalApproxTrials, trialsToDetect } from '../stats/sample-size.js';
import { decideSequential, type SequentialState } from '../stats/sequential-design.js';
import { ruleEnds } from '../stats/stopped-two-sample.js';
import type { RunToCompare } from './comparison.js';
import { boundariesDesign, rateInterval, sideLevel, stoppedSample } from './stopped-sample.js';

export interface CanaryOptions {
  /** False alarms across the compared cases. */
  alpha: number;
  /** The drop worth catching: UNCHANGED rules it out. */
  margin: number;
  /** The power the default caps plan for: to flag a drop of the margin in a case, and to find every case UNCHANGED under no change. */
  power: number;
  /** A cap on the candidate's trials per case; by default enough for both at `power`. */
  maxTrials?: number;
  stopAtFirstRegression: boolean;
}

/**
 * The one-sided confidence of the candidate's lower bound at which the canary stops at UNCHANGED: the one its row in
 * the comparison at `alpha` reports (each run's interval two-sided at 1 − α/2), so the two never disagree. No
 * correction across cases: the suite is UNCHANGED only when every case is, an intersection–union test whose level is
 * that of one case.
 */
export const canaryFutilityLevel = (alpha: number) => 1 - (1 - sideLevel(1 - alpha)) / 2;
/**
 * The default cap over the fixed-N count for the margin: the canary looks after every trial, and its boundary is
 * raised for that, so it needs somewhat more trials than one look would to keep the power at the cap.
 */
const CAP_OVER_FIXED_N = 1.3;
/**
 * Nor more than this many times the base's trials: past it the base's own error is most of the difference's
 * (the variance is within a quarter of its floor), and a top-up of the base is what would decide the case.
 */
const CAP_OVER_BASE = 4;

/** The rate a drop of `margin` is planned from: `rate`, kept where a drop of the margin is still a rate. */
export const plannedFrom = (rate: number, margin: number) => Math.min(Math.max(rate, margin + 0.01), 0.99);

/** The candidate's cap for REGRESSED, for a case planned at `rate` against a base of `baseTrials`. */
export function canaryCap(rate: number, margin: number, caseAlpha: number, power: number, baseTrials: number): number {
  const from = plannedFrom(rate, margin);
  return Math.min(Math.ceil(CAP_OVER_FIXED_N * normalApproxTrials(from, from - margin, 2 * caseAlpha, power)), CAP_OVER_BASE * baseTrials);
}

/**
 * The power each case's UNCHANGED is planned at: the suite is UNCHANGED only when every one of its `cases` is, so
 * each gets the `cases`-th root of the suite's power (independent cases: all of them together at `power`).
 */
export const caseUnchangedPower = (power: number, cases: number) => power ** (1 / Math.max(1, cases));

/**
 * A case's caps against a base of `base.trials` whose rate reads `base.passes`: REGRESSED is looked for up to
 * `regressionCap` (the cap above, planned at the threshold, so that cases alike share one calibration), and sampling
 * goes on to `maxTrials` where ruling out a drop of the margin at the case's own rate needs more: at `unchangedPower`
 * under no change, planned at the base's rate (Agresti and Coull's, so a base of all passes still has a variance),
 * × 1.3 for looking after every trial, at most 4 × the base. Where the base's own error takes the margin, no
 * candidate can: the cap is the REGRESSED one. `boundedByBase`: either limit was the base's, so only a larger base
 * gives this case its planned UNCHANGED power.
 */
export function canaryCaps(
  base: { trials: number; passes: number },
  o: { threshold: number; margin: number; caseAlpha: number; power: number; unchangedPower: number; futilityLevel: number },
): { regressionCap: number; maxTrials: number; boundedByBase: boolean } {
  const regressionCap = canaryCap(o.threshold, o.margin, o.caseAlpha, o.power, base.trials);
  const rate = (base.passes + 2) / (base.trials + 4);
  const unchanged = unchangedTrials(rate, base.trials, o.margin, o.futilityLevel, o.unchangedPower);
  if (!Number.isFinite(unchanged)) return { regressionCap, maxTrials: regressionCap, boundedByBase: true };
  const wanted = Math.ceil(CAP_OVER_FIXED_N * unchanged);
  return {
    regressionCap,
    maxTrials: Math.max(regressionCap, Math.min(wanted, CAP_OVER_BASE * base.trials)),
    boundedByBase: wanted > CAP_OVER_BASE * base.trials,
  };
}

/**
 * Trials per case in each run to flag a drop `from → to` in one of `cases` cases, corrected across them: the
 * fixed-N canary's runs.
 */
export const fixedCanaryTrials = (cases: number, from: number, to: number, alpha: number, power: number) =>
  trialsToDetect(from, to, alpha / Math.max(1, cases), power);

/**
 * How many more candidate trials than the base's a case at rate ½ may need to be ruled UNCHANGED: the base is made
 * once and the candidate runs after every update, so the base takes the larger share (a base of 447 on the demo
 * against 605 at an even split, and the candidate's cap at ½ 1,162 instead of 787).
 */
const UNCHANGED_CANDIDATE_OVER_BASE = 2;

/**
 * The base `run --baseline` needs (`run --for-baseline` makes it): enough to flag the drop as the fixed-N canary
 * does, and enough that under no change every case, at any rate, is ruled UNCHANGED with the suite's planned
 * power (each case at its root), so that a canary on an unchanged model exits 0. Sized at the worst variance (½):
 * the base is fixed before its rates are known, and its fixed count keeps every case's exact test.
 */
export const baseTrialsFor = (cases: number, from: number, to: number, alpha: number, power: number) =>
  Math.max(
    fixedCanaryTrials(cases, from, to, alpha, power),
    unchangedBaseTrials(from - to, canaryFutilityLevel(alpha), caseUnchangedPower(power, cases), UNCHANGED_CANDIDATE_OVER_BASE),
  );

/** `baseTrialsFor` a case of `threshold` among `cases`, for a drop of `margin`: the trials per case its base needs. */
export function prescribedBaseTrials(cases: number, threshold: number, margin: number, alpha: number, power: number): number {
  const from = plannedFrom(threshold, margin);
  return baseTrialsFor(cases, from, from - margin, alpha, power);
}

/**
 * A case's cap against its base topped up by `added` trials, the base's rate kept (`maxTrials`: the user's cap):
 * what the candidate may take in it after a top-up.
 */
export function toppedUpCap(
  canary: Pick<StoredCanary, 'caseAlpha' | 'margin' | 'futilityLevel' | 'cases'>,
  entry: StoredCanary['cases'][number],
  o: { added: number; threshold: number; power: number; maxTrials?: number },
): number {
  const trials = entry.base.trials + o.added;
  const { maxTrials } = canaryCaps(
    { trials, passes: Math.round((entry.base.passes / entry.base.trials) * trials) },
    {
      threshold: o.threshold,
      margin: canary.margin,
      caseAlpha: canary.caseAlpha,
      power: o.power,
      unchangedPower: caseUnchangedPower(o.power, canary.cases.length),
      futilityLevel: canary.futilityLevel,
    },
  );
  return Math.max(entry.design.minTrials, o.maxTrials ?? maxTrials);
}

/** A case the base cannot be a canary for, and why. */
export interface CanaryGap {
  caseId: string;
  why: string;
}

/** The candidate's skill-arm scored outcomes of a case, in trial order. */
export const scoredSkillSequence = (r: Pick<RunToCompare, 'results'>, caseId: string) =>
  r.results.outcomes
    .filter((o) => o.caseId === caseId && o.arm === 'skill' && o.passed !== null)
    .sort((a, b) => a.n - b.n)
    .map((o) => o.passed === true);

/**
 * Each case of the candidate's suite that the base ran to its stopping rule gets boundaries against the base's
 * end: Bonferroni's share of α each, so that any case's REGRESSED is a false alarm with chance at most α. Cases the
 * base lacks, or did not stop by a known rule, are returned as gaps (they run on their own designs);
 * `boundedByBase` names the cases whose planned caps the base's size cut (`canaryCaps`).
 */
export function planCanary(
  base: RunToCompare,
  defs: readonly Pick<GradableCase, 'id' | 'decision'>[],
  o: CanaryOptions,
): { canary: StoredCanary; gaps: CanaryGap[]; boundedByBase: string[] } {
  const boundedByBase: string[] = [];
  const gaps: CanaryGap[] = [];
  const ready = defs.flatMap((def) => {
    const sample = stoppedSample(base, def.id, scoredSkillSequence(base, def.id));
    if (!sample) {
      gaps.push({
        caseId: def.id,
        why: base.manifest.cases.defs.some((d) => d.id === def.id)
          ? 'the base run did not stop it by a known rule'
          : 'the base run has no such case',
      });
      return [];
    }
    return [{ def, sample }];
  });
  const caseAlpha = o.alpha / Math.max(1, ready.length);
  const unchangedPower = caseUnchangedPower(o.power, ready.length);
  const cases = ready.map(({ def, sample }) => {
    const observed = { trials: sample.trials, passes: sample.passes };
    const minTrials = def.decision.minTrials;
    const futilityLevel = canaryFutilityLevel(o.alpha);
    const planned = canaryCaps(observed, {
      threshold: def.decision.threshold,
      margin: o.margin,
      caseAlpha,
      power: o.power,
      unchangedPower,
      futilityLevel,
    });
    if (planned.boundedByBase) boundedByBase.push(def.id);
    const caps = o.maxTrials === undefined ? planned : { regressionCap: o.maxTrials, maxTrials: o.maxTrials };
    const [regressionCap, maxTrials] = [Math.max(minTrials, caps.regressionCap), Math.max(minTrials, caps.maxTrials)];
    const params = { margin: o.margin, futilityLevel, minTrials, maxTrials, regressionCap };
    const critical = canaryCritical({ ends: ruleEnds(sample), observed }, { alpha: caseAlpha, minTrials, maxTrials: regressionCap });
    const upper = rateInterval(sample, { successes: sample.passes, n: sample.trials }, sideLevel(1 - o.alpha)).hi;
    const d = canaryDesign({ ...observed, upper }, critical, params);
    const { design } = sample;
    return {
      caseId: def.id,
      base: observed,
      baseRule: { minTrials: design.minTrials, maxTrials: design.maxTrials, acceptFrom: design.acceptFrom, rejectUpTo: design.rejectUpTo },
      baseAdded: sample.added ?? 0,
      critical,
      ...(regressionCap < maxTrials ? { regressionCap } : {}),
      design: { minTrials: d.minTrials, maxTrials: d.maxTrials, acceptFrom: d.acceptFrom, rejectUpTo: d.rejectUpTo },
    };
  });
  return {
    canary: {
      base: { runId: base.results.runId, dir: base.dir },
      alpha: o.alpha,
      caseAlpha,
      margin: o.margin,
      futilityLevel: canaryFutilityLevel(o.alpha),
      stopAtFirstRegression: o.stopAtFirstRegression,
      ...(o.maxTrials !== undefined ? { maxTrials: o.maxTrials } : {}),
      cases,
    },
    gaps,
    boundedByBase,
  };
}

export interface CanaryTest {
  /** The exact one-sided p-value of a drop (valid however the candidate stopped). */
  pValue: number;
  /** Where the candidate's trials reached its boundaries: reject REGRESSED, accept UNCHANGED. */
  state: SequentialState;
  /** Scored trials up to the decision (all of them while undecided), and their passes. */
  trials: number;
  passes: number;
}

/** A stored case's canary as the exact programmes take it (`canaryOperating`). */
export const storedCanaryParams = (canary: Pick<StoredCanary, 'margin' | 'futilityLevel'>, entry: StoredCanary['cases'][number]) => ({
  margin: canary.margin,
  futilityLevel: canary.futilityLevel,
  minTrials: entry.design.minTrials,
  maxTrials: entry.design.maxTrials,
  regressionCap: entry.regressionCap ?? entry.design.maxTrials,
});

/** The canary of one case against its base: the base as the run stored it, the candidate's outcomes in trial order. */
export function canaryTest(entry: StoredCanary['cases'][number], sequence: readonly boolean[]): CanaryTest {
  const design = boundariesDesign(entry.design);
  const d = decideSequential(sequence, design);
  const base: BaseEnds = { ends: ruleEnds({ design: boundariesDesign(entry.baseRule), added: entry.baseAdded }), observed: entry.base };
  const looks = { ...design, regressionCap: entry.regressionCap ?? design.maxTrials };
  const reached = largestCritical(entry.base, sequence.slice(0, d.trials), looks);
  return {
    pValue: canaryPValue(base, reached, looks),
    state: d.state,
    trials: d.trials,
    passes: d.passes,
  };
}

/** True when the base run is the one the canary was drawn against, still ending where it did then. */
export function sameBase(base: RunToCompare, canary: StoredCanary, entry: StoredCanary['cases'][number]): boolean {
  if (base.results.runId !== canary.base.runId) return false;
  const s = stoppedSample(base, entry.caseId, scoredSkillSequence(base, entry.caseId));
  return s !== undefined && s.trials === entry.base.trials && s.passes === entry.base.passes && (s.added ?? 0) === entry.baseAdded;
}
