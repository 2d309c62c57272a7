/**
 * `run --baseline BASE`: the candidate runs as a canary against a stored run, each case sampling until its
 * comparison with the base is decided, then is compared with it like `compare BASE CANDIDATE`.
 */
import { dirname, join } from 'node:path';
import { RunStore } from '../run/store.js';
import { InputError } from '../util/input-error.js';
import type { Results, StoredCanary } from '../run/schema.js';
import type { RunPlace } from '../runner/execute.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { planCanary, type CanaryOptions } from '../verdict/canary.js';
import type { RunToCompare } from '../verdict/comparison.js';
import { compareRuns } from '../verdict/compare.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { plural } from '../util/text.js';
import { loadResults } from '../runner/stored-results.js';
import { lackText, planBaseTopUp, topUpBase, type BaseTopUpPlan } from '../runner/base-top-up.js';
import { reportComparison, reportContextComparisons, type ReporterChoice, type ReportIo } from '../runner/reports.js';
import { readAgentsRecord } from '../runner/agents-run.js';
import type { FinishedRun } from '../runner/pipeline.js';
import type { ContextComparisons, MissingAgent } from '../report/reporter.js';
import type { Context } from '../run/config-schema.js';
import { describeRunDir } from '../util/paths.js';
import type { LoadedSuite } from '../runner/load-suite.js';

export interface BaselineFlags {
  baseline: string;
  margin?: number;
  alpha?: number;
  /** A cap on the candidate's trials per case (`--max-trials`). */
  maxTrials?: number;
  /** Stop every case at the first regression: by default each runs to its own end, so every broken case is named. */
  stopAtFirstRegression: boolean;
  /** `--top-up-baseline`: a base that bounds the canary is topped up first, when its model is the one configured. */
  topUpBaseline?: boolean;
}

/** The cases whose canary can never say UNCHANGED: at no stage up to its cap does any count of passes rule the margin out. */
export const blindCases = (canary: StoredCanary) => canary.cases.filter((c) => c.design.acceptFrom.every((from, m) => from > m));

/** The stored base, read and checked (a run folder that ended). */
async function readBase(dir: string, cwd: string): Promise<RunToCompare & { results: Results }> {
  const read = await loadResults(dir, cwd);
  if (read.manifest.status !== 'completed') {
    throw new InputError({
      file: join(dir, 'run.json'),
      what: `the base run is ${read.manifest.status}: a canary needs where each of its cases stopped`,
      todo: `finish it first (\`skillprobe run --resume ${dir}${read.manifest.simulator ? ` --sim ${read.manifest.simulator.profile}` : ''}\`)`,
    });
  }
  return { dir, manifest: read.manifest, results: read.results };
}

/**
 * The stored base, read and checked, and the canary each case of the suite runs under against it; with
 * `--top-up-baseline`, a base that bounds the canary is topped up first (`place`: where its trials run).
 */
export async function prepareCanary(
  loaded: LoadedSuite,
  flags: BaselineFlags,
  say: (text: string) => void,
  place: RunPlace,
): Promise<{ base: RunToCompare; canary: StoredCanary }> {
  if (!decisionMode(loaded.config.decision.mode).sequential) {
    throw new InputError({
      file: loaded.configFile ?? 'decision.mode',
      what: 'the config runs a fixed number of trials, and a canary samples each case until it is decided',
      todo: 'set decision.mode to sequential (or pass --mode sequential) for the canary',
    });
  }
  const options: CanaryOptions = {
    alpha: flags.alpha ?? COMPARE_DEFAULTS.alpha,
    margin: flags.margin ?? COMPARE_DEFAULTS.margin,
    power: COMPARE_DEFAULTS.power,
    ...(flags.maxTrials !== undefined ? { maxTrials: flags.maxTrials } : {}),
    stopAtFirstRegression: flags.stopAtFirstRegression,
  };
  const defs = loaded.suite.cases.map((c) => gradableCase(c, loaded.config));
  const threshold = (caseId: string) => defs.find((d) => d.id === caseId)!.decision.threshold;
  let base = await readBase(flags.baseline, place.cwd);
  let planned = planCanary(base, defs, options);
  const topUp = planBaseTopUp(planned.canary, planned.boundedByBase, threshold, options.power);
  if (flags.topUpBaseline && !topUp) say(`canary: --top-up-baseline: the base bounds no case of this canary, so it is not topped up\n`);
  if (flags.topUpBaseline && topUp && (await topUpBase(loaded, base, planned.canary, topUp, place, { maxTrials: flags.maxTrials, say }))) {
    base = await readBase(flags.baseline, place.cwd);
    planned = planCanary(base, defs, options);
  }
  const { canary, gaps, boundedByBase } = planned;
  const file = join(flags.baseline, 'run.json');
  if (canary.cases.length === 0) {
    throw new InputError({
      file,
      what: `the base run stopped none of this suite's ${plural(defs.length, 'case')} by a known rule`,
      todo: 'point --baseline at a completed run of the same cases',
    });
  }
  for (const g of gaps) say(`canary: ${g.caseId} runs on its own design (${g.why})\n`);
  const lacking = planBaseTopUp(canary, boundedByBase, threshold, options.power);
  if (lacking) say(boundedText(base, canary, lacking));
  const caps = canary.cases.map((c) => c.design.maxTrials);
  const [fewest, most] = [Math.min(...caps), Math.max(...caps)];
  say(
    `canary against ${base.manifest.runId}: ${plural(canary.cases.length, 'case')}, each REGRESSED at α ${canary.caseAlpha.toPrecision(2)} ` +
      `(${canary.alpha} across them), UNCHANGED once a drop of ${canary.margin} is ruled out, at most ${fewest === most ? most : `${fewest} to ${most}`} trials each` +
      `${canary.stopAtFirstRegression ? '; the run stops at the first regression' : ''}\n`,
  );
  return { base, canary };
}

/** The cases a base bounds, what each lacks, and the ways to a base that does not. */
function boundedText(base: RunToCompare, canary: StoredCanary, plan: BaseTopUpPlan): string {
  const ids = plan.lacking.map((c) => c.caseId);
  const blind = blindCases(canary).filter((c) => ids.includes(c.caseId));
  const sim = base.manifest.simulator ? ` --sim ${base.manifest.simulator.profile}` : '';
  return (
    `canary: the base's trials bound ${plural(ids.length, 'case')} (${ids.join(', ')}): this canary cannot rule out a drop of ${canary.margin} there ` +
    `${blind.length === ids.length ? 'at all' : `with its planned power${blind.length ? ` (${blind.map((c) => c.caseId).join(', ')}: at all)` : ''}`}, and a case it does not rule out ends UNDECIDED (exit 3) unless it regresses; ` +
    `the base lacks trials of the ${plan.lacking[0]!.needs} per case a canary needs (${lackText(plan.lacking)}): ` +
    `\`skillprobe run --resume ${base.dir}${sim} --add-trials ${plan.addTrials}\`, --top-up-baseline (the same agent, CLI and model), or a new base with \`skillprobe run --for-baseline\`\n`
  );
}

/**
 * A resumed canary (`run --resume` of a `--baseline` run): the base it was drawn against, read again, and the
 * settings it ran under, so that it reports the comparison an uninterrupted run would have.
 */
export async function resumedCanary(canary: StoredCanary, cwd: string): Promise<{ base: RunToCompare; flags: BaselineFlags }> {
  const dir = canary.base.dir;
  const read = await loadResults(dir, cwd);
  if (read.results.runId !== canary.base.runId) {
    throw new InputError({
      file: join(dir, 'run.json'),
      what: `the canary ran against run ${canary.base.runId}, and ${dir} now holds run ${read.results.runId}`,
      todo: `put the base run back at ${dir}, then resume again, or compare by hand (\`skillprobe compare BASE CANDIDATE\`)`,
    });
  }
  return {
    base: { dir, manifest: read.manifest, results: read.results },
    flags: { baseline: dir, margin: canary.margin, alpha: canary.alpha, stopAtFirstRegression: canary.stopAtFirstRegression },
  };
}

/**
 * A lab,field canary resumed: the base folder and settings its first context's run was drawn with, so a context the
 * interrupted run never started is drawn against the same base (a started one keeps the canary it stored).
 */
export async function resumedContextBaseline(firstRun: string, canaryMaxTrials: number | undefined, cwd: string): Promise<BaselineFlags> {
  const { manifest } = await RunStore.open(firstRun, cwd);
  const { flags } = await resumedCanary(manifest.canary!, cwd);
  return { ...flags, baseline: dirname(manifest.canary!.base.dir), maxTrials: canaryMaxTrials };
}

/** A canary run compared with its base under the canary's own α and margin. */
const canaryComparison = (base: RunToCompare, candidate: RunToCompare, flags: BaselineFlags) =>
  compareRuns(base, candidate, {
    ...COMPARE_DEFAULTS,
    ...(flags.alpha !== undefined ? { alpha: flags.alpha } : {}),
    ...(flags.margin !== undefined ? { margin: flags.margin } : {}),
  });

/** The finished canary run against its base, in every chosen reporter; the comparison's exit code. */
export async function reportAgainstBase(
  base: RunToCompare,
  candidate: RunToCompare,
  flags: BaselineFlags,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  return reportComparison(canaryComparison(base, candidate, flags), reporters, io);
}

/**
 * `--baseline` of a lab,field folder with `--context lab,field`: each context's canary against the same context's run
 * of the base (`suites` in the order of `contexts`), every one checked before any trial starts.
 */
export async function prepareContextCanaries(
  suites: readonly LoadedSuite[],
  contexts: readonly Context[],
  flags: BaselineFlags,
  say: (text: string) => void,
  place: RunPlace,
): Promise<StoredCanary[]> {
  const record = await readAgentsRecord(flags.baseline, place.cwd);
  const todo = 'name the folder `run --context lab,field --for-baseline` made, or run the canary in one context (--context lab or field)';
  if (record?.by !== 'context')
    throw new InputError({
      file: '--baseline',
      what: `${flags.baseline} holds no run per context, and --context lab,field runs a canary in each`,
      todo,
    });
  // Every context's base found before the first is read: a base missing the field is named before any canary is planned.
  const bases = contexts.map((context) => {
    const entry = record.agents.find((a) => a.id === context);
    if (!entry)
      throw new InputError({ file: '--baseline', what: `${flags.baseline} holds no ${context} run (it stopped before it)`, todo });
    return join(flags.baseline, entry.dir);
  });
  const canaries: StoredCanary[] = [];
  for (const [i, baseline] of bases.entries()) canaries.push((await prepareCanary(suites[i]!, { ...flags, baseline }, say, place)).canary);
  return canaries;
}

/**
 * A lab,field canary's runs, each against its context's base (read again from where its run folder says), in every
 * chosen reporter, as `compare` reports two lab,field folders.
 */
export async function reportContextCanaries(
  runs: readonly FinishedRun[],
  missing: readonly MissingAgent[],
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const input: ContextComparisons = {
    comparisons: [],
    missing: missing.map((m) => ({ context: m.id as Context, why: m.why })),
  };
  for (const run of runs) {
    const { base, flags } = await resumedCanary(run.manifest.canary!, io.cwd);
    const candidate = { dir: describeRunDir(run.store, io.cwd), manifest: run.manifest, results: run.results };
    input.comparisons.push({ context: run.manifest.config.context ?? 'lab', comparison: canaryComparison(base, candidate, flags) });
  }
  return reportContextComparisons(input, reporters, io);
}
