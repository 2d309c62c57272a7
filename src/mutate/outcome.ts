import type { Results } from '../run/schema.js';
import type { Comparison } from '../verdict/comparison.js';

/**
 * Whether a suite noticed a mutant, and what a survivor means. "Noticed" is the suite-level canary of `compare`
 * against the unmutated run saying REGRESSED: its false alarms are held at α. The other rule, a case's
 * verdict changing from PASS, is reported beside it, never counted: at the demo's design two runs of the very same
 * skill change some verdict from PASS most of the time (`aaVerdictFlipRate`), so it would call noise a kill.
 */

export const noticed = (c: Comparison): boolean => c.suite.change === 'REGRESSED';

/** The skill-arm cases whose verdict was PASS in the unmutated run and is not in the mutant's. */
export function flippedFromPass(base: Results, mutant: Results): string[] {
  const passed = new Set(base.verdicts.filter((v) => v.verdict === 'PASS').map((v) => v.caseId));
  return mutant.verdicts.filter((v) => passed.has(v.caseId) && v.verdict !== 'PASS').map((v) => v.caseId);
}
