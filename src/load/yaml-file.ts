import { readFileSync, statSync, type Stats } from 'node:fs';
import { Document, isAlias, isCollection, isMap, isNode, isPair, LineCounter, parseDocument, visit, type Alias, type Node } from 'yaml';
import { ZodArray as zArray, ZodObject as zObject, type z } from 'zod';
import { InputError, type InputProblem } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';
import { nearestName } from '../util/text.js';
import { firstInvalidUtf8 } from '../util/utf8.js';

/** A parsed YAML document that can say where any path in it came from. */
export class LocatedYaml {
  constructor(
    readonly file: string,
    readonly doc: Document,
    /** The document as plain data. */
    readonly value: unknown,
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

/** What a path is when it is neither a regular file nor a folder: nothing to read, copy or open (a FIFO blocks). */
export function specialFileKind(stats: Stats): string | undefined {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device file';
  return undefined;
}

function unreadable(file: string, what: string, e: unknown): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return new InputError({ file, what: `a folder where the ${what} belongs`, todo: 'give the path of a file' });
  return new InputError({
    file,
    what: code === 'ENOENT' ? `${what} not found` : `cannot read ${what} (${code ?? String(e)})`,
    todo: code === 'ENOENT' ? 'check the path, or create the file' : 'check its permissions',
  });
}

/** A UTF-8 byte order mark may start a text file; it is dropped, so columns count from the first real character. */
/** A byte order mark: dropped where a file is read, kept where one is rewritten. */
export const BOM = '\uFEFF';

/**
 * A problem naming the first byte that is not UTF-8, with its line and column, where a file must be UTF-8: decoding
 * would turn it into U+FFFD and change the text unseen (a prompt sent with a different character than written).
 */
export function notUtf8Problem(file: string, bytes: Buffer, what: string): InputProblem | undefined {
  const at = firstInvalidUtf8(bytes);
  if (at === undefined) return undefined;
  const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
  const line = bytes.subarray(0, lineStart).filter((b) => b === 0x0a).length + 1;
  // Columns count characters, from the first real one (a byte order mark is dropped where the file is read).
  const col =
    [
      ...bytes
        .subarray(lineStart, at)
        .toString('utf8')
        .replace(new RegExp(`^${BOM}`), ''),
    ].length + 1;
  const hex = bytes[at]!.toString(16).toUpperCase().padStart(2, '0');
  return {
    file,
    line,
    col,
    what: `byte 0x${hex} at offset ${at} is not UTF-8 (the ${what} is in another encoding, such as Windows-1252)`,
    todo: 'save the file as UTF-8',
  };
}

/**
 * The text of the user's `file`, named as given in every problem; a relative name is taken from `cwd` (their working
 * folder), an absolute one needs none.
 */
export function readTextFile(
  file: string,
  what: string,
  { utf8 = 'replace', cwd }: { utf8?: 'replace' | 'strict'; cwd?: string } = {},
): string {
  const path = fromFolder(cwd, file);
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (e) {
    throw unreadable(file, what, e);
  }
  // Checked before opening: opening a FIFO for reading blocks until something writes to it.
  if (!stats.isFile()) {
    throw new InputError({ file, what: `${what} is ${specialFileKind(stats) ?? 'a folder'}, not a file`, todo: 'point at a regular file' });
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw unreadable(file, what, e);
  }
  const bad = utf8 === 'strict' ? notUtf8Problem(file, bytes, what) : undefined;
  if (bad) throw new InputError(bad);
  const text = bytes.toString('utf8');
  return text.startsWith(BOM) ? text.slice(BOM.length) : text;
}

/**
 * The alias a failed expansion is most likely about: the first whose anchor is not set before it, else the first
 * whose anchored node holds aliases itself (nesting is what multiplies an alias bomb), else the first.
 */
function culpritAlias(doc: Document): Alias | undefined {
  const anchored = new Map<string, Node>();
  const aliases: { alias: Alias; target?: Node }[] = [];
  visit(doc, (_, node) => {
    if (isAlias(node)) aliases.push({ alias: node, target: anchored.get(node.source) });
    else if (isNode(node) && node.anchor) anchored.set(node.anchor, node);
  });
  const holdsAlias = (n: unknown): boolean =>
    isAlias(n) || (isPair(n) && (holdsAlias(n.key) || holdsAlias(n.value))) || (isCollection(n) && n.items.some(holdsAlias));
  const nested = new Map<Node, boolean>(); // each anchored node is searched once, however many aliases name it
  const multiplies = (n: Node) => nested.get(n) ?? nested.set(n, holdsAlias(n)).get(n)!;
  return (aliases.find((a) => !a.target) ?? aliases.find((a) => multiplies(a.target!)) ?? aliases[0])?.alias;
}

/** The document as plain data; an alias that cannot be expanded (no anchor, or an alias bomb) is an InputError. */
function plainData(file: string, doc: Document, lines: LineCounter): unknown {
  try {
    return doc.toJS();
  } catch (e) {
    // `yaml` throws ReferenceError for aliases only: a missing anchor, or too many expansions ("billion laughs").
    if (!(e instanceof ReferenceError)) throw e;
    const at = culpritAlias(doc)?.range?.[0];
    throw new InputError({
      file,
      ...(at === undefined ? {} : lines.linePos(at)),
      what: `YAML alias cannot be expanded: ${e.message}`,
      todo: 'set each anchor (&name) before its aliases (*name), and write repeated values out instead of nesting aliases',
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
  // An unknown tag (`!!python/object`, `!custom`) is read as if it were not there: refused, so nothing means other
  // than it says.
  const tags = doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tags.length) {
    throw new InputError(
      tags.map((w) => {
        const tag = (/^Unresolved tag: (\S+)/.exec(w.message)?.[1] ?? 'a tag').replace(/^tag:yaml\.org,2002:/, '!!');
        return {
          file,
          ...lines.linePos(w.pos[0]),
          what: `unknown YAML tag ${tag}`,
          todo: 'remove the tag: these files take plain YAML values',
        };
      }),
    );
  }
  return new LocatedYaml(file, doc, plainData(file, doc, lines), lines);
}

/** The keys an object schema at `path` takes (through lists, optional, default, refined and transformed values). */
function keysAt(schema: z.ZodTypeAny, path: readonly (string | number)[]): string[] {
  let at: z.ZodTypeAny | undefined = schema;
  const unwrap = (t: z.ZodTypeAny): z.ZodTypeAny => {
    // Optional, nullable and default wrap an `innerType`; refinements and transforms wrap a `schema`.
    const def = t._def as { innerType?: z.ZodTypeAny; schema?: z.ZodTypeAny };
    const inner = def.innerType ?? def.schema;
    return inner ? unwrap(inner) : t;
  };
  for (const key of path) {
    const t = unwrap(at);
    if (typeof key === 'number' && t instanceof zArray) at = (t as z.ZodArray<z.ZodTypeAny>).element;
    else if (typeof key === 'string' && t instanceof zObject) at = (t as z.AnyZodObject).shape[key] as z.ZodTypeAny | undefined;
    else at = undefined;
    if (!at) return [];
  }
  const end = unwrap(at);
  return end instanceof zObject ? Object.keys((end as z.AnyZodObject).shape) : [];
}

/**
 * A path as a message says it: `plan.verb`, and for a list of items with ids (cases), the item by its id rather
 * than its index (`case "jira-create": \`plan.verb\``).
 */
function pathText(value: unknown, path: readonly (string | number)[], itemName: string | undefined): string {
  const item = typeof path[0] === 'number' && Array.isArray(value) ? (value[path[0]] as { id?: unknown } | undefined) : undefined;
  if (itemName && typeof item?.id === 'string') {
    const rest = path.slice(1);
    return `${itemName} "${item.id}"${rest.length ? ` ${'`'}${rest.join('.')}${'`'}` : ''}`;
  }
  return path.length ? `${'`'}${path.join('.')}${'`'}` : 'the document';
}

interface Described {
  what: string;
  todo: string;
  keyPath?: string;
  /** A missing key an unknown key was probably meant to be: said once, at the typo. */
  meant?: string;
}

function describeIssue(issue: z.ZodIssue, value: unknown, schema: z.ZodTypeAny, itemName: string | undefined): Described {
  const at = pathText(value, issue.path, itemName);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') {
        const key = String(issue.path.at(-1));
        const owner = pathText(value, issue.path.slice(0, -1), itemName);
        return { what: `${issue.path.length > 1 ? `${owner}: ` : ''}\`${key}\` is missing`, todo: `add \`${key}\` (${issue.expected})` };
      }
      return { what: `${at} should be ${issue.expected}, not ${issue.received}`, todo: `write it as ${issue.expected}` };
    case 'unrecognized_keys': {
      const known = keysAt(schema, issue.path);
      const meant = issue.keys.length === 1 ? nearestName(issue.keys[0]!, known) : undefined;
      const where = issue.path.length ? ` in ${at}` : '';
      return {
        what: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}${where}`,
        todo: meant
          ? `did you mean \`${meant}\`?`
          : known.length
            ? `remove it or fix its spelling (known keys: ${known.join(', ')})`
            : 'remove it or fix its spelling',
        keyPath: issue.keys[0],
        ...(meant ? { meant } : {}),
      };
    }
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

/**
 * A union every member refused, as the refusals of the one member of the value's type (`context: feild` is a
 * misspelled context, not a list that is missing): its own issues, at their full paths. Left whole otherwise.
 */
function ofMatchingMember(issue: z.ZodIssue): z.ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const ofType = issue.unionErrors.filter((e) => !e.issues.some((i) => i.code === 'invalid_type' && i.path.length === issue.path.length));
  return ofType.length === 1 ? ofType[0]!.issues.flatMap(ofMatchingMember) : [issue];
}

/**
 * Validates a located YAML document against a zod schema; every issue becomes file:line:col. `itemName` names the
 * items of a top-level list by their `id` in messages (a cases file: "case").
 */
export function validateYaml<S extends z.ZodTypeAny>(y: LocatedYaml, schema: S, itemName?: string): z.output<S> {
  const result = schema.safeParse(y.value);
  if (result.success) return result.data;
  const described = result.error.issues
    .flatMap(ofMatchingMember)
    .map((issue) => ({ issue, d: describeIssue(issue, y.value, schema, itemName) }));
  // `expct:` is one mistake, not two: its "did you mean" stands for the `expect` it leaves missing.
  const meantAt = new Set(described.flatMap(({ issue, d }) => (d.meant ? [[...issue.path, d.meant].join('\u0000')] : [])));
  const missingMeant = (issue: z.ZodIssue) =>
    issue.code === 'invalid_type' && issue.received === 'undefined' && meantAt.has(issue.path.join('\u0000'));
  throw new InputError(
    described
      .filter(({ issue }) => !missingMeant(issue))
      .map(({ issue, d }) => {
        const pos = d.keyPath ? y.locateKey(issue.path, d.keyPath) : y.locate(issue.path);
        return { file: y.file, ...pos, what: d.what, todo: d.todo };
      }),
  );
}

export function loadYamlFile<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
  what: string,
  cwd?: string,
): { value: z.output<S>; yaml: LocatedYaml } {
  const y = parseYamlText(file, readTextFile(file, what, { cwd }));
  return { value: validateYaml(y, schema), yaml: y };
}
