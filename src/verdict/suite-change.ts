import { NONE } from '../grade/outcome.js';
import { NO_EVIDENCE } from '../grade/status.js';
import type { TrialOutcome } from '../run/schema.js';
import { truncatedProduct, type CombinedEvidence } from '../stats/combine-p-values.js';
import { stratifiedDifference, type Stratum } from '../stats/stratified-difference.js';
import { familyFired } from '../stats/summary.js';
import { pValueText } from '../util/text.js';
import { SUITE_TRUNCATION, type CompareOptions } from './compare-defaults.js';
import type { CaseChange, RunToCompare, SuiteChange, SuiteRateName, SuiteRates } from './comparison.js';

/** A case's evidence as the suite-level test takes it: its change, and its one-sided p-values either way. */
export interface CaseEvidence {
  change: CaseChange;
  worse: CombinedEvidence;
  better: CombinedEvidence;
}

/** How many of the cases that moved most the verdict names. */
const MOVED_SHOWN = 3;

/** Per case, the trials (of the skill arm, with evidence) that count for a rate, and those among them that show it. */
type Counter = { cases: (expect: string) => boolean; counts: (o: TrialOutcome, readsCount: boolean) => boolean };
const RATES: Record<SuiteRateName, Counter> = {
  // A case's pass rate is what each case's test compares: the suite's verdict rests on it.
  passRate: { cases: () => true, counts: (o) => o.passed === true },
  recall: { cases: (e) => e !== NONE, counts: (o) => o.fired === 'expected' },
  falseTriggers: { cases: (e) => e === NONE, counts: (o, reads) => familyFired(o, reads).length > 0 },
  siblingConfusion: { cases: (e) => e !== NONE, counts: (o) => o.fired === 'sibling' },
};

function strata(r: RunToCompare, counter: Counter): Map<string, { successes: number; n: number }> {
  const expectOf = new Map(r.manifest.cases.defs.map((d) => [d.id, d.expect]));
  const reads = r.results.options.readCountsAsFiring;
  const out = new Map<string, { successes: number; n: number }>();
  for (const o of r.results.outcomes) {
    const expect = expectOf.get(o.caseId);
    if (o.arm !== 'skill' || expect === undefined || !counter.cases(expect) || NO_EVIDENCE.has(o.status)) continue;
    // The pass rate counts scored trials; the routing rates every trial with evidence (a budget stop included).
    if (counter === RATES.passRate && o.passed === null) continue;
    const s = out.get(o.caseId) ?? { successes: 0, n: 0 };
    s.n++;
    if (counter.counts(o, reads)) s.successes++;
    out.set(o.caseId, s);
  }
  return out;
}

/** The suite's rates, candidate − base, each case weighing the same, over the cases both runs have. Pure. */
export function suiteRates(base: RunToCompare, candidate: RunToCompare, confidence: number): SuiteRates {
  const rate = (counter: Counter) => {
    const [b, c] = [strata(base, counter), strata(candidate, counter)];
    const paired: Stratum[] = [...c].filter(([id]) => b.has(id)).map(([id, cand]) => ({ base: b.get(id)!, candidate: cand }));
    return stratifiedDifference(paired, confidence);
  };
  return { passRate: rate(RATES.passRate), recall: rate(RATES.recall), falseTriggers: rate(RATES.falseTriggers), siblingConfusion: rate(RATES.siblingConfusion) };
}

/**
 * The suite-level verdict: one test across the skill arm's cases, one-sided toward regression, stratified by case
 * (each case's own exact test under its runs' stopping rules), combined by the truncated product of their p-values
 * against the exact null of each case's test where it is known. A model update rarely
 * breaks one case; it moves many, which the combination sees long before any one case is significant.
 * REGRESSED when the combined "worse" p-value is at most α; else IMPROVED when the "better" one is; else UNCHANGED
 * when the suite's pass rate moved less than the margin either way; else UNDECIDED.
 */
export function suiteChange(evidence: readonly CaseEvidence[], rates: SuiteRates, o: CompareOptions): SuiteChange {
  const scored = evidence.filter((e) => e.change.base.n > 0 && e.change.candidate.n > 0);
  const pRegressed = truncatedProduct(scored.map((e) => e.worse), SUITE_TRUNCATION);
  const pImproved = truncatedProduct(scored.map((e) => e.better), SUITE_TRUNCATION);
  const moved = scored
    .map((e) => e.change)
    .filter((c) => Number.isFinite(c.difference.diff) && c.difference.diff !== 0)
    .sort((a, b) => Math.abs(b.difference.diff) - Math.abs(a.difference.diff) || a.caseId.localeCompare(b.caseId))
    .slice(0, MOVED_SHOWN)
    .map((c) => ({ caseId: c.caseId, diff: c.difference.diff, change: c.change }));
  const common = { cases: scored.length, pRegressed, pImproved, rates, moved };
  const pass = rates.passRate;
  const over = `${scored.length} cases`;
  if (scored.length === 0) return { ...common, change: 'UNDECIDED', reason: 'no case has scored trials in both runs' };
  if (pRegressed <= o.alpha) return { ...common, change: 'REGRESSED', reason: `the cases' pass rates dropped across the suite: combined p ${pValueText(pRegressed)} ≤ ${o.alpha} over ${over}` };
  if (pImproved <= o.alpha) return { ...common, change: 'IMPROVED', reason: `the cases' pass rates rose across the suite: combined p ${pValueText(pImproved)} ≤ ${o.alpha} over ${over}` };
  if (pass.lo > -o.margin && pass.hi < o.margin) return { ...common, change: 'UNCHANGED', reason: `no drop across the suite (combined p ${pValueText(pRegressed)}), and the mean pass rate's change lies within ±${o.margin}` };
  return { ...common, change: 'UNDECIDED', reason: `no significant drop across the suite (combined p ${pValueText(pRegressed)}), yet a change of ±${o.margin} in the mean pass rate is not ruled out` };
}
