import { MULTIPLE, NONE } from './schema.js';

/**
 * What a case asks of the family, as run.json stores it: `expect` a member that should fire, or `none` for a negative
 * case. A negative case either forbids every member (no skill may fire) or, with `not`, only that one: "not this
 * skill", where a sibling rightly taking the request is no false trigger.
 */
export interface Expectation {
  expect: string;
  not?: string;
}

/** The family members whose firing fails a negative case, among those that fired; none for a positive case. */
export function falselyFired(c: Expectation, fired: readonly string[]): string[] {
  if (c.expect !== NONE) return [];
  return c.not === undefined ? [...fired] : fired.filter((s) => s === c.not);
}

/** How reports name what a case expects: a member, `none`, or `not <member>`; also its confusion-matrix row. */
export const expectLabel = (c: Expectation): string => (c.not === undefined ? c.expect : `not ${c.not}`);

/**
 * Whether a confusion-matrix cell is a right route: the expected member's column for a positive row, `none` for a
 * negative row, any column but the forbidden one for a "not this skill" row (`forbids`: the member it names).
 * Undefined where the cell cannot say: several skills fired on a "not this skill" row, the forbidden one among them or not.
 */
export function routeRight(row: string, column: string, forbids: string | undefined): boolean | undefined {
  if (forbids === undefined) return row === column;
  if (column === MULTIPLE) return undefined;
  return column !== forbids;
}
