import type { Results, RunManifest, TrialOutcome } from '../run/schema.js';
import { expectLabel } from '../run/expectation.js';
import type { Arm } from '../run/config-schema.js';
import type { Comparison } from '../verdict/comparison.js';
import { jsonFormatReporter } from './json.js';
import { caseFacts, SIMULATED_NOTE } from './wording.js';

/*
 * A run as skill-creator's `benchmark.json`, the file its review viewer opens: `metadata`, one `runs` entry per scored
 * trial (configuration `with_skill` for the skill arm, `without_skill` for the ablation arm; `eval_id` the case's
 * place in the suite, from 1), `run_summary` (mean, stddev, min, max of each configuration's pass rate, seconds and
 * tokens, and the with − without delta) and `notes`. A trial's expectations are its trigger check and its judged
 * items; its pass rate the share of them it passed. A trial that carried no evidence (infra, isolation) is left out,
 * and counted in the notes: it measures nothing. skillprobe's own verdicts, which weigh every trial sequentially,
 * are in the notes too; the viewer's means are no verdict.
 */

const CONFIGURATION: Record<Arm, string> = { skill: 'with_skill', ablation: 'without_skill' };

export interface BenchmarkExpectation {
  text: string;
  passed: boolean;
  evidence: string;
}

interface BenchmarkRun {
  eval_id: number;
  eval_name: string;
  configuration: string;
  run_number: number;
  result: {
    pass_rate: number;
    passed: number;
    failed: number;
    total: number;
    time_seconds: number | null;
    tokens: number | null;
    tool_calls: number | null;
    errors: number;
  };
  expectations: BenchmarkExpectation[];
  notes: string[];
}

interface Spread {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

export const round = (x: number, places = 4) => Number(x.toFixed(places));

/** Mean, sample standard deviation (0 for one value), min and max; undefined for no values. */
export function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length < 2 ? 0 : values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return { mean: round(mean), stddev: round(Math.sqrt(variance)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

const signed = (x: number, places: number) => `${x >= 0 ? '+' : ''}${x.toFixed(places)}`;

/** What a scored trial was checked for: its routing (and plan), then each judged item; each passed or not, and why. */
export function trialChecks(o: TrialOutcome, label: string): BenchmarkExpectation[] {
  const fired = o.firings.length ? o.firings.map((f) => f.skill).join(', ') : 'no skill';
  // A judged trial's own pass needs its items too; its routing (and plan) alone is `passedWithoutItems`.
  const routing: BenchmarkExpectation = {
    text: `routes as the case expects (${label})${o.plan ? ', its plan checks pass' : ''}`,
    passed: o.judge?.passedWithoutItems ?? o.passed === true,
    evidence: `fired: ${fired}`,
  };
  const items: BenchmarkExpectation[] = (o.judge?.items ?? []).map((i) => ({
    text: i.item,
    passed: i.verdict === 'yes',
    evidence: `judge: ${i.verdict} (samples ${i.samples.join(', ')})`,
  }));
  return [routing, ...items];
}

/** A scored trial as a benchmark run: its checks as expectations. */
function benchmarkRun(o: TrialOutcome, evalId: number, label: string): BenchmarkRun {
  const expectations = trialChecks(o, label);
  const passed = expectations.filter((e) => e.passed).length;
  return {
    eval_id: evalId,
    eval_name: o.caseId,
    configuration: CONFIGURATION[o.arm],
    run_number: o.n,
    result: {
      pass_rate: round(passed / expectations.length),
      passed,
      failed: expectations.length - passed,
      total: expectations.length,
      time_seconds: o.wallMs === undefined ? null : round(o.wallMs / 1000, 1),
      tokens: o.usage ? o.usage.input + o.usage.output : null,
      tool_calls: null,
      errors: (o.judge?.items ?? []).filter((i) => i.verdict === 'judge_error').length,
    },
    expectations,
    notes: o.statusDetail ? [o.statusDetail] : [],
  };
}

/** The summary of each configuration and the with − without delta, as the viewer reads them. */
function runSummary(runs: readonly BenchmarkRun[], configurations: readonly string[]) {
  const of = (c: string, pick: (r: BenchmarkRun) => number | null) =>
    spread(runs.filter((r) => r.configuration === c).flatMap((r) => (pick(r) === null ? [] : [pick(r)!])));
  const metrics = {
    pass_rate: (r: BenchmarkRun) => r.result.pass_rate,
    time_seconds: (r: BenchmarkRun) => r.result.time_seconds,
    tokens: (r: BenchmarkRun) => r.result.tokens,
  };
  const summary: Record<string, unknown> = {};
  for (const c of configurations)
    summary[c] = Object.fromEntries(Object.entries(metrics).flatMap(([name, pick]) => (of(c, pick) ? [[name, of(c, pick)]] : [])));
  const [a, b] = configurations;
  if (a !== undefined && b !== undefined) {
    const places = { pass_rate: 2, time_seconds: 1, tokens: 0 };
    summary.delta = Object.fromEntries(
      Object.entries(metrics).flatMap(([name, pick]) => {
        const [x, y] = [of(a, pick), of(b, pick)];
        return x && y ? [[name, signed(x.mean - y.mean, places[name as keyof typeof places])]] : [];
      }),
    );
  }
  return summary;
}

/** One run of skillprobe as skill-creator's benchmark.json: a pure function of the manifest and the results. */
export function benchmarkOf(manifest: RunManifest, results: Results) {
  const defs = manifest.cases.defs;
  const evalId = new Map(defs.map((d, i) => [d.id, i + 1]));
  const label = new Map(defs.map((d) => [d.id, expectLabel(d)]));
  const scored = results.outcomes.filter((o) => o.passed !== null);
  const runs = scored
    .map((o) => benchmarkRun(o, evalId.get(o.caseId) ?? 0, label.get(o.caseId) ?? '?'))
    .sort((x, y) => x.eval_id - y.eval_id || x.configuration.localeCompare(y.configuration) || x.run_number - y.run_number);
  const configurations = manifest.config.arms.map((arm) => CONFIGURATION[arm]);
  const unscored = results.outcomes.length - scored.length;
  return {
    metadata: {
      skill_name: manifest.skills.map((s) => s.name).join(', '),
      skill_path: manifest.config.skillsDir,
      executor_model: results.run.model.reported ?? results.run.model.requested,
      analyzer_model: results.judge?.model ?? null,
      timestamp: results.run.startedAt,
      evals_run: [...new Set(runs.map((r) => r.eval_id))],
      runs_per_configuration: Math.max(0, ...runs.map((r) => r.run_number)),
      harness: `skillprobe ${results.harnessVersion}`,
      agent: results.run.agent.id,
      ...(results.run.auth ? { auth: results.run.auth } : {}),
      run_id: results.runId,
    },
    runs,
    run_summary: runSummary(runs, configurations),
    notes: [
      ...(results.run.simulated ? [SIMULATED_NOTE] : []),
      ...(unscored ? [`${unscored} trial(s) carried no evidence (infrastructure, isolation) and are left out`] : []),
      ...results.verdicts.map(
        (v) => `skillprobe verdict for ${v.caseId}: ${v.verdict} (${v.passes}/${v.scored} trials passed; ${v.reason})`,
      ),
      // Why each case's trials passed or failed, as every report says it (what fired, what the model did instead).
      ...results.summary.cases.filter((c) => c.arm === 'skill').flatMap((c) => caseFacts(c).map((f) => `${c.caseId}: ${f.text}`)),
    ],
  };
}

/** A comparison of two runs: each run's skill arm one configuration, named by its run id, a case one run of it. */
function comparisonBenchmark(c: Comparison) {
  const cases = c.cases.filter((x) => x.arm === 'skill');
  const configurations = [c.candidate.runId, c.base.runId];
  const runs: BenchmarkRun[] = cases.flatMap((x, i) =>
    (['candidate', 'base'] as const).flatMap((side) => {
      const rate = x[side];
      if (rate.n === 0) return [];
      return [
        {
          eval_id: i + 1,
          eval_name: x.caseId,
          configuration: c[side].runId,
          run_number: 1,
          result: {
            pass_rate: round(rate.successes / rate.n),
            passed: rate.successes,
            failed: rate.n - rate.successes,
            total: rate.n,
            time_seconds: null,
            tokens: null,
            tool_calls: null,
            errors: 0,
          },
          expectations: [],
          notes: [`${x.change}: ${x.reason}`],
        },
      ];
    }),
  );
  return {
    metadata: {
      skill_name: '',
      executor_model: c.candidate.model.reported ?? c.candidate.model.requested,
      timestamp: c.candidate.startedAt,
      evals_run: cases.map((_, i) => i + 1),
      runs_per_configuration: 1,
      compared: { candidate: c.candidate.runId, base: c.base.runId },
    },
    runs,
    run_summary: runSummary(runs, configurations),
    notes: c.missingData,
  };
}

/** skill-creator's benchmark.json, for its review viewer: a run, each agent's run of several, or a comparison. */
export const benchmarkReporter = jsonFormatReporter({
  name: 'benchmark',
  description: "skill-creator's benchmark.json (its review viewer opens it; with_skill / without_skill are the two arms)",
  ofRun: benchmarkOf,
  ofComparison: comparisonBenchmark,
});
