import { falselyFired, type Expectation } from '../run/expectation.js';
import { NO_EVIDENCE, NONE, type TrialOutcome } from '../run/schema.js';
import { truncatedProduct, type CombinedEvidence } from '../stats/combine-p-values.js';
import { stratifiedDifference, type Stratum } from '../stats/stratified-difference.js';
import { familyFired } from '../stats/summary.js';
import { pValueText } from '../util/text.js';
import { SUITE_TRUNCATION, type CompareOptions } from './compare-defaults.js';
import type { CaseChange, RunToCompare, SuiteChange, SuiteDifference, SuiteRateName, SuiteRates } from './comparison.js';

/** A case's evidence as the suite-level test takes it: its change, and its one-sided p-values either way. */
export interface CaseEvidence {
  change: CaseChange;
  worse: CombinedEvidence;
  better: CombinedEvidence;
}

/** How many of the cases that moved most the verdict names. */
const MOVED_SHOWN = 3;

/** Per case, the trials (of the skill arm, with evidence, a budget stop included) that count for a routing rate, and those that show it. */
type Counter = { cases: (expect: string) => boolean; counts: (o: TrialOutcome, readsCount: boolean, c: Expectation) => boolean };
type RoutingRate = Exclude<SuiteRateName, 'passRate'>;
const ROUTING_RATES: Record<RoutingRate, Counter> = {
  recall: { cases: (e) => e !== NONE, counts: (o) => o.fired === 'expected' },
  falseTriggers: { cases: (e) => e === NONE, counts: (o, reads, c) => falselyFired(c, familyFired(o, reads)).length > 0 },
  siblingConfusion: { cases: (e) => e !== NONE, counts: (o) => o.fired === 'sibling' },
};

function strata(r: RunToCompare, counter: Counter): Map<string, { successes: number; n: number }> {
  const defOf = new Map(r.manifest.cases.defs.map((d) => [d.id, d]));
  const reads = r.results.options.readCountsAsFiring;
  const out = new Map<string, { successes: number; n: number }>();
  for (const o of r.results.outcomes) {
    const def = defOf.get(o.caseId);
    if (o.arm !== 'skill' || def === undefined || !counter.cases(def.expect) || NO_EVIDENCE.has(o.status)) continue;
    const s = out.get(o.caseId) ?? { successes: 0, n: 0 };
    s.n++;
    if (counter.counts(o, reads, def)) s.successes++;
    out.set(o.caseId, s);
  }
  return out;
}

/**
 * The suite's routing rates, candidate − base, each case weighing the same, over the cases both runs have: what
 * fired, over every trial with evidence (descriptive: a case's design stopped on its pass rate, not on these). Pure.
 */
export function routingRates(base: RunToCompare, candidate: RunToCompare, confidence: number): Record<RoutingRate, SuiteDifference> {
  const rate = (counter: Counter) => {
    const [b, c] = [strata(base, counter), strata(candidate, counter)];
    const paired: Stratum[] = [...c].filter(([id]) => b.has(id)).map(([id, cand]) => ({ base: b.get(id)!, candidate: cand }));
    return stratifiedDifference(paired, confidence);
  };
  return {
    recall: rate(ROUTING_RATES.recall),
    falseTriggers: rate(ROUTING_RATES.falseTriggers),
    siblingConfusion: rate(ROUTING_RATES.siblingConfusion),
  };
}

/** A case's ids, named. */
const named = (cs: readonly CaseChange[]) => cs.map((c) => c.caseId).join(', ');

/**
 * The suite-level verdict, one-sided toward regression. REGRESSED when a case is REGRESSED, or when one test across
 * the skill arm's cases (stratified by case: each case's own exact test under its runs' stopping rules, combined by
 * the truncated product of their p-values against each test's exact null) says one case or more dropped: a model
 * update rarely breaks one case, it moves many, which the combination sees before any one case is significant.
 * UNCHANGED only when every case is UNCHANGED (or IMPROVED): the data rule out a drop of the margin in each case,
 * never in the mean alone (two broken cases among eleven average out under any margin). That is an
 * intersection–union test: its null, "some case dropped by the margin", is wrong only if every case's is, so the
 * chance of a false UNCHANGED is at most one case's, the level of its interval, with no correction across cases.
 * Else IMPROVED when the combined "better" p-value is at most α; else UNDECIDED, naming the cases left open.
 */
export function suiteChange(
  evidence: readonly CaseEvidence[],
  routing: Record<RoutingRate, SuiteDifference>,
  o: CompareOptions,
): SuiteChange {
  const scored = evidence.filter((e) => e.change.base.n > 0 && e.change.candidate.n > 0);
  // The pass rate as the cases' tests count it (a design's trials up to its decision), with each case's estimate.
  const passRate = stratifiedDifference(
    scored.map(({ change: c }) => ({
      base: c.base,
      candidate: c.candidate,
      ...(c.method === 'design' ? { difference: c.difference.diff } : {}),
    })),
    1 - o.alpha,
  );
  const rates: SuiteRates = { passRate, ...routing };
  const pRegressed = truncatedProduct(
    scored.map((e) => e.worse),
    SUITE_TRUNCATION,
  );
  const pImproved = truncatedProduct(
    scored.map((e) => e.better),
    SUITE_TRUNCATION,
  );
  const moved = scored
    .map((e) => e.change)
    .filter((c) => Number.isFinite(c.difference.diff) && c.difference.diff !== 0)
    .sort((a, b) => Math.abs(b.difference.diff) - Math.abs(a.difference.diff) || a.caseId.localeCompare(b.caseId))
    .slice(0, MOVED_SHOWN)
    .map((c) => ({ caseId: c.caseId, diff: c.difference.diff, change: c.change }));
  const common = { cases: scored.length, pRegressed, pImproved, rates, moved };
  const over = `${scored.length} cases`;
  const changes = evidence.map((e) => e.change);
  const regressed = changes.filter((c) => c.change === 'REGRESSED');
  const open = changes.filter((c) => c.change === 'UNDECIDED');
  const openText = () => {
    const drop = open.filter((c) => !(c.difference.lo > -o.margin));
    const which = drop.length === open.length ? `a drop of ${o.margin}` : `a change of ±${o.margin}`;
    return `${which} is not ruled out in ${open.length} of ${evidence.length} cases (${named(open)})`;
  };
  if (scored.length === 0) return { ...common, change: 'UNDECIDED', reason: 'no case has scored trials in both runs' };
  if (pRegressed <= o.alpha || regressed.length)
    return {
      ...common,
      change: 'REGRESSED',
      reason: [
        regressed.length ? `${named(regressed)} REGRESSED` : '',
        pRegressed <= o.alpha
          ? `pass rates dropped in the suite (in one case or more): combined p ${pValueText(pRegressed)} ≤ ${o.alpha} over ${over}`
          : '',
      ]
        .filter(Boolean)
        .join('; '),
    };
  if (open.length === 0 && changes.every((c) => c.change === 'UNCHANGED' || c.change === 'IMPROVED'))
    return {
      ...common,
      change: pImproved <= o.alpha ? 'IMPROVED' : 'UNCHANGED',
      reason: `every case's interval rules out a drop of ${o.margin} (no case dropped by the margin)${pImproved <= o.alpha ? `, and pass rates rose in the suite: combined p ${pValueText(pImproved)} ≤ ${o.alpha}` : `; combined p of a drop ${pValueText(pRegressed)}`}`,
    };
  if (pImproved <= o.alpha)
    return {
      ...common,
      change: 'IMPROVED',
      reason: `pass rates rose in the suite (in one case or more): combined p ${pValueText(pImproved)} ≤ ${o.alpha} over ${over}, yet ${openText()}`,
    };
  return {
    ...common,
    change: 'UNDECIDED',
    reason: `no significant drop across the suite (combined p ${pValueText(pRegressed)}), yet ${openText()}`,
  };
}
