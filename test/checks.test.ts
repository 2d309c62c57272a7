import { describe, expect, it } from 'vitest';
import type { CheckContext, CheckResult } from '../src/checks/kind.js';
import { CHECK_KINDS, checkProblems, gradeChecks } from '../src/checks/registry.js';
import { caseSchema } from '../src/load/cases.js';
import { storedCaseSchema } from '../src/run/schema.js';
import { jsonSchemas } from '../src/schema/json-schemas.js';

type Name = keyof typeof CHECK_KINDS;

interface KindRows {
  /** Field values a case file may write, and ones loading refuses. */
  authored: { accepts: unknown[]; refuses: unknown[] };
  /** Field values run.json may hold, and ones the store refuses. */
  stored: { accepts: unknown[]; refuses: unknown[] };
  /** Values the schema accepts but loading refuses: the paths inside the field and what each problem says. */
  problems: { value: unknown; at: (string | number)[][]; says?: RegExp }[];
  /** Graded values: the plans and command prefix seen, and every result, its wording included. */
  grades: { value: unknown; ctx: CheckContext; results: CheckResult[] }[];
}

const UNSUPPORTED = /uses syntax the linear-time engine does not support/;

/** One row per registered kind: the type makes a kind without rows a compile error, the first test a failure. */
const ROWS: Record<Name, KindRows> = {
  matches: {
    authored: { accepts: [undefined, [], ['--project OPS', 'create-issue$']], refuses: [[''], '--project OPS', [1]] },
    stored: { accepts: [[], ['']], refuses: [undefined, 'x'] },
    problems: [
      { value: ['ok', '(a)\\1', 'create(?!-issue)'], at: [[1], [2]], says: UNSUPPORTED },
      { value: ['--project OPS'], at: [] },
    ],
    grades: [
      {
        value: ['--project OPS', 'nope'],
        ctx: { plans: ['atl jira search', 'atl jira create-issue --project OPS'] },
        results: [
          { check: 'matches /--project OPS/', pass: true, detail: 'atl jira create-issue --project OPS' },
          { check: 'matches /nope/', pass: false, detail: 'no plan matches' },
        ],
      },
      { value: ['x'], ctx: { plans: [] }, results: [{ check: 'matches /x/', pass: false, detail: 'no plan found' }] },
      { value: [], ctx: { plans: ['x'] }, results: [] },
      {
        value: ['(a)\\1'],
        ctx: { plans: ['aa'] },
        results: [
          {
            check: 'matches /(a)\\1/',
            pass: false,
            detail: 'regular expression "(a)\\\\1" uses syntax the linear-time engine does not support (invalid escape sequence: `\\1`)',
          },
        ],
      },
    ],
  },
  mustNot: {
    authored: { accepts: [undefined, [], ['--force']], refuses: [[''], '--force'] },
    stored: { accepts: [[], ['--force']], refuses: [undefined, [2]] },
    problems: [{ value: ['(?<!no-)force'], at: [[0]], says: UNSUPPORTED }],
    grades: [
      {
        value: ['--force', '--dry-run'],
        ctx: { plans: ['atl jira create-issue --force'] },
        results: [
          { check: 'mustNot /--force/', pass: false, detail: 'atl jira create-issue --force' },
          { check: 'mustNot /--dry-run/', pass: true },
        ],
      },
      { value: ['--force'], ctx: { plans: [] }, results: [{ check: 'mustNot /--force/', pass: true }] },
    ],
  },
  verb: {
    authored: { accepts: [undefined, 'create-issue'], refuses: ['', ['create-issue'], 3] },
    stored: { accepts: [undefined, 'create-issue'], refuses: [3, null] },
    problems: [{ value: 'create-issue', at: [] }],
    grades: [
      {
        value: 'create-issue',
        ctx: { plans: ['atl jira create-issue --project OPS', 'atl confluence create-page'], command: 'atl jira' },
        results: [{ check: 'verb create-issue', pass: true }],
      },
      {
        value: 'create-issue',
        ctx: { plans: ['atl jira create --project OPS', 'atl jira create-issue', 'atl jira create'], command: 'atl jira' },
        results: [{ check: 'verb create-issue', pass: false, detail: 'used create' }],
      },
      {
        value: 'create-issue',
        ctx: { plans: ['atl jiraX create-issue'], command: 'atl jira' },
        results: [{ check: 'verb create-issue', pass: false, detail: 'no call of the command found' }],
      },
      // Without a command prefix, the verb is a plan's first token.
      { value: 'status', ctx: { plans: ['git status'] }, results: [{ check: 'verb status', pass: false, detail: 'used git' }] },
    ],
  },
};

const kinds = Object.keys(CHECK_KINDS) as Name[];

/** A `plan` holding no check, as loading and the store give it. */
const emptyAuthored = () => caseSchema.shape.plan.unwrap().parse({});
const emptyStored = () => storedCaseSchema.shape.plan.unwrap().parse(emptyAuthored());

describe('check registry: every kind, its schemas, its loading problems, its grader and its wording', () => {
  it('has rows for exactly the registered kinds', () => {
    expect(Object.keys(ROWS).sort()).toEqual([...kinds].sort());
  });

  describe.each(kinds)('%s', (name) => {
    const kind = CHECK_KINDS[name];
    const rows = ROWS[name];

    it.each(rows.authored.accepts.map((v) => [v]))('a case file may write %j', (value) => {
      expect(kind.authored.safeParse(value).success).toBe(true);
    });
    it.each(rows.authored.refuses.map((v) => [v]))('a case file may not write %j', (value) => {
      expect(kind.authored.safeParse(value).success).toBe(false);
    });
    it.each(rows.stored.accepts.map((v) => [v]))('run.json may hold %j', (value) => {
      expect(kind.stored.safeParse(value).success).toBe(true);
    });
    it.each(rows.stored.refuses.map((v) => [v]))('run.json may not hold %j', (value) => {
      expect(kind.stored.safeParse(value).success).toBe(false);
    });

    it.each(rows.problems)('loading $value finds problems at $at', ({ value, at, says }) => {
      const found = checkProblems({ ...emptyAuthored(), [name]: value });
      expect(found.map((p) => p.at)).toEqual(at.map((path) => [name, ...path]));
      for (const p of found) expect(p.what).toMatch(says!);
    });

    it.each(rows.grades)('grades $value over $ctx.plans', ({ value, ctx, results }) => {
      expect(gradeChecks({ ...emptyStored(), [name]: value }, ctx)).toEqual(results);
    });
  });
});

describe('check registry: every schema lists exactly the registered kinds', () => {
  const schemas = jsonSchemas();
  const keysAt = (doc: unknown, path: string[]) =>
    Object.keys(path.reduce((at, key) => (at as Record<string, object>)[key]!, doc) as object);
  it.each<[string, () => string[]]>([
    ['the case schema', () => Object.keys(caseSchema.shape.plan.unwrap().shape)],
    ["run.json's stored case", () => Object.keys(storedCaseSchema.shape.plan.unwrap().shape)],
    ['the published cases JSON Schema', () => keysAt(schemas.cases, ['items', 'properties', 'plan', 'properties'])],
    [
      'the published run.json JSON Schema',
      () => keysAt(schemas.run, ['properties', 'cases', 'properties', 'defs', 'items', 'properties', 'plan', 'properties']),
    ],
  ])('%s', (_, listed) => {
    expect(listed()).toEqual(kinds);
  });

  it('results list checks kind by kind, in registry order', () => {
    expect(gradeChecks({ matches: ['a'], mustNot: ['b'], verb: 'c' }, { plans: ['a c'] }).map((r) => r.check)).toEqual([
      'matches /a/',
      'mustNot /b/',
      'verb c',
    ]);
  });
});
