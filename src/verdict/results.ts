import { decisionMode } from '../stats/decision-modes/registry.js';
import { summarise } from '../stats/summary.js';
import {
  RUN_FORMAT_VERSION,
  type DamagedTrial,
  type Results,
  type RunFacts,
  type RunManifest,
  type TrialOutcome,
  type TrialUsage,
} from '../run/schema.js';
import { EXIT } from '../run/exit-codes.js';
import { exitCode, fixedVerdicts, sequentialVerdict } from './verdict.js';

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
export function buildResults(manifest: RunManifest, graded: readonly TrialOutcome[], damaged: readonly DamagedTrial[], now: Date): Results {
  const decision = manifest.config.decision;
  const grading = manifest.config.grading;
  // One order, whatever order the trials finished in: a regrade reproduces a run's results exactly.
  const outcomes = [...graded].sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n);
  const defs = manifest.cases.defs;
  const verdicts = decisionMode(decision.mode).sequential
    ? defs.map((c) => sequentialVerdict(c, outcomes))
    : fixedVerdicts(defs, outcomes, decision.correction);
  const readCountsAsFiring = grading.readTriggers === 'fire';
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
    exitCode: resultsExitCode(exitCode(verdicts, decision.inconclusive), damaged.length),
  };
}
