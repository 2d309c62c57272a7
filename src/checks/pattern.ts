import { z } from 'zod';
import { compileLinearRegex } from '../util/linear-regex.js';
import { checkKind, type CheckResult } from './kind.js';

type Verdict = Omit<CheckResult, 'check'>;

/**
 * A kind whose field is a list of regular expressions, each run over the plans on the linear-time engine: `verdict`
 * judges the first plan the pattern finds (undefined: none), `label` names the check.
 */
export function patternKind(label: (pattern: string) => string, verdict: (hit: string | undefined, plans: string[]) => Verdict) {
  return checkKind({
    authored: z.array(z.string().min(1)).default([]),
    stored: z.array(z.string()),
    problems: (patterns) =>
      patterns.flatMap((pattern, j) => {
        const compiled = compileLinearRegex(pattern);
        return compiled.ok ? [] : [{ at: [j], what: compiled.what, todo: compiled.todo }];
      }),
    grade: (patterns, { plans }) =>
      patterns.map((pattern) => {
        const compiled = compileLinearRegex(pattern);
        // Loading refuses such a pattern, but a run stored before that may hold one: the check fails, saying why.
        if (!compiled.ok) return { check: label(pattern), pass: false, detail: compiled.what };
        return {
          check: label(pattern),
          ...verdict(
            plans.find((p) => compiled.regex.test(p)),
            plans,
          ),
        };
      }),
  });
}
