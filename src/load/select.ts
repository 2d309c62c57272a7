import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Case } from './cases.js';
import { InputError } from './input-error.js';

export interface CaseFilters {
  /** Matches the case id or its prompt. */
  grep?: RegExp;
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
export function grepPattern(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (e) {
    throw new InputError({ file: '--grep', what: `invalid regular expression ${JSON.stringify(source)}: ${(e as Error).message}`, todo: 'fix the pattern (JavaScript RegExp syntax)' });
  }
}

/** Verdicts that ask for another look: the case did not pass. */
const NOT_PASSED = new Set(['FAIL', 'INCONCLUSIVE', 'ERROR']);

/**
 * The cases that did not pass in the newest run of `transcriptsDir` that has results (run ids sort by start time),
 * and that run's id. Input errors when there is no such run.
 */
export function lastFailedCases(transcriptsDir: string): { runId: string; ids: Set<string> } {
  const runs = existsSync(transcriptsDir)
    ? readdirSync(transcriptsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(transcriptsDir, d.name, 'results.json')))
        .map((d) => d.name)
        .sort()
    : [];
  const newest = runs.at(-1);
  if (!newest) {
    throw new InputError({ file: transcriptsDir, what: '--last-failed: no earlier run with results here', todo: 'run the suite once first, or drop --last-failed' });
  }
  const file = join(transcriptsDir, newest, 'results.json');
  let verdicts: { caseId: string; verdict: string }[];
  try {
    verdicts = (JSON.parse(readFileSync(file, 'utf8')) as { verdicts: { caseId: string; verdict: string }[] }).verdicts;
    if (!Array.isArray(verdicts)) throw new Error('no verdicts');
  } catch (e) {
    throw new InputError({ file, what: `--last-failed: cannot read the verdicts (${(e as Error).message})`, todo: `regrade it with \`skillprobe grade ${join(transcriptsDir, newest)}\`, or drop --last-failed` });
  }
  return { runId: newest, ids: new Set(verdicts.filter((v) => NOT_PASSED.has(v.verdict)).map((v) => v.caseId)) };
}
