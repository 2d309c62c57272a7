import { paragraph } from './format.js';
import { trialsToDetect } from '../stats/sample-size.js';
import { designOperating, type SequentialDesign } from '../stats/sequential-design.js';
import { designKey } from '../stats/stopped-two-sample.js';
import { boundedEnds, canaryCritical, canaryOperating } from '../stats/canary-design.js';
import { fixedTrialsDesign } from '../stats/stopped-binomial.js';
import { baseTrialsFor, canaryCaps, canaryFutilityLevel, caseUnchangedPower, fixedCanaryTrials } from '../verdict/canary.js';

export { baseTrialsFor };
import { sideLevel } from '../verdict/stopped-sample.js';
import { suiteCanaryPower } from '../stats/suite-power.js';
import { SUITE_TRUNCATION } from '../verdict/compare-defaults.js';

/** A case as the suite runs it: the design that stops it, and how many arms each of its trials runs in. */
export interface PlannedCaseRun {
  design: SequentialDesign;
  arms: number;
}

/** The suite-level canary on the runs the suite makes anyway: what they cost, and what they can see. */
export interface SuiteCanaryPlan {
  /** Expected trials per run (all arms) at the rate before the drop: exact, from each case's design. */
  expectedTrials: number;
  /** Exact power of the suite-level test when every case drops, and when one case alone does (the case it is lowest for). */
  everyCase: number;
  oneCase: number;
}

export interface ComparisonPlan {
  from: number;
  to: number;
  alpha: number;
  power: number;
  cases: number;
  /** Case-arms each run holds (the ablation arm runs where it scores): what a trial count per case costs. */
  caseArms: number;
  /** Trials per case in each run to flag the drop in one case tested alone. */
  perCase: number;
  /** The same when the skill arm's cases are corrected together (Benjamini–Hochberg) and one of them drops (α/m). */
  acrossCases: number;
  /** Absent when the suite runs fixed-N (the fixed-N canary above is then the runs it makes). */
  suite?: SuiteCanaryPlan;
  baseline: BaselineCanaryPlan;
}

/** `run --baseline` against a base of the fixed-N canary's size: what the candidate run costs, and what it sees. */
export interface BaselineCanaryPlan {
  baseTrials: number;
  cap: number;
  /**
   * Expected candidate trials per run, exact, every case run to its end, the ablation arm's trials beside the skill
   * arm's where it scores: every case unchanged, and one case dropping.
   */
  unchangedTrials: number;
  oneDropTrials: number;
  /** Exact chance the dropping case is flagged REGRESSED. */
  power: number;
}

/** The baseline canary's exact plan: each case at α/m (Bonferroni), the base fixed at `baseTrials` per case. */
function baselinePlan(
  from: number,
  to: number,
  alpha: number,
  power: number,
  cases: number,
  caseArms: number,
  baseTrials: number,
  minTrialsAsked: number,
): BaselineCanaryPlan {
  const caseAlpha = alpha / Math.max(1, cases);
  // Each candidate trial of a case runs in each of its arms: the mean arms per case.
  const arms = caseArms / Math.max(1, cases);
  const futilityLevel = canaryFutilityLevel(alpha);
  // The caps planCanary gives a case whose base reads `from`.
  const { regressionCap, maxTrials: cap } = canaryCaps(
    { trials: baseTrials, passes: Math.round(from * baseTrials) },
    { threshold: from, margin: from - to, caseAlpha, power, unchangedPower: caseUnchangedPower(power, cases), futilityLevel },
  );
  const minTrials = Math.min(regressionCap, minTrialsAsked);
  const ends = boundedEnds(fixedTrialsDesign(baseTrials), sideLevel(1 - alpha));
  const c = canaryCritical(
    { ends, observed: { trials: baseTrials, passes: baseTrials } },
    { alpha: caseAlpha, minTrials, maxTrials: regressionCap },
  );
  const params = { margin: from - to, futilityLevel, minTrials, maxTrials: cap, regressionCap };
  const [kept, dropped] = [canaryOperating(ends, from, from, c, params), canaryOperating(ends, from, to, c, params)];
  return {
    baseTrials,
    cap,
    unchangedTrials: arms * cases * kept.expectedTrials,
    oneDropTrials: arms * ((cases - 1) * kept.expectedTrials + dropped.expectedTrials),
    power: dropped.regressed,
  };
}

/** Exact power of the suite-level test when the cases numbered in `dropped` go from → to and the rest stay. */
function suitePower(cases: readonly PlannedCaseRun[], from: number, to: number, alpha: number, dropped: (i: number) => boolean): number {
  return suiteCanaryPower(
    cases.map((c, i) => ({ base: c.design, candidate: c.design, from, to: dropped(i) ? to : from })),
    alpha,
    SUITE_TRUNCATION,
  );
}

/** The index of the first case of each distinct design: cases sharing a design are alike to the suite-level test. */
function distinctDesigns(cases: readonly PlannedCaseRun[]): number[] {
  const seen = new Map<string, number>();
  cases.forEach((c, i) => {
    const key = designKey(c.design);
    if (!seen.has(key)) seen.set(key, i);
  });
  return [...seen.values()];
}

/**
 * Pure: what a canary for a drop `from → to` in the skill arm costs. Fixed-N: trials per case in each of the two
 * runs. Suite-level (sequential suites): the two runs the suite makes anyway, and the exact chance its test flags
 * the drop in every case or in one.
 */
export function planComparison(
  from: number,
  to: number,
  alpha: number,
  power: number,
  suite: { cases: number; caseArms: number; minTrials: number; designs?: readonly PlannedCaseRun[] },
): ComparisonPlan {
  const { cases, caseArms, designs } = suite;
  const acrossCases = fixedCanaryTrials(cases, from, to, alpha, power);
  const plan: ComparisonPlan = {
    from,
    to,
    alpha,
    power,
    cases,
    caseArms,
    perCase: trialsToDetect(from, to, alpha, power),
    acrossCases,
    baseline: baselinePlan(from, to, alpha, power, cases, caseArms, baseTrialsFor(cases, from, to, alpha, power), suite.minTrials),
  };
  if (!designs?.length) return plan;
  return {
    ...plan,
    suite: {
      expectedTrials: designs.reduce((sum, c) => sum + c.arms * designOperating(c.design, from).expectedTrials, 0),
      everyCase: suitePower(designs, from, to, alpha, () => true),
      oneCase: Math.min(...distinctDesigns(designs).map((at) => suitePower(designs, from, to, alpha, (i) => i === at))),
    },
  };
}

const pct = (x: number) => `${(100 * x).toFixed((x > 0.995 && x < 1) || x < 0.1 ? 1 : 0)}%`;

export function renderComparisonPlan(p: ComparisonPlan, pricePerTrial?: number): string {
  const usd = (trials: number) => `$${(trials * (pricePerTrial ?? 0)).toFixed(2)}`;
  const cost = (n: number) => (pricePerTrial === undefined ? '' : ` (both runs, ${p.caseArms} case-arms each: ${usd(2 * n * p.caseArms)})`);
  const drop = `a drop from ${p.from} to ${p.to} with power ${p.power} at α = ${p.alpha}`;
  const across = `when the drop is in one of ${p.cases} cases and Benjamini–Hochberg corrects across them`;
  const suite = p.suite
    ? [
        '',
        paragraph(`suite-level canary, on the runs the suite makes anyway (each case's own sequential design, in both runs):`),
        paragraph(
          `about ${Math.round(p.suite.expectedTrials)} trials per run at ${p.from}${pricePerTrial === undefined ? '' : ` (both runs: ${usd(2 * p.suite.expectedTrials)})`}`,
          '  ',
        ),
        paragraph(
          `flags the drop in every case with power ${pct(p.suite.everyCase)}, in one case alone with ${pct(p.suite.oneCase)} (exact, at α ${p.alpha})`,
          '  ',
        ),
        '  skillprobe run                     (before the update, and again after it)',
        "  skillprobe compare BASE CANDIDATE  (exit 1 on a suite-level or a case's regression)",
      ]
    : [];
  const b = p.baseline;
  const baseline = [
    '',
    paragraph(
      `baseline canary (\`run --baseline\`: the candidate samples each case until its drop is shown or ruled out), against a base of ${b.baseTrials} per case:`,
    ),
    paragraph(
      `about ${Math.round(b.unchangedTrials)} candidate trials when every case passes at ${p.from} and nothing moved, ${Math.round(b.oneDropTrials)} when one case drops (${p.caseArms} case-arms: the ablation arm's trials included; at most ${b.cap} per case and arm; exact, every case run to its end), against ${p.acrossCases * p.caseArms} for the fixed-N candidate${pricePerTrial === undefined ? '' : ` (${usd(b.unchangedTrials)} when nothing moved)`}; cases whose rate is nearer ½ take more`,
      '  ',
    ),
    paragraph(`flags the drop in one case with power ${pct(b.power)} (exact, α ${p.alpha} across the cases)`, '  '),
    paragraph(
      `a smaller base bounds the canary: against a run at the default design it cannot rule out a drop of ${(p.from - p.to).toFixed(2)}, and its cases end UNDECIDED (exit 3) unless they regress`,
      '  ',
    ),
    `  skillprobe run --for-baseline --margin ${(p.from - p.to).toFixed(2)}   (once: the base, ${b.baseTrials} per case${pricePerTrial === undefined ? '' : `, ${usd(b.baseTrials * p.caseArms)}`})`,
    `  skillprobe run --baseline BASE --margin ${(p.from - p.to).toFixed(2)}   (after each update: exit 1 regressed, 3 undecided)`,
  ];
  return (
    [
      paragraph(`plan --compare · catch ${drop} · ${p.cases} cases`),
      '',
      paragraph("fixed-N canary (two-sided, Boschloo's exact test per case):"),
      paragraph(`${p.perCase} trials per case in each run, for one case tested alone${cost(p.perCase)}`, '  '),
      paragraph(`${p.acrossCases} trials per case in each run, ${across}${cost(p.acrossCases)}`, '  '),
      `  skillprobe run --mode fixed -n ${p.acrossCases}   (before the update, and again after it)`,
      '  skillprobe compare BASE CANDIDATE',
      ...baseline,
      ...suite,
    ].join('\n') + '\n'
  );
}
