import { binomialTestAbove, binomialTestBelow, fixedNEquivalent, trialsForPerfectPass } from '../stats/binomial-test.js';
import { adjustPValues, type Correction } from '../stats/multiple-testing.js';
import { caseDesign, caseDesignKind } from '../stats/case-design.js';
import { modeOfDesign } from '../stats/decision-modes/registry.js';
import { decideSequential, exactErrors, type SequentialDesign } from '../stats/sequential-design.js';
import { llrAt } from '../stats/sprt.js';
import { stagewiseEstimate } from '../stats/stagewise.js';
import { plural } from '../util/text.js';
import type { InconclusivePolicy } from '../run/config-schema.js';
import { EXIT } from '../run/exit-codes.js';
import { JUDGE_ERROR, type CaseVerdict, type GradableCase, type SprtParams, type TrialOutcome, type Verdict } from '../run/schema.js';

function skillArm(outcomes: TrialOutcome[], caseId: string): TrialOutcome[] {
  return outcomes.filter((o) => o.caseId === caseId && o.arm === 'skill').sort((a, b) => a.n - b.n);
}

function counts(arm: TrialOutcome[]) {
  const scored = arm.filter((o) => o.passed !== null);
  return {
    trials: arm.length,
    scored: scored.length,
    passes: scored.filter((o) => o.passed).length,
    excluded: arm.length - scored.length,
    /** Of the excluded, the trials the judge gave no verdict on (the rest: infra, isolation, a crash). */
    judgeErrors: arm.filter((o) => o.excludedBecause === JUDGE_ERROR).length,
    sequence: scored.map((o) => o.passed!),
    /** Trial numbers of the scored trials, in order. */
    numbers: scored.map((o) => o.n),
  };
}

const tooFewUsable = (c: { excluded: number; scored: number }, p: SprtParams) => c.excluded > 0 && c.scored < p.minTrials;

/** Why a case is ERROR: too few usable trials, and what left the others out (the judge named apart from infra). */
function tooFewReason(k: { scored: number; excluded: number; judgeErrors: number }): string {
  const infra = k.excluded - k.judgeErrors;
  const why = [
    k.judgeErrors > 0 && `${k.judgeErrors} with no verdict from the judge on a judged item`,
    (infra > 0 || k.judgeErrors === 0) && `${infra} infra/isolation/crash`,
  ].filter(Boolean);
  return `only ${k.scored} usable trials (${why.join(', ')})`;
}

const decided = (d: SequentialDesign) => `the design decides by ${d.maxTrials} trials`;

/**
 * Sequential verdict, replayed over the scored skill-arm trials in trial order through the case's stored design:
 * the same decision the run made live. A case stopped by the design (decided, or at its last stage) also gets the
 * rate adjusted for stopping early, with an exact interval under the design's stopping rule.
 */
export function sequentialVerdict(c: Pick<GradableCase, 'id' | 'decision' | 'design'>, outcomes: TrialOutcome[]): CaseVerdict {
  const k = counts(skillArm(outcomes, c.id));
  const p = c.decision;
  const design = caseDesign(c);
  const d = decideSequential(k.sequence, design);
  const decidingTrial = k.numbers[d.trials - 1] ?? 0;
  const afterDecision = skillArm(outcomes, c.id).filter((o) => o.n > decidingTrial).length;
  const errors = exactErrors(design);
  const stored = caseDesignKind(c);
  const base = {
    caseId: c.id,
    mode: modeOfDesign(stored.kind),
    params: p,
    trials: k.trials,
    scored: k.scored,
    passes: k.passes,
    excluded: k.excluded,
    llr: llrAt(d.trials, d.passes, p),
    fixedNEquivalent: fixedNEquivalent(p.threshold, p.threshold - p.delta, p.alpha, p.beta),
    design: { kind: stored.kind, maxTrials: c.design?.maxTrials ?? design.maxTrials, alpha: errors.alpha, beta: errors.beta },
  };
  const stopped = d.state !== 'continue' || d.trials >= design.maxTrials;
  const estimate = stopped && d.trials > 0 ? { estimate: stagewiseEstimate(design, d.trials, d.passes) } : {};
  const test = stored.names.verdict;
  const p1 = (p.threshold - p.delta).toFixed(2);
  // What a decision shows, and no more: a PASS rules out p ≤ p1 (at β), a FAIL rules out p ≥ p0 (at α).
  const after = `after ${plural(d.trials, 'trial')}`;
  const decision = { ...base, ...estimate, decidedAt: d.trials, afterDecision, descriptiveInterval: true };
  if (d.state === 'accept')
    return { ...decision, verdict: 'PASS', reason: `${test} ruled out p ≤ ${p1} (β ${errors.beta.toFixed(3)}) ${after}` };
  if (d.state === 'reject')
    return { ...decision, verdict: 'FAIL', reason: `${test} ruled out p ≥ ${p.threshold} (α ${errors.alpha.toFixed(3)}) ${after}` };
  if (tooFewUsable(k, p) || k.scored === 0) {
    return {
      ...base,
      verdict: 'ERROR',
      descriptiveInterval: false,
      reason: tooFewReason(k),
    };
  }
  const between = `${k.passes} of ${k.scored} passed: the evidence sits between ${p.threshold} and ${p1}`;
  const own = c.design?.maxTrials ?? design.maxTrials;
  const capped =
    p.maxTrials < own
      ? `maxTrials ${p.maxTrials} is below the ${own} by which the design decides (remove or raise maxTrials)`
      : `undecided at maxTrials ${p.maxTrials} (raise maxTrials, or widen delta)`;
  return {
    ...base,
    ...estimate,
    verdict: 'INCONCLUSIVE',
    descriptiveInterval: stopped,
    reason: stopped
      ? `${between}; ${capped}`
      : `undecided after ${plural(k.scored, 'trial')}, stopped before ${decided(design)}; ${between}`,
  };
}

/**
 * Fixed-N verdicts: FAIL when the exact test of "p ≥ p0" rejects at α after correction across cases; PASS when
 * the exact test of "p ≤ p1" rejects at β (the rate is shown to be above p1); INCONCLUSIVE otherwise.
 */
export function fixedVerdicts(
  cases: (GradableCase & { decision: SprtParams })[],
  outcomes: TrialOutcome[],
  correction: Correction,
): CaseVerdict[] {
  const rows = cases.map((c) => ({ c, k: counts(skillArm(outcomes, c.id)) }));
  const testable = rows.filter((r) => r.k.scored > 0);
  const raw = testable.map((r) => binomialTestBelow(r.k.passes, r.k.scored, r.c.decision.threshold));
  const adjusted = adjustPValues(raw, correction);
  const adjustedOf = new Map(testable.map((r, i) => [r.c.id, { raw: raw[i]!, adj: adjusted[i]! }]));
  return rows.map(({ c, k }) => {
    const p = c.decision;
    const base = {
      caseId: c.id,
      mode: 'fixed' as const,
      params: p,
      trials: k.trials,
      scored: k.scored,
      passes: k.passes,
      excluded: k.excluded,
      descriptiveInterval: false,
      fixedNEquivalent: fixedNEquivalent(p.threshold, p.threshold - p.delta, p.alpha, p.beta),
    };
    const t = adjustedOf.get(c.id);
    if (!t || tooFewUsable(k, p)) return { ...base, verdict: 'ERROR' as const, reason: tooFewReason(k) };
    const pAbove = binomialTestAbove(k.passes, k.scored, p.threshold - p.delta);
    const tested = { ...base, pBelow: t.raw, pBelowAdjusted: t.adj, pAbove };
    if (t.adj <= p.alpha)
      return {
        ...tested,
        verdict: 'FAIL' as const,
        reason: `${k.passes}/${k.scored} is below ${p.threshold} (p = ${t.adj.toPrecision(2)} ≤ α ${p.alpha})`,
      };
    if (pAbove <= p.beta)
      return {
        ...tested,
        verdict: 'PASS' as const,
        reason: `${k.passes}/${k.scored} is above ${(p.threshold - p.delta).toFixed(2)} (p = ${pAbove.toPrecision(2)} ≤ β ${p.beta})`,
      };
    const p1 = p.threshold - p.delta;
    const perfect = trialsForPerfectPass(p1, p.beta);
    const tooFew =
      k.scored < perfect
        ? `; even ${k.scored} of ${k.scored} could not, since ${p1.toFixed(2)}^${k.scored} > β ${p.beta}: at least ${perfect} trials are needed`
        : '';
    return {
      ...tested,
      verdict: 'INCONCLUSIVE' as const,
      reason: `${k.passes} of ${k.scored} passed: too few trials to tell ${p.threshold} from ${p1.toFixed(2)}${tooFew} (about ${base.fixedNEquivalent ?? '?'} decide a rate near the threshold)`,
    };
  });
}

/** The verdict codes from the worst down: what several runs' codes combine to (the first any of them gives). */
const VERDICT_CODES_WORST_FIRST = [EXIT.fail, EXIT.error, EXIT.inconclusive, EXIT.pass];

/** The exit code of several runs' verdicts (several agents): the worst any of them gives, by meaning, not by number. */
export function worstExitCode(codes: readonly number[]): number {
  return VERDICT_CODES_WORST_FIRST.find((c) => codes.includes(c)) ?? Math.max(...codes);
}

export function exitCode(verdicts: readonly CaseVerdict[], policy: InconclusivePolicy): number {
  const has = (v: Verdict) => verdicts.some((x) => x.verdict === v);
  if (has('FAIL')) return EXIT.fail;
  if (has('ERROR')) return EXIT.error;
  if (has('INCONCLUSIVE')) return policy === 'fail' ? EXIT.fail : policy === 'warn' ? EXIT.inconclusive : EXIT.pass;
  return EXIT.pass;
}
