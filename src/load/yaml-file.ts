import { readFileSync } from 'node:fs';
import { Document, isMap, isNode, LineCounter, parseDocument, type Node } from 'yaml';
import type { z } from 'zod';
import { InputError, type InputProblem } from './input-error.js';

/** A parsed YAML document that can say where any path in it came from. */
export class LocatedYaml {
  constructor(
    readonly file: string,
    readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The line and column of the node at `path`, or of its nearest ancestor that exists. */
  locate(path: readonly (string | number)[]): { line: number; col: number } {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return this.lines.linePos((node as Node).range![0]);
    }
    return { line: 1, col: 1 };
  }

  /** The location of the key `key` inside the map at `path` (better than the value for "unknown key"). */
  locateKey(path: readonly (string | number)[], key: string): { line: number; col: number } {
    const map = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (isMap(map)) {
      for (const pair of map.items) {
        if (isNode(pair.key) && String((pair.key as { value?: unknown }).value) === key && pair.key.range) {
          return this.lines.linePos(pair.key.range[0]);
        }
      }
    }
    return this.locate(path);
  }

  problem(path: readonly (string | number)[], what: string, todo: string): InputProblem {
    return { file: this.file, ...this.locate(path), what, todo };
  }
}

export function readTextFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError({
      file,
      what: code === 'ENOENT' ? `${what} not found` : `cannot read ${what} (${code ?? String(e)})`,
      todo: code === 'ENOENT' ? 'check the path, or create the file' : 'check its permissions',
    });
  }
}

/** Parses YAML text; syntax errors become InputErrors with file:line:col. */
export function parseYamlText(file: string, text: string): LocatedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    throw new InputError(
      doc.errors.map((err) => {
        const pos = err.linePos?.[0] ?? lines.linePos(err.pos[0]);
        return {
          file,
          line: pos.line,
          col: pos.col,
          what: `YAML syntax error: ${err.message.split('\n')[0]}`,
          todo: 'fix the YAML (check indentation, quoting and colons)',
        };
      }),
    );
  }
  return new LocatedYaml(file, doc, lines);
}

function describeIssue(issue: z.ZodIssue): { what: string; todo: string; keyPath?: string } {
  const at = issue.path.length ? `\`${issue.path.join('.')}\`` : 'the document';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') {
        return { what: `${at} is missing`, todo: `add \`${String(issue.path.at(-1))}\` (${issue.expected})` };
      }
      return { what: `${at} should be ${issue.expected}, not ${issue.received}`, todo: `write it as ${issue.expected}` };
    case 'unrecognized_keys':
      return {
        what: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')} in ${at}`,
        todo: 'remove it or fix its spelling',
        keyPath: issue.keys[0],
      };
    case 'invalid_enum_value':
      return {
        what: `${at} is ${JSON.stringify(issue.received)}`,
        todo: `use one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}`,
      };
    default: {
      // Custom messages in our schemas are written as "what — what to do".
      const [what, todo] = issue.message.split(' — ');
      return { what: `${at}: ${what}`, todo: todo ?? 'see README for the expected format' };
    }
  }
}

/** Validates a located YAML document against a zod schema; every issue becomes file:line:col. */
export function validateYaml<S extends z.ZodTypeAny>(y: LocatedYaml, schema: S): z.output<S> {
  const result = schema.safeParse(y.doc.toJS());
  if (result.success) return result.data;
  throw new InputError(
    result.error.issues.map((issue) => {
      const d = describeIssue(issue);
      const pos = d.keyPath ? y.locateKey(issue.path, d.keyPath) : y.locate(issue.path);
      return { file: y.file, ...pos, what: d.what, todo: d.todo };
    }),
  );
}

export function loadYamlFile<S extends z.ZodTypeAny>(file: string, schema: S, what: string): { value: z.output<S>; yaml: LocatedYaml } {
  const y = parseYamlText(file, readTextFile(file, what));
  return { value: validateYaml(y, schema), yaml: y };
}
