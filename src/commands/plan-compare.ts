import { paragraph } from '../report/format.js';
import { trialsToDetect } from '../stats/sample-size.js';

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
}

/**
 * Pure: how many fixed-N trials a canary needs per case, in each of the two runs, to catch a drop `from → to` in
 * the skill arm (the arm `compare` gates on, corrected across its cases).
 */
export function planComparison(from: number, to: number, alpha: number, power: number, suite: { cases: number; caseArms: number }): ComparisonPlan {
  const { cases, caseArms } = suite;
  return { from, to, alpha, power, cases, caseArms, perCase: trialsToDetect(from, to, alpha, power), acrossCases: trialsToDetect(from, to, alpha / Math.max(1, cases), power) };
}

export function renderComparisonPlan(p: ComparisonPlan, pricePerTrial?: number): string {
  const cost = (n: number) => (pricePerTrial === undefined ? '' : ` (both runs, ${p.caseArms} case-arms each: $${(2 * n * p.caseArms * pricePerTrial).toFixed(2)})`);
  const drop = `a drop from ${p.from} to ${p.to} with power ${p.power} at α = ${p.alpha}`;
  const across = `when the drop is in one of ${p.cases} cases and Benjamini–Hochberg corrects across them`;
  return [
    paragraph(`plan --compare · catch ${drop} (two-sided, Boschloo's exact test) · ${p.cases} cases`),
    paragraph(`${p.perCase} trials per case in each run, for one case tested alone${cost(p.perCase)}`, '  '),
    paragraph(`${p.acrossCases} trials per case in each run, ${across}${cost(p.acrossCases)}`, '  '),
    '',
    paragraph(
      'run the canary fixed-N in both runs, before the update and again after it (SPRT runs stop early, and compare then falls back to ' +
        'wider time-uniform intervals):',
    ),
    `  skillprobe run --mode fixed -n ${p.acrossCases}`,
    '  skillprobe compare BASE CANDIDATE',
  ].join('\n') + '\n';
}
