import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sizedForBaseline } from '../src/cli/run.js';
import { runOptionsFrom } from '../src/cli/run-options.js';
import { reportAgainstBase, reportContextCanaries, resumedCanary, resumedContextBaseline } from '../src/commands/run-baseline.js';
import type { Context } from '../src/run/config-schema.js';
import { EXIT } from '../src/run/exit-codes.js';
import { RunStore, writeAgentRuns } from '../src/run/store.js';
import type { FinishedRun } from '../src/runner/pipeline.js';
import { loadResults } from '../src/runner/stored-results.js';
import { planCanary } from '../src/verdict/canary.js';
import { COMPARE_DEFAULTS } from '../src/verdict/compare-defaults.js';
import type { Comparison } from '../src/verdict/comparison.js';
import { Captured, cleanup, ROOT, runInProcess, testEnv } from './helpers.js';
import { labFieldRecord, storeSyntheticRun, syntheticRun, type CaseTrials } from './run-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'sp-labfield-canary-'));
afterAll(() => cleanup(root));

/** A lab,field base folder of stored runs (both stored as lab runs: the canary reads their rates, never a context). */
async function storedBase(runId: string, cases: Record<Context, Record<string, CaseTrials>>, started: Context[] = ['lab', 'field']) {
  const dir = join(root, runId);
  for (const context of started) await storeSyntheticRun(dir, `${runId}-${context}`, syntheticRun(cases[context]));
  await writeAgentRuns(dir, labFieldRecord(runId, started));
  return dir;
}
const both = (chart: number) => ({ chart: { passes: chart, n: 40 }, slides: { passes: 40, n: 40 } });

describe('a lab,field canary against a lab,field base', () => {
  it("reports each context's canary as run --baseline reports it, one after the other, exit by the worst", async () => {
    const base = await storedBase('base', { lab: both(40), field: both(40) });
    /** A canary run of one context: drawn against the same context's base, its trials as given. */
    const canaryRun = async (context: Context, trials: Record<string, CaseTrials>): Promise<FinishedRun> => {
      const baseRun = { dir: join(base, `base-${context}`), ...(await loadResults(join(base, `base-${context}`))) };
      const defs = baseRun.manifest.cases.defs;
      const { canary } = planCanary(baseRun, defs, { ...COMPARE_DEFAULTS, stopAtFirstRegression: false });
      const run = syntheticRun(trials, { mode: 'sprt' });
      const manifest = { ...run.manifest, canary, ...(context === 'field' ? { config: { ...run.manifest.config, context } } : {}) };
      return { store: { dir: join(root, 'canary', context) } as RunStore, manifest, results: run.results };
    };
    const runs = [await canaryRun('lab', both(40)), await canaryRun('field', both(10))];
    const io = () => ({ stdout: new Captured(), stderr: new Captured(), env: testEnv(), cwd: root });

    const text = io();
    const reported = await reportContextCanaries(runs, [], [{ name: 'terminal' }], text);
    expect(reported.exitCode).toBe(EXIT.fail);
    expect(text.stdout.text.match(/^═══ context \w+/gm)).toEqual(['═══ context lab', '═══ context field']);

    const json = io();
    await reportContextCanaries(runs, [], [{ name: 'json' }], json);
    const { contexts } = JSON.parse(json.stdout.text) as { contexts: { context: string; comparison: Comparison }[] };
    for (const [i, { context, comparison }] of contexts.entries()) {
      const alone = io();
      const { base: againstBase, flags } = await resumedCanary(runs[i]!.manifest.canary!, root);
      // As the canary's report names it: relative to the working folder.
      const candidate = { dir: join('canary', context), manifest: runs[i]!.manifest, results: runs[i]!.results };
      const single = await reportAgainstBase(againstBase, candidate, flags, [{ name: 'json' }], alone);
      expect(comparison).toEqual(JSON.parse(alone.stdout.text));
      expect(comparison.exitCode).toBe(single.exitCode);
    }
    expect(contexts.map((c) => [c.context, c.comparison.cases.find((x) => x.caseId === 'chart')!.change])).toEqual([
      ['lab', 'UNCHANGED'],
      ['field', 'REGRESSED'],
    ]);
  });

  it('a context never started is missing data: exit 4 unless a context regressed', async () => {
    const io = { stdout: new Captured(), stderr: new Captured(), env: testEnv(), cwd: root };
    const r = await reportContextCanaries([], [{ id: 'field', why: 'not started: the run stopped before it' }], [{ name: 'terminal' }], io);
    expect(r.exitCode).toBe(EXIT.error);
    expect(io.stdout.text).toContain('context field: not compared, not started: the run stopped before it');
  });
});

describe('run --context lab,field --baseline: a base that is not one is refused before anything runs (exit 2)', () => {
  const example = join(ROOT, 'examples', 'field');
  const canary = (baseline: string, ...more: string[]) =>
    runInProcess(['run', '--context', 'lab,field', '--sim', 'sim.yaml', '--mode', 'sequential', '--baseline', baseline, ...more], {
      cwd: example,
    });
  const todo = 'name the folder `run --context lab,field --for-baseline` made, or run the canary in one context (--context lab or field)';

  it.each<[string, () => Promise<string>, (dir: string) => string]>([
    [
      'one run',
      () => storeSyntheticRun(join(root, 'single'), 'one', syntheticRun(both(40))),
      (dir) => `${dir} holds no run per context, and --context lab,field runs a canary in each`,
    ],
    [
      'a lab,field folder that stopped before the field',
      () => storedBase('halfway', { lab: both(40), field: both(40) }, ['lab']),
      (dir) => `${dir} holds no field run (it stopped before it)`,
    ],
  ])('%s', async (_name, make, what) => {
    const dir = await make();
    const r = await canary(dir);
    expect(r.exitCode, r.stderr).toBe(EXIT.usage);
    expect(r.stderr.split('\n').at(-1)).toBe(`skillprobe: --baseline: ${what(dir)} — ${todo}`);
  });

  it('a reporter with no lab,field comparison', async () => {
    const r = await canary(join(root, 'any'), '--reporter', 'junit');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/--reporter: the junit reporter has no lab,field comparison report — use terminal or json/);
  });
});

describe('a lab,field canary resumed', () => {
  it('draws a context the interrupted run never started against the same base, with the settings its first run stored', async () => {
    const base = await storedBase('resumed-base', { lab: both(40), field: both(40) });
    const baseRun = { dir: join(base, 'resumed-base-lab'), ...(await loadResults(join(base, 'resumed-base-lab'))) };
    const { canary } = planCanary(baseRun, baseRun.manifest.cases.defs, { ...COMPARE_DEFAULTS, margin: 0.15, stopAtFirstRegression: true });
    const run = syntheticRun(both(40), { mode: 'sprt' });
    const first = await storeSyntheticRun(join(root, 'resumed-canary'), 'resumed-canary-lab', {
      ...run,
      manifest: { ...run.manifest, canary },
    });
    expect(await resumedContextBaseline(first, 7, root)).toEqual({
      baseline: base,
      margin: 0.15,
      alpha: COMPARE_DEFAULTS.alpha,
      stopAtFirstRegression: true,
      maxTrials: 7,
    });
  });
});

describe('run --context lab,field --for-baseline', () => {
  it("sizes both contexts' runs as a base, each in its context at the fixed trials plan --compare prescribes", async () => {
    const example = join(ROOT, 'examples', 'field');
    const o = runOptionsFrom({ context: ['lab', 'field'], forBaseline: true, sim: 'sim.yaml' } as Parameters<typeof runOptionsFrom>[0]);
    const stderr = new Captured();
    const run = { ...o.run, cwd: example, callerEnv: testEnv() };
    const suites = await sizedForBaseline({ ...o, run }, { stdout: new Captured(), stderr, env: testEnv(), cwd: example });
    const trials = Number(/a base for `run --baseline`: (\d+) trials per case/.exec(stderr.text)?.[1]);
    expect(trials).toBeGreaterThan(10);
    expect(suites.map((s) => [s.config.context ?? 'lab', s.config.trials, s.config.decision.mode])).toEqual([
      ['lab', trials, 'fixed'],
      ['field', trials, 'fixed'],
    ]);
  });
});
