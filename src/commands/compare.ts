import { compareRuns } from '../verdict/compare.js';
import type { Comparison } from '../verdict/comparison.js';
import type { CompareOptions } from '../verdict/compare-defaults.js';
import { loadResults } from '../runner/stored-results.js';
import { writeReports, type ReporterChoice, type ReportIo } from '../runner/reports.js';

/**
 * `skillprobe compare BASE CANDIDATE`: the model-update canary. Reads two run folders (grading in memory what has
 * no current results.json), compares them case by case, writes every chosen report, and returns the exit code:
 * 1 on any significant regression.
 */
export async function compareCommand(
  dirs: { base: string; candidate: string },
  opts: CompareOptions,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
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
  const comparison = compareRuns({ dir: dirs.base, ...base }, { dir: dirs.candidate, ...candidate }, opts);
  const reported = await reportComparison(comparison, reporters, io);
  if (comparison.missingData.length)
    io.stderr.write('the comparison is incomplete: finish the runs (`skillprobe run --resume DIR`), then compare again\n');
  return reported;
}

/** A comparison in every chosen reporter, its missing data named on stderr; its exit code. */
export async function reportComparison(
  comparison: Comparison,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const { failed } = await writeReports(reporters, (r) => r.renderComparison(comparison), io);
  for (const m of comparison.missingData) io.stderr.write(`missing data: ${m}\n`);
  return { exitCode: comparison.exitCode, failed };
}
