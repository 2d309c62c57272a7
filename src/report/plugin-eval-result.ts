import type { Results, RunManifest, TrialOutcome } from '../run/schema.js';
import { expectLabel } from '../run/expectation.js';
import type { Comparison } from '../verdict/comparison.js';
import { round, spread, trialChecks } from './benchmark.js';
import { jsonFormatReporter } from './json.js';
import { caseFacts } from './wording.js';

/*
 * A run as `claude plugin eval`'s aggregate result (`aggregate-result.json`, schema version 1): `cases[]`, each with
 * its runs in `arms.with` (the skill arm) and `arms.without` (the ablation arm) and its `aggregates` (the mean run
 * score of the with arm, and the with − without delta), and the suite's `aggregates`. A run's graders are its
 * routing check (`tool_used`) and its judged items (`llm`); its score the share it passed. A case counts as passed
 * when skillprobe's verdict is PASS, which weighs every trial sequentially, not by a threshold on the mean. A trial
 * that carried no evidence is left out (it measures nothing) and counted in `skipped`.
 */

const mean = (xs: readonly number[]) => spread(xs)?.mean ?? null;

function pluginEvalRun(o: TrialOutcome, label: string) {
  const graders = trialChecks(o, label).map((c, i) => ({
    name: i === 0 ? 'routing' : c.text,
    type: i === 0 ? 'tool_used' : 'llm',
    passed: c.passed,
    score: c.passed ? 1 : 0,
    details: c.evidence,
  }));
  return {
    run: o.n,
    passed: o.passed === true,
    score: round(graders.filter((g) => g.passed).length / graders.length),
    graders,
    durationSeconds: o.wallMs === undefined ? null : round(o.wallMs / 1000, 1),
    costUsd: o.costUsd ?? null,
  };
}

/** One run of skillprobe as plugin eval's aggregate result: a pure function of the manifest and the results. */
export function pluginEvalResultOf(manifest: RunManifest, results: Results) {
  const verdicts = new Map(results.verdicts.map((v) => [v.caseId, v.verdict]));
  const skillArm = new Map(results.summary.cases.filter((c) => c.arm === 'skill').map((c) => [c.caseId, c]));
  const scored = results.outcomes.filter((o) => o.passed !== null);
  const cases = manifest.cases.defs.map((d) => {
    const runsOf = (arm: TrialOutcome['arm']) =>
      scored
        .filter((o) => o.caseId === d.id && o.arm === arm)
        .sort((a, b) => a.n - b.n)
        .map((o) => pluginEvalRun(o, expectLabel(d)));
    const [withRuns, withoutRuns] = [runsOf('skill'), runsOf('ablation')];
    const [score, baseline] = [mean(withRuns.map((r) => r.score)), mean(withoutRuns.map((r) => r.score))];
    return {
      name: d.id,
      expect: expectLabel(d),
      verdict: verdicts.get(d.id) ?? null,
      // Why its trials passed or failed, as every report says it (what fired, what the model did instead).
      facts: skillArm.has(d.id) ? caseFacts(skillArm.get(d.id)!).map((f) => f.text) : [],
      aggregates: { score, delta: score !== null && baseline !== null ? round(score - baseline) : null },
      arms: { with: withRuns, ...(manifest.config.arms.includes('ablation') ? { without: withoutRuns } : {}) },
    };
  });
  const scores = cases.flatMap((c) => (c.aggregates.score === null ? [] : [c.aggregates.score]));
  const deltas = cases.flatMap((c) => (c.aggregates.delta === null ? [] : [c.aggregates.delta]));
  const started = Date.parse(results.run.startedAt);
  const ended = results.run.endedAt === undefined ? Number.NaN : Date.parse(results.run.endedAt);
  return {
    schemaVersion: 1,
    harness: `skillprobe ${results.harnessVersion}`,
    runId: results.runId,
    // The format knows one CLI; `agent` beside it names which one ran, so a reporter needs no agent's name.
    claudeVersion: results.run.agent.cliVersion ?? null,
    agent: results.run.agent,
    model: results.run.model.reported ?? results.run.model.requested,
    judgeModel: results.judge?.model ?? null,
    simulated: results.run.simulated,
    ...(results.run.auth ? { auth: results.run.auth } : {}),
    costUsd: results.run.costUsd ?? null,
    durationSeconds: Number.isFinite(ended - started) ? round((ended - started) / 1000, 1) : null,
    stopReason: results.run.status,
    skipped: results.outcomes.length - scored.length,
    aggregates: {
      overallScore: mean(scores),
      casesPassed: cases.filter((c) => c.verdict === 'PASS').length,
      casesTotal: cases.length,
      meanDelta: mean(deltas),
    },
    cases,
  };
}

/** Two runs compared: the candidate's cases, each scored by its skill-arm rate, its delta the change from the base. */
function comparisonResult(c: Comparison) {
  const cases = c.cases
    .filter((x) => x.arm === 'skill')
    .map((x) => {
      const [score, base] = [
        x.candidate.n ? round(x.candidate.successes / x.candidate.n) : null,
        x.base.n ? round(x.base.successes / x.base.n) : null,
      ];
      return {
        name: x.caseId,
        change: x.change,
        aggregates: { score, delta: score !== null && base !== null ? round(score - base) : null },
      };
    });
  return {
    schemaVersion: 1,
    compared: { candidate: c.candidate.runId, base: c.base.runId },
    aggregates: {
      overallScore: mean(cases.flatMap((x) => (x.aggregates.score === null ? [] : [x.aggregates.score]))),
      casesTotal: cases.length,
      meanDelta: mean(cases.flatMap((x) => (x.aggregates.delta === null ? [] : [x.aggregates.delta]))),
    },
    cases,
    missingData: c.missingData,
  };
}

/** `claude plugin eval`'s aggregate-result.json: a run, each agent's run of several, or a comparison. */
export const pluginEvalReporter = jsonFormatReporter({
  name: 'plugin-eval',
  description: "claude plugin eval's aggregate-result.json (arms with / without are the skill and ablation arms)",
  ofRun: pluginEvalResultOf,
  ofComparison: comparisonResult,
});
