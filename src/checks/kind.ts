import { z } from 'zod';

/** One graded check as results.json stores it: what reports call it, whether it passed, and what to show beside it. */
export const checkResultSchema = z.object({ check: z.string(), pass: z.boolean(), detail: z.string().optional() });
export type CheckResult = z.output<typeof checkResultSchema>;

/** What a grader sees of a trial. */
export interface CheckContext {
  /** The trial's planned calls, one canonical string each. */
  plans: string[];
  /** The case's command prefix (`atl jira`), canonical as the plans are. */
  command?: string;
}

/** What loading refuses beyond the schema, at a path inside the kind's field. */
export interface CheckProblem {
  at: (string | number)[];
  what: string;
  todo: string;
}

/**
 * One kind of plan check: the field it adds to a case's `plan`, what loading refuses in it, and its grader, which
 * also words the results reports show. Graders are pure: no I/O, no clock. (Methods rather than function fields, so
 * the registry can hold kinds of different field types in one list.)
 */
export interface CheckKind<Authored extends z.ZodTypeAny, Stored extends z.ZodTypeAny> {
  /** The field as a case file writes it. */
  authored: Authored;
  /**
   * The field as run.json stores it, already checked when it was loaded. A kind added once run folders exist must
   * still read them: its stored field is then optional or has a default.
   */
  stored: Stored;
  problems?(value: NonNullable<z.output<Authored>>): CheckProblem[];
  /** One result per check the field holds, in the order written. */
  grade(value: NonNullable<z.output<Stored>>, ctx: CheckContext): CheckResult[];
}

/** Declares a kind with its field types inferred from its schemas. */
export const checkKind = <Authored extends z.ZodTypeAny, Stored extends z.ZodTypeAny>(kind: CheckKind<Authored, Stored>) => kind;
