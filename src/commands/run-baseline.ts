/**
 * `run --baseline BASE`: the candidate runs as a canary against a stored run, each case sampling until its
 * comparison with the base is decided, then is compared with it like `compare BASE CANDIDATE`.
 */
import { join } from 'node:path';
import { InputError } from '../util/input-error.js';
import type { StoredCanary } from '../run/schema.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { planCanary, type CanaryOptions } from '../verdict/canary.js';
import type { RunToCompare } from '../verdict/comparison.js';
import { compareRuns } from '../verdict/compare.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { plural } from '../util/text.js';
import { loadResults } from '../runner/stored-results.js';
import { reportComparison } from './compare.js';
import type { ReporterChoice, ReportIo } from './reports.js';
import type { LoadedSuite } from './run.js';

export interface BaselineFlags {
  baseline: string;
  margin?: number;
  alpha?: number;
  /** A cap on the candidate's trials per case (`--max-trials`). */
  maxTrials?: number;
  /** Stop every case at the first regression: by default each runs to its own end, so every broken case is named. */
  stopAtFirstRegression: boolean;
}

/** The cases whose canary can never say UNCHANGED: at no stage up to its cap does any count of passes rule the margin out. */
export const blindCases = (canary: StoredCanary) => canary.cases.filter((c) => c.design.acceptFrom.every((from, m) => from > m));

/** The stored base, read and checked, and the canary each case of the suite runs under against it. */
export async function prepareCanary(
  loaded: LoadedSuite,
  flags: BaselineFlags,
  say: (text: string) => void,
): Promise<{ base: RunToCompare; canary: StoredCanary }> {
  if (!decisionMode(loaded.config.decision.mode).sequential) {
    throw new InputError({
      file: loaded.configFile ?? 'decision.mode',
      what: 'the config runs a fixed number of trials, and a canary samples each case until it is decided',
      todo: 'set decision.mode to sequential (or pass --mode sequential) for the canary',
    });
  }
  const read = await loadResults(flags.baseline);
  const base: RunToCompare = { dir: flags.baseline, manifest: read.manifest, results: read.results };
  const file = join(flags.baseline, 'run.json');
  if (read.manifest.status !== 'completed') {
    throw new InputError({
      file,
      what: `the base run is ${read.manifest.status}: a canary needs where each of its cases stopped`,
      todo: `finish it first (\`skillprobe run --resume ${flags.baseline}\`)`,
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
  const { canary, gaps } = planCanary(base, defs, options);
  if (canary.cases.length === 0) {
    throw new InputError({
      file,
      what: `the base run stopped none of this suite's ${plural(defs.length, 'case')} by a known rule`,
      todo: 'point --baseline at a completed run of the same cases',
    });
  }
  for (const g of gaps) say(`canary: ${g.caseId} runs on its own design (${g.why})\n`);
  const blind = blindCases(canary);
  if (blind.length) {
    const { baseTrialsFor } = await import('./plan-compare.js');
    const { threshold } = loaded.config.decision;
    const from = Math.min(Math.max(threshold, canary.margin + 0.01), 0.99);
    const needed = baseTrialsFor(canary.cases.length, from, from - canary.margin, canary.alpha, COMPARE_DEFAULTS.power);
    const more = Math.max(1, needed - Math.min(...blind.map((c) => c.base.trials)));
    say(
      `canary: the base's trials bound ${plural(blind.length, 'case')} (${blind.map((c) => c.caseId).join(', ')}): ` +
        `this canary cannot rule out a drop of ${canary.margin} there, so they end UNDECIDED (exit 3) unless they regress; ` +
        `a base of ${needed} trials per case would (\`skillprobe run --resume ${flags.baseline} --add-trials ${more}\`, or a new base with \`skillprobe run --for-baseline\`)\n`,
    );
  }
  const caps = canary.cases.map((c) => c.design.maxTrials);
  const [fewest, most] = [Math.min(...caps), Math.max(...caps)];
  say(
    `canary against ${read.manifest.runId}: ${plural(canary.cases.length, 'case')}, each REGRESSED at α ${canary.caseAlpha.toPrecision(2)} ` +
      `(${canary.alpha} across them), UNCHANGED once a drop of ${canary.margin} is ruled out, at most ${fewest === most ? most : `${fewest} to ${most}`} trials each` +
      `${canary.stopAtFirstRegression ? '; the run stops at the first regression' : ''}\n`,
  );
  return { base, canary };
}

/**
 * A resumed canary (`run --resume` of a `--baseline` run): the base it was drawn against, read again, and the
 * settings it ran under, so that it reports the comparison an uninterrupted run would have.
 */
export async function resumedCanary(canary: StoredCanary): Promise<{ base: RunToCompare; flags: BaselineFlags }> {
  const dir = canary.base.dir;
  const read = await loadResults(dir);
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

/** The finished canary run against its base, in every chosen reporter; the comparison's exit code. */
export async function reportAgainstBase(
  base: RunToCompare,
  candidate: RunToCompare,
  flags: BaselineFlags,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const comparison = compareRuns(base, candidate, {
    ...COMPARE_DEFAULTS,
    ...(flags.alpha !== undefined ? { alpha: flags.alpha } : {}),
    ...(flags.margin !== undefined ? { margin: flags.margin } : {}),
  });
  return reportComparison(comparison, reporters, io);
}
