/**
 * The only list of eval formats skillprobe imports: case loading (a `.json`, `.csv`, `.md` or non-list YAML case file in
 * `cases:`) and `skillprobe import` both read through it. A format is recognised by its shape; the file's extension
 * says only how to parse it.
 */
import { isPlainObject } from '../../util/json.js';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { InputError } from '../../util/input-error.js';
import { parseYamlText, type LocatedYaml } from '../yaml-file.js';
import { evalsObject } from './evals-object.js';
import { markdownWithFrontmatter, pluginEvalCase } from './plugin-eval.js';
import { promptfooConfig } from './promptfoo.js';
import { skillgradeEval } from './skillgrade.js';
import { wazaEval, wazaTriggerTests } from './waza.js';
import { kindOf, type ImportContext, type ImportedSet, type Importer } from './format.js';
import { csvLocated, promptsCsv, type CsvTable } from './prompts-csv.js';
import { triggerList } from './trigger-list.js';
import { triggerListsObject } from './trigger-lists-object.js';

export const IMPORTERS: readonly Importer<never>[] = [
  triggerList,
  evalsObject,
  triggerListsObject,
  promptfooConfig,
  wazaEval,
  wazaTriggerTests,
  skillgradeEval,
  pluginEvalCase,
  promptsCsv,
];

/**
 * The largest eval file read, 10 MB: thousands of requests of a few hundred words each; past it, the file is most
 * likely a data file or a log named by mistake, and parsing it would take the time and memory of one.
 */
const MAX_IMPORT_BYTES = 10 * 2 ** 20;

/** Whether a case file is an eval set of another tool, parsed as JSON or CSV (YAML is a case file unless it is not a list). */
export const isImportFile = (file: string) => /\.(json|csv|md)$/i.test(file);

/**
 * Where a JSON syntax error is, from the parser's "at position N" (the end of the text for "unexpected end"), or from
 * the text it quotes around an unexpected token (`..."<10 before><token><10 after>"...`), which names no position.
 */
export function jsonErrorAt(text: string, message: string): { line: number; col: number } {
  const quoted = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON$/.exec(message);
  let pos = Number(/position (\d+)/.exec(message)?.[1] ?? (/end of JSON/i.test(message) ? text.length : 0));
  if (quoted) {
    const [, token, cut, around] = quoted as unknown as [string, string, string | undefined, string];
    if (!cut) pos = around.indexOf(token);
    else
      for (let at = text.indexOf(around); at >= 0; at = text.indexOf(around, at + 1))
        if (text[at + 10] === token) {
          pos = at + 10;
          break;
        }
  }
  const before = text.slice(0, pos).split('\n');
  return { line: before.length, col: before.at(-1)!.length + 1 };
}

const shapes = (reads: Importer['reads'][number]) =>
  IMPORTERS.filter((i) => i.reads.includes(reads))
    .map((i) => i.shape)
    .join('; or ');

function readCsv(file: string, text: string): CsvTable {
  let records: { record: string[]; info: { lines: number }; raw: string }[];
  try {
    records = parse(text, { info: true, raw: true, skip_empty_lines: true, relax_column_count: false }) as never;
  } catch (e) {
    const err = e as Error & { lines?: number };
    throw new InputError({
      file,
      ...(err.lines ? { line: err.lines, col: 1 } : {}),
      what: `not valid CSV: ${err.message}`,
      todo: `fix the CSV: ${shapes('csv')}`,
    });
  }
  if (records.length === 0) throw new InputError({ file, what: 'the CSV is empty', todo: `write ${shapes('csv')}` });
  const [header, ...rows] = records;
  const columns = header!.record.map((c) => c.trim());
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined)
    throw new InputError({
      file,
      line: 1,
      col: 1,
      what: `the header names the column "${twice}" twice`,
      todo: 'give every column its own name',
    });
  return {
    columns,
    rows: rows.map(({ record, info, raw }) => ({
      cells: Object.fromEntries(columns.map((c, i) => [c, record[i]!])),
      line: info.lines - (raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0),
    })),
  };
}

/**
 * Reads a file of another tool's eval format: the first importer recognising its shape reads it. Refused: text that
 * does not parse, and a shape no importer knows (the refusal names what it saw and the formats there are).
 */
export function readImport(text: string, ctx: ImportContext, parsed?: LocatedYaml): ImportedSet {
  const { file } = ctx;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_IMPORT_BYTES)
    throw new InputError({
      file,
      what: `the file is ${(bytes / 2 ** 20).toFixed(1)} MB, over the ${MAX_IMPORT_BYTES / 2 ** 20} MB an eval file may hold`,
      todo: 'check it is the eval file you meant, or split it into files of one skill each',
    });
  if (/\.csv$/i.test(file)) {
    const table = readCsv(file, text);
    const importer = IMPORTERS.find((i) => i.reads.includes('csv') && i.recognises(table as never, ctx));
    if (!importer)
      throw new InputError({
        file,
        line: 1,
        col: 1,
        what: `a CSV of columns ${table.columns.join(',')}, which is no format skillprobe imports`,
        todo: `write ${shapes('csv')}`,
      });
    return importer.read(table as never, csvLocated(file, table), ctx);
  }
  if (/\.md$/i.test(file)) {
    const { value, body, src } = markdownWithFrontmatter(file, text);
    const fields = { ...value, prompt: body };
    const importer = IMPORTERS.find((i) => i.reads.includes('markdown') && i.recognises(fields as never, ctx));
    if (!importer)
      throw new InputError({ file, what: 'a Markdown file that is no case skillprobe imports', todo: `write ${shapes('markdown')}` });
    return importer.read(fields as never, src, ctx);
  }
  if (!parsed && extname(file).toLowerCase() === '.json') {
    try {
      JSON.parse(text);
    } catch (e) {
      const message = (e as Error).message;
      throw new InputError({
        file,
        ...jsonErrorAt(text, message),
        what: `not valid JSON: ${message.split('\n')[0]}`,
        todo: 'fix the JSON there (a quote, comma or bracket)',
      });
    }
  }
  // JSON is YAML: the YAML parser reads it again, keeping where each value was written.
  const y = parsed ?? parseYamlText(file, text);
  const importer = IMPORTERS.find((i) => i.reads.includes('tree') && i.recognises(y.value as never, ctx));
  if (!importer) {
    const keys = isPlainObject(y.value) ? ` (keys ${Object.keys(y.value).join(', ') || 'none'})` : '';
    throw new InputError(
      y.problem([], `the file is ${kindOf(y.value)}${keys}, which is no format skillprobe imports`, `write it as ${shapes('tree')}`),
    );
  }
  return importer.read(y.value as never, y, ctx);
}

/** Whether a parsed YAML case file is rather another tool's format (an object an importer recognises). */
export const isImportTree = (value: unknown, ctx: ImportContext) =>
  !Array.isArray(value) && IMPORTERS.some((i) => i.reads.includes('tree') && i.recognises(value as never, ctx));
