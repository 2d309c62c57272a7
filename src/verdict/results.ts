import { decisionMode } from '../stats/decision-modes/registry.js';
import { summarise } from '../stats/summary.js';
import {
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
    status: m.status,
    startedAt: m.startedAt,
    endedAt: m.endedAt,
    trials: m.trials,
    decision: m.config.decision,
    grading: m.config.grading,
    ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
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
  const decided = decisionMode(decision.mode).sequential
    ? defs.map((c) => sequentialVerdict(c, outcomes))
    : fixedVerdicts(defs, outcomes, decision.correction);
  const verdicts = judge && manifest.config.judge?.gate ? gateOnJudge(decided, judge) : decided;
  const readCountsAsFiring = grading.readTriggers === 'fire';
  const verdictCode = resultsExitCode(exitCode(verdicts, decision.inconclusive), damaged.length);
  return {
    version: RUN_FORMAT_VERSION,
    runId: manifest.runId,
    harnessVersion: manifest.harness.version,
    run: runFacts(manifest, outcomes),
    gradedAt: now.toISOString(),
    options: { readCountsAsFiring, budgetStopsFail: grading.budgetStops === 'fail' },
    outcomes,
    summary: summarise(
      defs,
      outcomes,
      manifest.family.map((m) => m.dir),
      manifest.config.arms,
      { confidence: grading.confidence, readCountsAsFiring },
    ),
    verdicts,
    damaged: [...damaged],
    ...(judge ? { judge } : {}),
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

/**
 * With `judge.gate`, a judge that cannot be trusted decides nothing: a case whose judged checks are UNSTABLE, or any
 * judged case while the judge is uncalibrated (its verdicts were not scored, so a PASS would claim checks nobody
 * made), is INCONCLUSIVE, which gives exit code 3 unless something else FAILs. An ERROR already says more and stands.
 */
function gateOnJudge(verdicts: CaseVerdict[], judge: JudgeFindings): CaseVerdict[] {
  const unstable = new Set(judge.stability.filter((s) => s.unstable).map((s) => s.caseId));
  const judged = new Set(judge.stability.map((s) => s.caseId));
  return verdicts.map((v) => {
    if (v.verdict === 'ERROR') return v;
    if (unstable.has(v.caseId))
      return { ...v, verdict: 'INCONCLUSIVE', reason: `the judge is UNSTABLE on this case (judge.gate): ${v.reason}` };
    if (!judge.calibrated && judged.has(v.caseId))
      return {
        ...v,
        verdict: 'INCONCLUSIVE',
        reason: `the judge is UNCALIBRATED, so its checks were not scored (judge.gate): ${v.reason}`,
      };
    return v;
  });
}
