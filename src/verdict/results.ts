import { decisionMode } from '../stats/decision-modes/registry.js';
import { summarise } from '../stats/summary.js';
import { armCosts } from '../stats/arm-cost.js';
import { settledSavings } from './settled-savings.js';
import {
  JUDGE_ERROR,
  RUN_FORMAT_VERSION,
  type CaseVerdict,
  type DamagedTrial,
  type JudgeFindings,
  type JudgeGrading,
  type Results,
  type RunFacts,
  type RunManifest,
  type TrialOutcome,
  type TrialUsage,
} from '../run/schema.js';
import { EXIT } from '../run/exit-codes.js';
import { exitCode, fixedVerdicts, sequentialVerdict } from './verdict.js';
import type { JudgeSample } from '../checks/judge-prompt.js';
import { DEFAULT_UNSTABLE_ALPHA, judgeStability } from '../stats/judge-stability.js';

/** The trials' reported token usage, summed over those that reported it. */
export function tokenTotals(outcomes: readonly TrialOutcome[]): RunFacts['tokens'] {
  const used = outcomes.flatMap((o) => (o.usage ? [o.usage] : []));
  if (used.length === 0) return undefined;
  const sum = (f: (u: TrialUsage) => number) => used.reduce((a, u) => a + f(u), 0);
  const writes = used.some((u) => u.cacheWrite !== undefined);
  return {
    input: sum((u) => u.input),
    cached: sum((u) => u.cached),
    ...(writes ? { cacheWrite: sum((u) => u.cacheWrite ?? 0) } : {}),
    output: sum((u) => u.output),
    trials: used.length,
  };
}

export function runFacts(m: RunManifest, outcomes: readonly TrialOutcome[]): RunFacts {
  const costs = outcomes.map((o) => o.costUsd).filter((c): c is number => c !== undefined);
  const tokens = tokenTotals(outcomes);
  const price = m.config.prices?.[m.model];
  return {
    agent: { id: m.agent.id, cliVersion: m.agent.cliVersion },
    model: { requested: m.model, reported: m.reportedModel },
    simulated: m.simulator !== null,
    simulator: m.simulator,
    auth: m.config.auth,
    status: m.status,
    startedAt: m.startedAt,
    endedAt: m.endedAt,
    trials: m.trials,
    decision: m.config.decision,
    grading: m.config.grading,
    ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
    ...(costs.length && m.config.auth === 'login' ? { costNotional: true as const } : {}),
    ...(tokens ? { tokens } : {}),
    ...(price ? { tokenPrice: { ...price, model: m.model } } : {}),
    ...(m.concurrency ? { concurrency: m.concurrency } : {}),
  };
}

/**
 * The exit code of a run's results: the verdicts' code, except that trials the store could not read are
 * missing data, never a pass: then at least ERROR (4), unless a case already FAILs.
 */
export function resultsExitCode(verdictCode: number, damaged: number): number {
  return damaged > 0 && verdictCode !== EXIT.fail ? EXIT.error : verdictCode;
}

/** Verdicts and statistics over graded outcomes. Pure: the manifest, outcomes and damaged trials in, the results out. */
export function buildResults(
  manifest: RunManifest,
  graded: readonly TrialOutcome[],
  damaged: readonly DamagedTrial[],
  now: Date,
  judgeGrading?: JudgeGrading,
): Results {
  const decision = manifest.config.decision;
  const grading = manifest.config.grading;
  // One order, whatever order the trials finished in: a regrade reproduces a run's results exactly.
  const outcomes = [...graded].sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n);
  const defs = manifest.cases.defs;
  const judge = judgeGrading && judgeFindings(judgeGrading, outcomes, manifest);
  const settled = settledSavings(outcomes);
  const decide = (trials: TrialOutcome[]) =>
    decisionMode(decision.mode).sequential
      ? defs.map((c) => sequentialVerdict(c, trials))
      : fixedVerdicts(defs, trials, decision.correction);
  const decided = decide(outcomes);
  const verdicts = judge
    ? markUntrustedJudge(manifest.config.judge?.gate ? gateOnJudge(decided, decide(withoutJudgedItems(outcomes)), judge) : decided, judge)
    : decided;
  const readCountsAsFiring = grading.readTriggers === 'fire';
  const verdictCode = resultsExitCode(exitCode(verdicts, decision.inconclusive), damaged.length);
  const summary = summarise(
    defs,
    outcomes,
    manifest.family.map((m) => m.dir),
    manifest.config.arms,
    { confidence: grading.confidence, readCountsAsFiring, neighbours: neighbourColumns(manifest) },
  );
  return {
    version: RUN_FORMAT_VERSION,
    runId: manifest.runId,
    harnessVersion: manifest.harness.version,
    run: runFacts(manifest, outcomes),
    gradedAt: now.toISOString(),
    options: { readCountsAsFiring, budgetStopsFail: grading.budgetStops === 'fail' },
    outcomes,
    summary,
    verdicts,
    damaged: [...damaged],
    ...(judge ? { judge } : {}),
    armCosts: armCosts(defs, outcomes, summary.ablation, manifest.familyListing, grading.confidence),
    ...(settled ? { settled } : {}),
    exitCode: verdictCode,
  };
}

/** Per judged case, each judged trial's samples per item, in trial order: what stability is measured on. */
function judgedSamples(outcomes: readonly TrialOutcome[]): Map<string, JudgeSample[][][]> {
  const byCase = new Map<string, JudgeSample[][][]>();
  for (const o of outcomes) if (o.judge) byCase.set(o.caseId, [...(byCase.get(o.caseId) ?? []), o.judge.items.map((i) => i.samples)]);
  return byCase;
}

/** The judge's findings with each judged case's stability, measured on its scored trials' item samples. */
function judgeFindings(grading: JudgeGrading, outcomes: readonly TrialOutcome[], manifest: RunManifest): JudgeFindings {
  const rule = {
    maxFlipRate: grading.maxFlipRate,
    alpha: manifest.config.judge?.alpha ?? DEFAULT_UNSTABLE_ALPHA,
    confidence: manifest.config.grading.confidence,
  };
  const stability = [...judgedSamples(outcomes)].map(([caseId, trials]) => {
    const s = judgeStability(trials, rule);
    return {
      caseId,
      comparable: s.comparable,
      disagreeing: s.disagreeing,
      share: s.share,
      p: s.noEvidence ? null : s.pValue,
      unstable: s.unstable,
    };
  });
  return { ...grading, stability };
}

/** Each judged case whose judge cannot be trusted there, and why: uncalibrated (everywhere), or UNSTABLE on the case. */
function untrustedJudge(judge: JudgeFindings): Map<string, NonNullable<CaseVerdict['untrustedJudge']>> {
  const untrusted = new Map<string, NonNullable<CaseVerdict['untrustedJudge']>>();
  for (const s of judge.stability) {
    if (s.unstable) untrusted.set(s.caseId, 'unstable');
    else if (!judge.calibrated) untrusted.set(s.caseId, 'uncalibrated');
  }
  return untrusted;
}

/** Each verdict of a judged case its judge cannot back, marked so: every report says so beside the verdict. */
function markUntrustedJudge(verdicts: CaseVerdict[], judge: JudgeFindings): CaseVerdict[] {
  const untrusted = untrustedJudge(judge);
  return verdicts.map((v) => (untrusted.has(v.caseId) ? { ...v, untrustedJudge: untrusted.get(v.caseId) } : v));
}

/** The trials as their other checks graded them, before the judge's items were scored: the judge set aside. */
function withoutJudgedItems(outcomes: readonly TrialOutcome[]): TrialOutcome[] {
  return outcomes.map((o) => {
    if (!o.judge?.scored || o.judge.passedWithoutItems === undefined) return o;
    const { excludedBecause, ...rest } = o;
    return { ...rest, passed: o.judge.passedWithoutItems, ...(excludedBecause === JUDGE_ERROR ? {} : { excludedBecause }) };
  });
}

/**
 * With `judge.gate`, a judge that cannot be trusted decides nothing: where its items decide a judged case's verdict
 * (its checks UNSTABLE there, or the judge uncalibrated, when a PASS would claim checks nobody made), the case is
 * INCONCLUSIVE. The judge only ever takes passes away, so a case that FAILs on its other checks alone (`without`: the
 * verdicts with the judge set aside) FAILs whatever it says: the gate never turns a real failure into a warning. An
 * ERROR already says more and stands.
 */
function gateOnJudge(verdicts: CaseVerdict[], without: CaseVerdict[], judge: JudgeFindings): CaseVerdict[] {
  const untrusted = untrustedJudge(judge);
  const alone = new Map(without.map((w) => [w.caseId, w]));
  return verdicts.map((v) => {
    const why = untrusted.get(v.caseId);
    if (!why) return v;
    const w = alone.get(v.caseId)!;
    if (w.verdict === 'FAIL')
      return v.verdict === 'FAIL'
        ? v
        : { ...w, reason: `fails on its other checks alone, whatever the judge says (judge.gate): ${w.reason}` };
    if (v.verdict === 'ERROR') return v;
    const judgeIs = why === 'unstable' ? 'the judge is UNSTABLE on this case' : 'the judge is UNCALIBRATED, so its checks were not scored';
    return { ...v, verdict: 'INCONCLUSIVE', reason: `${judgeIs} (judge.gate): ${v.reason}` };
  });
}

/** The neighbours the confusion matrix has a column for: the suite's, then each case's own, each once. */
function neighbourColumns(manifest: RunManifest): string[] {
  return [...new Set([...(manifest.neighbours ?? []), ...manifest.cases.defs.flatMap((c) => c.neighbours ?? [])].map((n) => n.dir))];
}
