import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileLinearRegex, type LinearRegex } from '../util/linear-regex.js';
import type { Case, CaseSuite } from './cases.js';
import { InputError } from '../util/input-error.js';
import type { Verdict } from '../run/schema.js';
import { readManifestSync, readResultsSync } from '../run/store.js';
import { fromFolder } from '../util/paths.js';

export interface CaseFilters {
  /** Matches the case id or its prompt (a RegExp, or `--grep`'s linear-time pattern). */
  grep?: { test(text: string): boolean };
  /** A case with any of these tags. */
  tags?: string[];
  /** Only these case ids (from an earlier run). */
  ids?: ReadonlySet<string>;
}

/** The cases every given filter keeps (filters combine with AND). Pure. */
export function selectCases(cases: readonly Case[], f: CaseFilters): Case[] {
  return cases.filter(
    (c) =>
      (f.grep === undefined || f.grep.test(c.id) || f.grep.test(c.prompt)) &&
      (f.tags === undefined || f.tags.length === 0 || c.tags.some((t) => f.tags!.includes(t))) &&
      (f.ids === undefined || f.ids.has(c.id)),
  );
}

/** `--grep`'s pattern, or an input error naming the flag. */
export function grepPattern(source: string): LinearRegex {
  const compiled = compileLinearRegex(source);
  if (!compiled.ok) throw new InputError({ file: '--grep', what: compiled.what, todo: compiled.todo });
  return compiled.regex;
}

/** Verdicts that ask for another look: the case did not pass. */
const NOT_PASSED: ReadonlySet<Verdict> = new Set(['FAIL', 'INCONCLUSIVE', 'ERROR']);

/** The newest run folder (one holding run.json) in `transcriptsDir`, if any: run ids sort by start time. */
export function newestRun(transcriptsDir: string, cwd?: string): string | undefined {
  const at = fromFolder(cwd, transcriptsDir);
  if (!existsSync(at)) return undefined;
  if (!statSync(at).isDirectory()) {
    throw new InputError({
      file: transcriptsDir,
      what: 'a file where the transcripts folder belongs',
      todo: 'set `transcriptsDir` (or --transcripts) to a folder',
    });
  }
  return readdirSync(at, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(at, d.name, 'run.json')))
    .map((d) => d.name)
    .sort()
    .at(-1);
}

/** The cases that did not pass in the newest run of `transcriptsDir`, and that run's id. Input errors when it has no results. */
export function lastFailedCases(transcriptsDir: string, cwd?: string): { runId: string; ids: Set<string> } {
  const runId = newestRun(transcriptsDir, cwd);
  if (!runId) {
    throw new InputError({
      file: transcriptsDir,
      what: '--last-failed: no earlier run here',
      todo: 'run the suite once first, or drop --last-failed',
    });
  }
  const runDir = join(transcriptsDir, runId);
  const file = join(runDir, 'results.json');
  const regrade = `grade it with \`skillprobe grade ${JSON.stringify(runDir)}\`, or drop --last-failed`;
  const stored = readResultsSync(fromFolder(cwd, runDir));
  if (!stored.ok) {
    const what =
      stored.problem === 'missing'
        ? `--last-failed: the newest run ${runId} has no results.json (it never finished grading)`
        : `--last-failed: results.json ${stored.problem}`;
    throw new InputError({ file: stored.problem === 'missing' ? runDir : file, what, todo: regrade });
  }
  return { runId, ids: new Set(stored.value.verdicts.filter((v) => NOT_PASSED.has(v.verdict)).map((v) => v.caseId)) };
}

/**
 * `--last-failed` on a resume: the cases the run being resumed was started on. That run is the newest now, and what
 * it failed so far is not its selection. Undefined when `runDir` holds no single run (a run of several agents).
 */
function resumedRunCases(runDir: string, cwd?: string): { runId: string; ids: Set<string> } | undefined {
  const stored = readManifestSync(fromFolder(cwd, runDir));
  return stored.ok ? { runId: stored.value.runId, ids: new Set(stored.value.cases.defs.map((c) => c.id)) } : undefined;
}

/** Which cases to run: `--grep`, `--tag`, `--last-failed` (combined with AND). */
export interface CaseSelection {
  grep?: string;
  tags?: string[];
  lastFailed?: boolean;
}

/** Narrows the suite to the selected cases; an empty selection is an input error, unless nothing failed last time. */
export function selectSuite(
  suite: CaseSuite,
  select: CaseSelection,
  transcriptsDir: string,
  /** The run folder `--resume` names, if any. */
  resuming?: string,
  /** The user's working folder: relative folders are taken from it. */
  cwd?: string,
): { suite: CaseSuite; nothingFailedIn?: string } {
  const last = select.lastFailed
    ? ((resuming !== undefined ? resumedRunCases(resuming, cwd) : undefined) ?? lastFailedCases(transcriptsDir, cwd))
    : undefined;
  if (last && last.ids.size === 0) return { suite: { ...suite, cases: [] }, nothingFailedIn: last.runId };
  const cases = selectCases(suite.cases, {
    grep: select.grep === undefined ? undefined : grepPattern(select.grep),
    tags: select.tags,
    ids: last?.ids,
  });
  if (cases.length === 0) {
    const filters = [
      select.grep !== undefined && `--grep ${JSON.stringify(select.grep)}`,
      select.tags?.length && `--tag ${select.tags.join(', ')}`,
      last && `--last-failed (run ${last.runId}: ${[...last.ids].join(', ')})`,
    ].filter(Boolean);
    throw new InputError({ file: filters.join(' '), what: 'no case matches', todo: 'loosen the filters (they combine with AND)' });
  }
  return { suite: { ...suite, cases } };
}
