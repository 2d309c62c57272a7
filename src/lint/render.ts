import { formatProblem } from '../util/input-error.js';
import { fromFolder, shownFrom } from '../util/paths.js';
import { plural } from '../util/text.js';
import type { Finding } from './types.js';

/** In file order, so an editor's jump list reads top to bottom. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

/** `file:line:col: error|warning: what — what to do` per finding, then the count (and what could not be checked). */
export function renderFindings(findings: readonly Finding[], skipped: readonly string[]): string {
  const lines = findings.map((f) => formatProblem({ ...f, what: `${f.severity}: ${f.what}` }));
  const errors = findings.filter((f) => f.severity === 'error').length;
  const count = `${plural(errors, 'error')}, ${plural(findings.length - errors, 'warning')}`;
  lines.push(skipped.length ? `${count} (not checked until the errors are fixed: ${skipped.join(', ')})` : count);
  return lines.join('\n') + '\n';
}

export function renderFindingsJson(findings: readonly Finding[]): string {
  return (
    JSON.stringify(
      findings.map(({ severity, check, file, line, col, what, todo }) => ({ severity, check, file, line, col, what, todo })),
      null,
      2,
    ) + '\n'
  );
}

export const hasErrors = (findings: readonly Finding[]) => findings.some((f) => f.severity === 'error');

/** A finding as the user reads it: loaders name files relative to the working folder (or absolute); flags (`--cases`) are not files. */
export const shownIn =
  (cwd: string) =>
  (f: Finding): Finding => ({ ...f, file: f.file.startsWith('--') ? f.file : shownFrom(cwd, fromFolder(cwd, f.file)) });
