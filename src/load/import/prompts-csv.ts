/**
 * The prompts CSV of OpenAI's recipe for evaluating Codex skills (`evals/<skill>.prompts.csv`): a header row
 * `id,should_trigger,prompt`, then one request a row. `should_trigger` true expects the skill, false is a near miss it
 * must leave; every further column is kept as a tag `<column>:<value>` (an empty cell adds none).
 */
import { InputError, ProblemList } from '../../util/input-error.js';
import { idPart, placeSkill, type ImportedCase, type Importer, type Located, settledCases } from './format.js';
import { NEAR_MISS_TAG } from './trigger-list.js';

/** A CSV file read by header: each row's cells by column, and the line it starts on. */
export interface CsvTable {
  columns: string[];
  rows: { cells: Record<string, string>; line: number }[];
}

const REQUIRED = ['id', 'should_trigger', 'prompt'] as const;
const SHAPE = "a prompts CSV (OpenAI's Codex skill evals) with the header id,should_trigger,prompt";

/** Where a row or its cell is: `[row]` or `[row, column]`, rows from 0. */
export function csvLocated(file: string, table: CsvTable): Located {
  const locate = (path: readonly (string | number)[]) => ({
    line: typeof path[0] === 'number' ? (table.rows[path[0]]?.line ?? 1) : 1,
    col: 1,
  });
  return { locate, problem: (path, what, todo) => ({ file, ...locate(path), what, todo }) };
}

const BOOLEAN: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };

export const promptsCsv: Importer<CsvTable> = {
  name: 'prompts-csv',
  shape: SHAPE,
  reads: ['csv'],
  recognises: (table) => REQUIRED.every((c) => table.columns.includes(c)),
  read(table, src, ctx) {
    if (table.rows.length === 0)
      throw new InputError(src.problem([], 'the CSV holds a header and no rows', `add a row a request: ${SHAPE}`));
    const problems = new ProblemList();
    const skill = placeSkill(ctx, 'prompts CSV');
    const extra = table.columns.filter((c) => !(REQUIRED as readonly string[]).includes(c));
    const cases: ImportedCase[] = [];
    table.rows.forEach(({ cells }, i) => {
      const name = `row ${i + 1} (id "${cells.id}")`;
      const should = BOOLEAN[cells.should_trigger!.trim().toLowerCase()];
      const before = problems.items.length;
      if (idPart(cells.id!.trim()).replace(/-/g, '') === '')
        problems.add(src.problem([i, 'id'], `row ${i + 1} has no id`, 'give every row an id, like test-01'));
      if (should === undefined)
        problems.add(
          src.problem(
            [i, 'should_trigger'],
            `${name}: should_trigger is "${cells.should_trigger}", not true or false`,
            'write true or false',
          ),
        );
      if (cells.prompt!.trim() === '')
        problems.add(
          src.problem([i, 'prompt'], `${name}: the prompt is empty`, 'write the request as a user would type it, or remove the row'),
        );
      if (problems.items.length > before) return;
      cases.push({
        at: [i],
        fields: {},
        id: idPart(cells.id!.trim()),
        prompt: cells.prompt!,
        expect: should ? { skill } : { not: skill },
        tags: [...(should ? [] : [NEAR_MISS_TAG]), ...extra.filter((c) => cells[c]!.trim() !== '').map((c) => `${c}:${cells[c]!.trim()}`)],
      });
    });
    problems.throwIfAny();
    const { kept, repeats } = settledCases(cases, src, problems, {
      ids: { entry: 'row', key: 'id' },
      repeats: { noun: 'prompt', field: 'should_trigger', answer: (c) => String('skill' in c.expect) },
    });
    return { format: 'prompts-csv', cases: kept, repeats, uncarried: [], src };
  },
};
