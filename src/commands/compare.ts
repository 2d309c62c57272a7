import { compareRuns } from '../verdict/compare.js';
import type { Comparison } from '../verdict/comparison.js';
import type { CompareOptions } from '../verdict/compare-defaults.js';
import { loadResults } from '../runner/stored-results.js';
import {
  refuseReportersWithout,
  reportComparison,
  reportContextComparisons,
  type ReporterChoice,
  type ReportIo,
} from '../runner/reports.js';
import type { ContextComparisons } from '../report/reporter.js';
import { readContextRuns, type ContextPairs } from '../runner/context-pairs.js';

interface ComparedDirs {
  base: string;
  candidate: string;
}

/**
 * `skillprobe compare BASE CANDIDATE`: the model-update canary. Reads two run folders (grading in memory what has
 * no current results.json), compares them case by case, writes every chosen report, and returns the exit code:
 * 1 on any significant regression. Two lab,field folders are compared context by context.
 */
export async function compareCommand(
  dirs: ComparedDirs,
  opts: CompareOptions,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const pairs = await readContextRuns(dirs, io.cwd);
  if (pairs) return compareContexts(pairs, opts, reporters, io);
  const comparison = await compareTwo(dirs, opts, io);
  const reported = await reportComparison(comparison, reporters, io);
  if (comparison.missingData.length)
    io.stderr.write('the comparison is incomplete: finish the runs (`skillprobe run --resume DIR`), then compare again\n');
  return reported;
}

/** Two run folders read and compared, what was regraded or damaged on the way named on stderr. */
async function compareTwo(dirs: ComparedDirs, opts: CompareOptions, io: ReportIo): Promise<Comparison> {
  // Both read at once, but a problem is named in argument order (the base's first), whichever read failed sooner.
  const reads = [loadResults(dirs.base, io.cwd), loadResults(dirs.candidate, io.cwd)] as const;
  await Promise.allSettled(reads);
  const base = await reads[0];
  const candidate = await reads[1];
  for (const [dir, r] of [
    [dirs.base, base],
    [dirs.candidate, candidate],
  ] as const) {
    if (r.regraded) io.stderr.write(`no current results.json in ${dir} (${r.regraded}): graded its stored transcripts in memory\n`);
    for (const d of r.results.damaged) io.stderr.write(`${dir}: damaged trial file left out: ${d.path}: ${d.problem}\n`);
  }
  return compareRuns({ dir: dirs.base, ...base }, { dir: dirs.candidate, ...candidate }, opts);
}

/**
 * Two lab,field folders: each context's runs compared as two runs are, one report holding them all; the exit code is
 * the worst of theirs, and a context one folder has no run for is missing data (at least exit 4).
 */
async function compareContexts(
  pairs: ContextPairs,
  opts: CompareOptions,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  refuseReportersWithout(reporters, 'renderContextComparisons', 'lab,field comparison');
  const input: ContextComparisons = { comparisons: [], missing: pairs.missing };
  for (const { context, ...dirs } of pairs.pairs) input.comparisons.push({ context, comparison: await compareTwo(dirs, opts, io) });
  return reportContextComparisons(input, reporters, io);
}
