import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarkOf, benchmarkReporter, spread } from '../src/report/benchmark.js';
import { pluginEvalReporter, pluginEvalResultOf } from '../src/report/plugin-eval-result.js';
import { REPORTER_NAMES } from '../src/report/registry.js';
import type { RunManifest, TrialOutcome } from '../src/run/schema.js';
import { buildResults } from '../src/verdict/results.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/report');
const NOW = new Date('2026-12-01T00:00:00.000Z');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'demo/run.json'), 'utf8')) as RunManifest;
const outcomes = JSON.parse(readFileSync(join(FIXTURES, 'demo/outcomes.json'), 'utf8')) as TrialOutcome[];

/** The demo's outcomes with a few facts the demo run lacks: seconds and tokens, a judged trial, a trial with no evidence. */
function enriched(): TrialOutcome[] {
  return outcomes.map((o, i) => {
    const timed = { ...o, wallMs: 1000 * (1 + (i % 3)), usage: { input: 100 + i, cached: 0, output: 10 } };
    if (i === 0) return { ...timed, passed: null, status: 'infra_error' as TrialOutcome['status'] };
    if (i === 1)
      return {
        ...timed,
        judge: {
          scored: true,
          passedWithoutItems: true,
          items: [
            { item: 'Does it name the page?', samples: ['yes', 'yes', 'no'] as const, verdict: 'yes' as const },
            { item: 'Is it short?', samples: ['no', 'no', 'no'] as const, verdict: 'no' as const },
          ].map((x) => ({ ...x, samples: [...x.samples] })),
        },
      };
    return timed;
  });
}

describe("the benchmark reporter: a run as skill-creator's benchmark.json", () => {
  const results = buildResults(manifest, enriched(), [], NOW);
  const b = benchmarkOf(manifest, results);

  it('is a reporter of the registry, and a pure function of the run (the same run, the same text)', () => {
    expect(REPORTER_NAMES).toContain('benchmark');
    const input = { manifest, results, agentNotes: { refusalFixes: {} }, runDir: 'runs/x' };
    expect(benchmarkReporter.render(input)).toBe(benchmarkReporter.render(input));
    expect(JSON.parse(benchmarkReporter.render(input))).toEqual(JSON.parse(JSON.stringify(b)));
  });

  it('has one run per scored trial, each arm its configuration, each case its eval id; a trial without evidence is left out and counted', () => {
    expect(b.runs).toHaveLength(outcomes.length - 1);
    expect(new Set(b.runs.map((r) => r.configuration))).toEqual(new Set(['with_skill', 'without_skill']));
    const ids = manifest.cases.defs.map((d, i) => [d.id, i + 1]);
    for (const r of b.runs) expect(ids).toContainEqual([r.eval_name, r.eval_id]);
    expect(b.notes).toContain('1 trial(s) carried no evidence (infrastructure, isolation) and are left out');
    expect(b.metadata).toMatchObject({
      executor_model: results.run.model.reported ?? results.run.model.requested,
      evals_run: expect.any(Array),
    });
    expect(b.notes.filter((n) => n.startsWith('skillprobe verdict for '))).toHaveLength(results.verdicts.length);
  });

  it("a judged trial's expectations are its routing and its items, its pass rate the share passed", () => {
    const judged = enriched()[1]!;
    const run = b.runs.find(
      (r) =>
        r.eval_name === judged.caseId &&
        r.run_number === judged.n &&
        r.configuration === (judged.arm === 'skill' ? 'with_skill' : 'without_skill'),
    )!;
    expect(run.expectations.map((e) => [e.text.startsWith('routes as the case expects'), e.passed])).toEqual([
      [true, true],
      [false, true],
      [false, false],
    ]);
    expect(run.result).toMatchObject({ passed: 2, failed: 1, total: 3, pass_rate: 0.6667, time_seconds: 2, tokens: 111, errors: 0 });
  });

  it('summarises each configuration as the mean, sample stddev, min and max of its runs, and the delta with − without', () => {
    for (const c of ['with_skill', 'without_skill'] as const) {
      const rates = b.runs.filter((r) => r.configuration === c).map((r) => r.result.pass_rate);
      expect((b.run_summary[c] as { pass_rate: unknown }).pass_rate).toEqual(spread(rates));
    }
    const mean = (c: string) => (b.run_summary[c] as { pass_rate: { mean: number } }).pass_rate.mean;
    const delta = mean('with_skill') - mean('without_skill');
    expect((b.run_summary.delta as { pass_rate: string }).pass_rate).toBe(`${delta >= 0 ? '+' : ''}${delta.toFixed(2)}`);
  });

  it.each<[number[], ReturnType<typeof spread>]>([
    [[], undefined],
    [[1], { mean: 1, stddev: 0, min: 1, max: 1 }],
    [[0, 1], { mean: 0.5, stddev: 0.7071, min: 0, max: 1 }],
    [[2, 4, 4, 4, 5, 5, 7, 9], { mean: 5, stddev: 2.1381, min: 2, max: 9 }],
  ])('spread(%j)', (values, want) => expect(spread(values)).toEqual(want));
});

describe("the plugin-eval reporter: a run as claude plugin eval's aggregate-result.json", () => {
  const results = buildResults(manifest, enriched(), [], NOW);
  const r = pluginEvalResultOf(manifest, results);

  it('is a reporter of the registry, and a pure function of the run', () => {
    expect(REPORTER_NAMES).toContain('plugin-eval');
    const input = { manifest, results, agentNotes: { refusalFixes: {} }, runDir: 'runs/x' };
    expect(JSON.parse(pluginEvalReporter.render(input))).toEqual(JSON.parse(JSON.stringify(r)));
  });

  it("has every case with its skill arm's runs under `with` and its ablation arm's under `without`; a trial without evidence left out", () => {
    expect(r.schemaVersion).toBe(1);
    expect(r.cases.map((c) => c.name)).toEqual(manifest.cases.defs.map((d) => d.id));
    const runs = r.cases.flatMap((c) => [...c.arms.with, ...(c.arms.without ?? [])]);
    expect(runs).toHaveLength(outcomes.length - 1);
    expect(r.skipped).toBe(1);
    for (const c of r.cases) {
      const scoreOf = (xs: { score: number }[]) => xs.reduce((a, x) => a + x.score, 0) / xs.length;
      expect(c.aggregates.score).toBeCloseTo(scoreOf(c.arms.with), 4);
      // A case whose ablation arm did not run has no delta.
      if (c.arms.without!.length) expect(c.aggregates.delta).toBeCloseTo(scoreOf(c.arms.with) - scoreOf(c.arms.without!), 4);
      else expect(c.aggregates.delta).toBeNull();
    }
  });

  it("counts a case passed by skillprobe's verdict, and averages the case scores and deltas", () => {
    expect(r.aggregates.casesTotal).toBe(manifest.cases.defs.length);
    expect(r.aggregates.casesPassed).toBe(results.verdicts.filter((v) => v.verdict === 'PASS').length);
    const scores = r.cases.map((c) => c.aggregates.score!);
    expect(r.aggregates.overallScore).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 4);
  });

  it("a judged run's graders are its routing check and its items", () => {
    const judged = enriched()[1]!;
    const c = r.cases.find((x) => x.name === judged.caseId)!;
    const run = (judged.arm === 'skill' ? c.arms.with : c.arms.without!).find((x) => x.run === judged.n)!;
    expect(run.graders.map((g) => [g.type, g.passed])).toEqual([
      ['tool_used', true],
      ['llm', true],
      ['llm', false],
    ]);
    expect(run.score).toBe(0.6667);
  });
});
