/**
 * `run --baseline BASE`: the candidate runs as a canary against a stored run, each case sampling until its
 * comparison with the base is decided, then is compared with it like `compare BASE CANDIDATE`.
 */
import { join } from 'node:path';
import { InputError } from '../load/input-error.js';
import type { StoredCanary } from '../run/schema.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { planCanary, type CanaryOptions } from '../verdict/canary.js';
import type { RunToCompare } from '../verdict/comparison.js';
import { compareRuns } from '../verdict/compare.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { plural } from '../util/text.js';
import { loadResults } from './grade.js';
import { reportComparison } from './compare.js';
import type { ReporterChoice, ReportIo } from './reports.js';
import type { LoadedSuite } from './run.js';

export interface BaselineFlags {
  baseline: string;
  margin?: number;
  alpha?: number;
  /** A cap on the candidate's trials per case (`--max-trials`). */
  maxTrials?: number;
  keepGoing: boolean;
}

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
    stopAtFirstRegression: !flags.keepGoing,
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
  const caps = canary.cases.map((c) => c.design.maxTrials);
  const [fewest, most] = [Math.min(...caps), Math.max(...caps)];
  say(
    `canary against ${read.manifest.runId}: ${plural(canary.cases.length, 'case')}, each REGRESSED at α ${canary.caseAlpha.toPrecision(2)} ` +
      `(${canary.alpha} across them), UNCHANGED once a drop of ${canary.margin} is ruled out, at most ${fewest === most ? most : `${fewest} to ${most}`} trials each` +
      `${canary.stopAtFirstRegression ? '; the run stops at the first regression' : ''}\n`,
  );
  return { base, canary };
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
