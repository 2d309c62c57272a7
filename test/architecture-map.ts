/**
 * The checks behind test/architecture.test.ts, as pure functions of their inputs (a source tree's imports, a
 * Markdown map), so each is tested on small fake inputs as well as on the real tree.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { globSync } from 'tinyglobby';
import ts from 'typescript';

/** One module specifier a source file names: `to` is the file it resolves to when it is one of the tree's own. */
export interface ImportEdge {
  from: string;
  specifier: string;
  to?: string;
  /** Erased when compiled (`import type`, `import { type X }` only, `import('…').T`): no dependency at run time. */
  typeOnly: boolean;
}

/** Every `.ts` file under `dir`, as a path relative to it with `/` separators, sorted. */
export const sourceFiles = (dir: string) => globSync('**/*.ts', { cwd: dir }).sort();

/** Every folder under `dir`, relative to it with `/` separators, sorted. */
export const sourceFolders = (dir: string) =>
  globSync('**/', { cwd: dir, onlyDirectories: true })
    .map((f) => f.replace(/\/$/, ''))
    .filter((f) => f !== '' && f !== '.')
    .sort();

const isTypeOnlyImport = (d: ts.ImportDeclaration) => {
  const clause = d.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
};

/**
 * The module specifiers a file's text names: static imports and re-exports, `import x = require()`, dynamic `import()`,
 * `require()` and import types. Read with the compiler's parser, so a specifier in a string or a comment is no import.
 */
export function specifiersOf(fileName: string, text: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnlyImport(node) });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    )
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A relative specifier of `from` as the tree's file it names (`../run/store.js` → `run/store.ts`), if it is one. */
export function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  return [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, `${base}/index.ts`].find((f) => files.has(f));
}

/** Every import of every `.ts` file under `dir`. */
export function scanImports(dir: string): ImportEdge[] {
  const files = sourceFiles(dir);
  const known = new Set(files);
  return files.flatMap((from) =>
    specifiersOf(from, readFileSync(join(dir, from), 'utf8')).map(({ specifier, typeOnly }) => {
      const to = resolveSpecifier(from, specifier, known);
      return { from, specifier, typeOnly, ...(to ? { to } : {}) };
    }),
  );
}

/** A file's top-level folder (`grade/stored.ts` → `grade`); a file at the top is its own (`cli.ts`). */
export const folderOf = (file: string) => file.split('/')[0]!;

/** What a pure folder may not import, each with the reason a reader is told. */
export interface ImpurityRule {
  what: string;
  matches: (edge: Pick<ImportEdge, 'specifier' | 'to'>) => boolean;
}

/**
 * The disk, processes, the run folder and the agent CLIs: what a pure module may not reach. The store and the agent
 * registry are named by file, as the tree's imports resolve to them.
 */
export const IMPURITY_RULES: readonly ImpurityRule[] = [
  {
    what: 'a file system module',
    matches: (e) => /^(node:)?fs(\/|$)/.test(e.specifier) || ['fs-extra', 'graceful-fs'].includes(e.specifier),
  },
  { what: 'a process spawner', matches: (e) => /^execa(\/|$)/.test(e.specifier) || /^(node:)?child_process$/.test(e.specifier) },
  { what: 'the run store', matches: (e) => e.to === 'run/store.ts' },
  { what: 'the agent registry', matches: (e) => e.to === 'agents/registry.ts' },
];

/** Each import of a file in a pure folder that a rule forbids, as `file -> specifier (what it is)`. */
export function impureImports(
  edges: readonly Pick<ImportEdge, 'from' | 'specifier' | 'to'>[],
  pureFolders: readonly string[],
  rules: readonly ImpurityRule[] = IMPURITY_RULES,
): string[] {
  return edges.flatMap((e) => {
    if (!pureFolders.includes(folderOf(e.from))) return [];
    const rule = rules.find((r) => r.matches(e));
    return rule ? [`${e.from} -> ${e.specifier} (${rule.what})`] : [];
  });
}

/**
 * What a pure module's code may not use: the process (its environment, cwd, argv, exit), the clock and unseeded
 * randomness, each as `file:line what`. `new Date(x)` converts a value and is allowed; `new Date()` reads the clock.
 */
export function impureGlobals(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`);
  const call = (node: ts.Node, object: string, member: string) =>
    ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === object && node.name.text === member;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === 'process' && isReference(node)) at(node, 'process');
    else if (call(node, 'Date', 'now') || call(node, 'performance', 'now')) at(node, `${node.getText(source)} (the clock)`);
    else if (call(node, 'Math', 'random')) at(node, 'Math.random (unseeded randomness)');
    else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && !node.arguments?.length)
      at(node, 'new Date() (the clock)');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each use of `process.<member>` for the `members` named (read by the compiler: comments and strings hold none), as `file:line process.member`. */
export function processMembers(fileName: string, text: string, members: readonly string[]): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'process' &&
      members.includes(node.name.text)
    )
      found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} process.${node.name.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function's name as its source gives it: declared, a method's, or the variable or property an expression is bound to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) || ts.isStringLiteral(node.name)))
    return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const p = node.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && ts.isIdentifier(p.name))
    return p.name.text;
  return '(anonymous)';
}

/**
 * Each function of a file (declared, expression, arrow, method, accessor, constructor) whose span from its first line to
 * its last is longer than `maxLines`, as `file:line name: N lines`; nested functions count inside their parent too.
 */
export function longFunctions(fileName: string, text: string, maxLines: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > maxLines) found.push(`${fileName}:${first} ${functionName(node as ts.FunctionLikeDeclaration)}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** An identifier that refers to a binding, rather than naming a property, a member or a declaration. */
function isReference(node: ts.Identifier): boolean {
  const p = node.parent;
  if ((ts.isPropertyAccessExpression(p) && p.name === node) || (ts.isQualifiedName(p) && p.right === node)) return false;
  if (
    (ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p)) &&
    p.name === node
  )
    return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p)) && p.name === node) return false;
  return !(ts.isImportSpecifier(p) || ts.isExportSpecifier(p));
}

/** A graph of the tree's imports: for each node, the nodes it imports, each with the file imports that make the edge. */
export type ImportGraph = Map<string, Map<string, string[]>>;

/** The graph of `edges` with each file mapped to its node by `nodeOf`; imports inside one node and of packages are left out. */
function graphOf(edges: readonly Pick<ImportEdge, 'from' | 'to'>[], nodeOf: (file: string) => string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const e of edges) {
    const from = nodeOf(e.from);
    if (!graph.has(from)) graph.set(from, new Map());
    if (e.to === undefined || nodeOf(e.to) === from) continue;
    const to = nodeOf(e.to);
    const out = graph.get(from)!;
    out.set(to, [...(out.get(to) ?? []), `${e.from} -> ${e.to}`]);
  }
  return graph;
}

/** The file-level graph. */
export const fileGraph = (edges: readonly Pick<ImportEdge, 'from' | 'to'>[]) => graphOf(edges, (f) => f);

/** The folder-level graph: an edge wherever a file of one folder imports a file of another. */
export const folderGraph = (edges: readonly Pick<ImportEdge, 'from' | 'to'>[]) => graphOf(edges, folderOf);

/**
 * The cycles of a graph: each strongly connected set of more than one node (Tarjan's algorithm), sorted, with the file
 * imports that run between its nodes, so a failure names what to move.
 */
export function importCycles(graph: ImportGraph): { nodes: string[]; imports: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return components
    .sort((a, b) => a[0]!.localeCompare(b[0]!))
    .map((nodes) => ({
      nodes,
      imports: nodes.flatMap((f) => nodes.flatMap((g) => graph.get(f)?.get(g) ?? [])).sort(),
    }));
}

/** A Markdown table, with the heading of the section it is in. */
export interface MarkdownTable {
  heading: string;
  header: string[];
  rows: string[][];
}

/** A table row's cells: split at each `|` not escaped as `\|`, which GFM requires inside a cell, code spans included. */
const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll('\\|', '|'));

/** Every table of a Markdown text, in order, each under the nearest heading before it. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let heading = '';
  let current: MarkdownTable | undefined;
  for (const line of markdown.split('\n')) {
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title) heading = title[1]!.trim();
    if (!line.trimStart().startsWith('|')) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = { heading, header: cellsOf(line), rows: [] };
      tables.push(current);
    } else if (!cellsOf(line).every((c) => /^:?-+:?$/.test(c))) current.rows.push(cellsOf(line));
  }
  return tables;
}

/** The one table in the section whose heading starts with `heading`; an error naming the heading when there is none. */
export function tableUnder(markdown: string, heading: string): MarkdownTable {
  const found = markdownTables(markdown).filter((t) => t.heading.toLowerCase().startsWith(heading.toLowerCase()));
  if (found.length !== 1) throw new Error(`ARCHITECTURE.md: expected one table under a heading "${heading}…", found ${found.length}`);
  return found[0]!;
}

/** A Markdown text without its fenced blocks (whose lines are no code spans). */
export const withoutFences = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');

/** The code spans of a Markdown text, in order. */
export const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The names `expected` holds that `named` lacks, and those `named` holds that `expected` lacks (stale), sorted. */
export function mapDifference(expected: Iterable<string>, named: Iterable<string>): { missing: string[]; stale: string[] } {
  const want = new Set(expected);
  const have = new Set(named);
  return { missing: [...want].filter((n) => !have.has(n)).sort(), stale: [...have].filter((n) => !want.has(n)).sort() };
}

/**
 * The files and folders a map's code spans name, each as a path from the repository's root: `src/…`, `test/…`,
 * `bench/…`, and paths inside `src/` written from it (`run/store.ts`) when their first folder is one of `srcFolders`.
 * Patterns with a placeholder (`src/agents/<id>/adapter.ts`) are no path.
 */
export function namedPaths(spans: readonly string[], srcFolders: ReadonlySet<string>): string[] {
  return [
    ...new Set(
      spans.flatMap((s) => {
        if (/[<>*\s]/.test(s) || !/^[\w./-]+$/.test(s) || !(s.endsWith('.ts') || s.endsWith('/'))) return [];
        const first = s.split('/')[0]!;
        if (['src', 'test', 'bench'].includes(first)) return [s.replace(/\/$/, '')];
        return srcFolders.has(first) && s.includes('/') ? [`src/${s.replace(/\/$/, '')}`] : [];
      }),
    ),
  ];
}

/** The names a module declares at its top level (functions, classes, variables, types, interfaces, enums). */
export function topLevelNames(fileName: string, text: string): Set<string> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names = new Set<string>();
  for (const s of source.statements) {
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(s) ||
        ts.isClassDeclaration(s) ||
        ts.isInterfaceDeclaration(s) ||
        ts.isTypeAliasDeclaration(s) ||
        ts.isEnumDeclaration(s)) &&
      s.name
    )
      names.add(s.name.text);
  }
  return names;
}

/**
 * A "find it fast" entry cell read as the files it names and the names each file declares: a code span naming a
 * `.ts` file, then the code spans of the names in it (`src/runner/execute.ts` `executeRun`), before the next file.
 */
export function entriesOf(cell: string): { file: string; names: string[] }[] {
  const entries: { file: string; names: string[] }[] = [];
  for (const span of codeSpans(cell)) {
    if (span.endsWith('.ts')) entries.push({ file: span, names: [] });
    else if (/^[A-Za-z_$][\w$]*$/.test(span)) entries.at(-1)?.names.push(span);
  }
  return entries;
}

/** The string literals of a type alias's union (`type CheckId = 'load' | …`), read from a module's text. */
export function unionLiterals(fileName: string, text: string, typeName: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === typeName);
  if (!alias) throw new Error(`${fileName} declares no type ${typeName}`);
  const members = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return members.flatMap((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? [t.literal.text] : []));
}

/** What the map is checked against: the tree's folders, registries, commands, files and declarations. */
export interface TreeFacts {
  /** Every folder under `src/`, relative to it (`agents`, `agents/codex`, …). */
  folders: readonly string[];
  pureFolders: readonly string[];
  registries: readonly { name: string; file: string; members: readonly string[] }[];
  commands: readonly string[];
  /** Whether a path from the repository's root exists. */
  exists: (path: string) => boolean;
  /** The names a file from the repository's root declares at its top level; undefined when there is no such file. */
  declared: (file: string) => ReadonlySet<string> | undefined;
}

/** Everything the map gets wrong about the tree, by what it concerns; every list is empty for a true map. */
export interface MapProblems {
  folders: string[];
  subfolders: string[];
  pure: string[];
  registries: string[];
  commands: string[];
  paths: string[];
  names: string[];
  glossary: string[];
}

const folderName = (span: string) => span.replace(/^src\//, '').replace(/\/$/, '');

const differences = (what: string, expected: Iterable<string>, named: Iterable<string>) => {
  const { missing, stale } = mapDifference(expected, named);
  return [...missing.map((m) => `${what} lacks ${m}`), ...stale.map((s) => `${what} names ${s}, which is not there`)];
};

/**
 * Checks ARCHITECTURE.md against the tree: its folders table has a row per folder of `src/` and marks pure exactly
 * the pure ones; every folder inside them is named somewhere; its registries table lists each registry with exactly
 * its members; "find it fast" has a row for each command and names only functions its files declare; every path it
 * names exists; the glossary defines each word once.
 */
export function mapProblems(map: string, tree: TreeFacts): MapProblems {
  const top = tree.folders.filter((f) => !f.includes('/'));
  const folderRows = tableUnder(map, 'Folders').rows;
  const spans = codeSpans(withoutFences(map));
  const paths = namedPaths(spans, new Set(top));
  const registryRows = tableUnder(map, 'Registries').rows.map((r) => ({
    id: codeSpans(r[0] ?? '').join(' in '),
    members: codeSpans(r[1] ?? ''),
  }));
  const fast = tableUnder(map, 'Find it fast').rows;
  const words = tableUnder(map, 'Glossary').rows.map((r) => (r[0] ?? '').toLowerCase());
  return {
    folders: differences(
      'the folders table',
      top,
      folderRows.flatMap((r) =>
        codeSpans(r[0] ?? '')
          .filter((s) => s.startsWith('src/'))
          .map(folderName),
      ),
    ),
    subfolders: tree.folders
      .filter((f) => f.includes('/') && !paths.some((p) => `${p}/`.startsWith(`src/${f}/`)))
      .map((f) => `src/${f}/ is named nowhere`),
    pure: differences(
      'the folders marked pure',
      tree.pureFolders,
      folderRows.filter((r) => r.at(-1)?.trim() === 'pure').flatMap((r) => codeSpans(r[0] ?? '').map(folderName)),
    ),
    registries: [
      ...differences(
        'the registries table',
        tree.registries.map((r) => `${r.name} in ${r.file}`),
        registryRows.map((r) => r.id),
      ),
      ...tree.registries.flatMap((r) => {
        const row = registryRows.find((x) => x.id === `${r.name} in ${r.file}`);
        const declared = tree.declared(r.file)?.has(r.name) ? [] : [`${r.file} declares no ${r.name}`];
        return [...declared, ...(row ? differences(`the members of ${r.name}`, r.members, row.members) : [])];
      }),
    ],
    commands: differences(
      '"find it fast"',
      tree.commands.map((c) => `skillprobe ${c}`),
      fast.flatMap((r) => codeSpans(r[0] ?? '').filter((s) => /^skillprobe [a-z-]+$/.test(s))),
    ),
    paths: paths.filter((p) => !tree.exists(p)).map((p) => `${p} does not exist`),
    names: fast
      .flatMap((r) => entriesOf(r[1] ?? ''))
      .flatMap(({ file, names }) => {
        const declared = tree.declared(file);
        // A file that is not there is a path problem, named once there.
        return declared ? names.filter((n) => !declared.has(n)).map((n) => `${file} declares no ${n}`) : [];
      }),
    glossary: words.filter((w, i) => words.indexOf(w) !== i).map((w) => `"${w}" is defined twice`),
  };
}

/** The registry modules of a tree (`…/registry.ts`) that no listed registry is read from. */
export const unlistedRegistries = (files: readonly string[], registries: readonly { file: string }[]) =>
  files.filter((f) => f.endsWith('/registry.ts') && !registries.some((r) => r.file === f));
