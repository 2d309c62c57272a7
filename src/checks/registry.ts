import { z } from 'zod';
import type { CheckContext, CheckKind, CheckProblem, CheckResult } from './kind.js';
import { judge } from './judge.js';
import { matches } from './matches.js';
import { mustNot } from './must-not.js';
import { verb } from './verb.js';

/**
 * Every kind of plan check, by the key a case's `plan` writes it under: the only list of their names. The case
 * schema, run.json's schema and the published JSON Schemas are built from it, and results list checks in its order.
 * One kind a line, so adding one is a line of its own.
 */
export const CHECK_KINDS = {
  matches,
  mustNot,
  verb,
};

/**
 * The checks a case's `expect` holds beside `skill`, graded from what a model judge answered (the judge stage asks,
 * `grade/judge-apply` scores): one kind a line, as above. The case schema and run.json's stored case take their
 * fields from here.
 */
export const EXPECT_CHECKS = {
  judge,
};

/** The `expect` fields of the judged kinds, as a case file writes them and as run.json stores them. */
export const authoredExpectFields = Object.fromEntries(Object.entries(EXPECT_CHECKS).map(([name, kind]) => [name, kind.authored])) as {
  [K in keyof typeof EXPECT_CHECKS]: (typeof EXPECT_CHECKS)[K]['authored'];
};
export const storedExpectFields = Object.fromEntries(Object.entries(EXPECT_CHECKS).map(([name, kind]) => [name, kind.stored])) as {
  [K in keyof typeof EXPECT_CHECKS]: (typeof EXPECT_CHECKS)[K]['stored'];
};

type Kinds = typeof CHECK_KINDS;
type AnyKind = CheckKind<z.ZodTypeAny, z.ZodTypeAny>;

const fields = <Side extends 'authored' | 'stored'>(side: Side) =>
  Object.fromEntries(Object.entries(CHECK_KINDS).map(([name, kind]) => [name, kind[side]])) as { [K in keyof Kinds]: Kinds[K][Side] };

/** A case file's `plan`: one field per kind. */
export const authoredChecksSchema = z.object(fields('authored'));
export type AuthoredChecks = z.output<typeof authoredChecksSchema>;
/** `plan` as run.json stores it. */
export const storedChecksSchema = z.object(fields('stored'));
export type StoredChecks = z.output<typeof storedChecksSchema>;

/** Each kind that `checks` holds a value for, in registry order. */
function present(checks: AuthoredChecks | StoredChecks): { name: string; kind: AnyKind; value: unknown }[] {
  return Object.entries(CHECK_KINDS).flatMap(([name, kind]) => {
    const value: unknown = checks[name as keyof Kinds];
    return value === undefined ? [] : [{ name, kind: kind as AnyKind, value }];
  });
}

/** What loading refuses beyond the schema, at paths inside `plan`. */
export function checkProblems(checks: AuthoredChecks): CheckProblem[] {
  return present(checks).flatMap(({ name, kind, value }) => (kind.problems?.(value) ?? []).map((p) => ({ ...p, at: [name, ...p.at] })));
}

/** Every check's result, kind by kind in registry order. */
export function gradeChecks(checks: StoredChecks, ctx: CheckContext): CheckResult[] {
  return present(checks).flatMap(({ kind, value }) => kind.grade(value, ctx));
}
