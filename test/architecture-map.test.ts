import { describe, expect, it } from 'vitest';
import {
  codeSpans,
  entriesOf,
  fileGraph,
  folderGraph,
  importCycles,
  impureGlobals,
  longFunctions,
  impureImports,
  mapProblems,
  markdownTables,
  namedPaths,
  resolveSpecifier,
  specifiersOf,
  tableUnder,
  topLevelNames,
  unionLiterals,
  unlistedRegistries,
  withoutFences,
  type MapProblems,
  type TreeFacts,
} from './architecture-map.js';

/** The checks behind test/architecture.test.ts, each shown failing on a small bad input and passing on a good one. */

describe('reading imports with the compiler', () => {
  it.each([
    ["import { a } from './a.js';", [{ specifier: './a.js', typeOnly: false }]],
    ["import type { T } from './t.js';", [{ specifier: './t.js', typeOnly: true }]],
    ["import { type T, type U } from './t.js';", [{ specifier: './t.js', typeOnly: true }]],
    ["import { type T, b } from './t.js';", [{ specifier: './t.js', typeOnly: false }]],
    ["import './side-effect.js';", [{ specifier: './side-effect.js', typeOnly: false }]],
    ["export { x } from './x.js';", [{ specifier: './x.js', typeOnly: false }]],
    ["export type { Y } from './y.js';", [{ specifier: './y.js', typeOnly: true }]],
    ["export * from 'node:fs';", [{ specifier: 'node:fs', typeOnly: false }]],
    ["const fs = await import('node:fs/promises');", [{ specifier: 'node:fs/promises', typeOnly: false }]],
    ["const { execa } = require('execa');", [{ specifier: 'execa', typeOnly: false }]],
    ["let z: import('../run/store.js').RunStore;", [{ specifier: '../run/store.js', typeOnly: true }]],
    ["import fs = require('fs');", [{ specifier: 'fs', typeOnly: false }]],
    // Text that only looks like an import is none.
    ["// import { readFile } from 'node:fs';\nconst s = \"import x from 'fs'\";", []],
  ])('%s', (text, expected) => {
    expect(specifiersOf('x.ts', text)).toEqual(expected);
  });

  it.each([
    ['grade/stored.ts', '../run/store.js', 'run/store.ts'],
    ['stats/decision-modes/registry.ts', '../../run/schema.js', 'run/schema.ts'],
    ['cli.ts', './cli/main.js', 'cli/main.ts'],
    ['grade/stored.ts', './missing.js', undefined],
    ['grade/stored.ts', 'node:fs', undefined],
  ])('%s imports %s: %s', (from, specifier, to) => {
    expect(resolveSpecifier(from, specifier, new Set(['run/store.ts', 'run/schema.ts', 'cli/main.ts']))).toBe(to);
  });
});

describe('a pure folder touches nothing', () => {
  const pure = ['grade', 'tune', 'stats', 'lint', 'checks'];
  it.each([
    [{ from: 'grade/stored.ts', specifier: 'node:fs' }, 'grade/stored.ts -> node:fs (a file system module)'],
    [{ from: 'grade/stored.ts', specifier: 'fs/promises' }, 'grade/stored.ts -> fs/promises (a file system module)'],
    [{ from: 'stats/x.ts', specifier: 'graceful-fs' }, 'stats/x.ts -> graceful-fs (a file system module)'],
    [{ from: 'tune/drive.ts', specifier: 'execa' }, 'tune/drive.ts -> execa (a process spawner)'],
    [{ from: 'tune/drive.ts', specifier: 'node:child_process' }, 'tune/drive.ts -> node:child_process (a process spawner)'],
    [{ from: 'grade/judged.ts', specifier: '../run/store.js', to: 'run/store.ts' }, 'grade/judged.ts -> ../run/store.js (the run store)'],
    [
      { from: 'lint/tools.ts', specifier: '../agents/registry.js', to: 'agents/registry.ts' },
      'lint/tools.ts -> ../agents/registry.js (the agent registry)',
    ],
  ])('refuses %j', (edge, problem) => {
    expect(impureImports([edge], pure)).toEqual([problem]);
  });

  it.each([
    { from: 'grade/outcome.ts', specifier: '../run/schema.js', to: 'run/schema.ts' },
    { from: 'checks/judge.ts', specifier: 'zod' },
    { from: 'stats/x.ts', specifier: 'node:crypto' },
    { from: 'runner/execute.ts', specifier: 'node:fs' },
    { from: 'runner/execute.ts', specifier: '../run/store.js', to: 'run/store.ts' },
    { from: 'runner/load-suite.ts', specifier: '../agents/registry.js', to: 'agents/registry.ts' },
  ])('allows %j', (edge) => {
    expect(impureImports([edge], pure)).toEqual([]);
  });

  it.each([
    ['const env = process.env.HOME;', ['x.ts:1 process']],
    ['const { cwd } = process;', ['x.ts:1 process']],
    ['f({ process });', ['x.ts:1 process']],
    ['const t = Date.now();', ['x.ts:1 Date.now (the clock)']],
    ['const t = performance.now();', ['x.ts:1 performance.now (the clock)']],
    ['const d = new Date();', ['x.ts:1 new Date() (the clock)']],
    ['\nconst u = Math.random();', ['x.ts:2 Math.random (unseeded randomness)']],
    // A name that only reads like a global, and a date made from a value, are pure.
    ['const d = new Date(0); const p = Date.parse(s);', []],
    ['const o = { process: 1 }; o.process; interface A { process: string }', []],
    ['import { process as step } from "./x.js";', []],
  ])('%s', (text, expected) => {
    expect(impureGlobals('x.ts', text)).toEqual(expected);
  });
});

describe('imports form no cycle', () => {
  const edge = (from: string, to: string) => ({ from, to });
  it.each([
    ['a chain', [edge('load/a.ts', 'stats/b.ts'), edge('stats/b.ts', 'util/c.ts')], []],
    ['imports inside one folder', [edge('grade/a.ts', 'grade/b.ts'), edge('grade/b.ts', 'grade/a.ts')], []],
    ['a package import', [{ from: 'grade/a.ts' }], []],
    [
      'two folders importing each other through different files',
      [edge('load/decision.ts', 'stats/design-size.ts'), edge('stats/sample-size.ts', 'load/cases.ts')],
      [{ nodes: ['load', 'stats'], imports: ['load/decision.ts -> stats/design-size.ts', 'stats/sample-size.ts -> load/cases.ts'] }],
    ],
    [
      'a cycle of three',
      [edge('a/1.ts', 'b/1.ts'), edge('b/1.ts', 'c/1.ts'), edge('c/1.ts', 'a/1.ts'), edge('c/1.ts', 'd/1.ts')],
      [{ nodes: ['a', 'b', 'c'], imports: ['a/1.ts -> b/1.ts', 'b/1.ts -> c/1.ts', 'c/1.ts -> a/1.ts'] }],
    ],
    [
      'two separate cycles',
      [edge('a/1.ts', 'b/1.ts'), edge('b/1.ts', 'a/1.ts'), edge('c/1.ts', 'd/1.ts'), edge('d/1.ts', 'c/1.ts'), edge('b/1.ts', 'c/1.ts')],
      [
        { nodes: ['a', 'b'], imports: ['a/1.ts -> b/1.ts', 'b/1.ts -> a/1.ts'] },
        { nodes: ['c', 'd'], imports: ['c/1.ts -> d/1.ts', 'd/1.ts -> c/1.ts'] },
      ],
    ],
  ])('%s', (_name, edges, cycles) => {
    expect(importCycles(folderGraph(edges))).toEqual(cycles);
  });

  it('files: a cycle between files, and none where only their folders meet', () => {
    const edges = [edge('a/1.ts', 'a/2.ts'), edge('a/2.ts', 'b/1.ts'), edge('b/1.ts', 'a/1.ts'), edge('b/2.ts', 'a/3.ts')];
    expect(importCycles(fileGraph(edges))).toEqual([
      { nodes: ['a/1.ts', 'a/2.ts', 'b/1.ts'], imports: ['a/1.ts -> a/2.ts', 'a/2.ts -> b/1.ts', 'b/1.ts -> a/1.ts'] },
    ]);
    expect(importCycles(fileGraph(edges.slice(1)))).toEqual([]);
  });
});

describe('reading the map', () => {
  it('reads tables under their headings, with escaped pipes inside cells', () => {
    const md = '# A\n\n| x | y |\n| --- | --- |\n| `a \\| b` | c |\n\ntext\n\n## B\n| z |\n| :-- |\n| 1 |\n';
    expect(markdownTables(md)).toEqual([
      { heading: 'A', header: ['x', 'y'], rows: [['`a | b`', 'c']] },
      { heading: 'B', header: ['z'], rows: [['1']] },
    ]);
    expect(tableUnder(md, 'b').rows).toEqual([['1']]);
    expect(() => tableUnder(md, 'C')).toThrow('expected one table under a heading "C…", found 0');
  });

  it('reads code spans outside fenced blocks only', () => {
    expect(codeSpans(withoutFences('`a` and\n```\nx `b`\n```\n`c`'))).toEqual(['a', 'c']);
  });

  it('reads an entry cell as files, each with the names after it', () => {
    expect(entriesOf('`src/a.ts` `run` `Store`; then `src/b.ts` `go`, and `--flag`')).toEqual([
      { file: 'src/a.ts', names: ['run', 'Store'] },
      { file: 'src/b.ts', names: ['go'] },
    ]);
  });

  it('reads paths from the repository root, and from src/ where their first folder is one of it', () => {
    expect(
      namedPaths(
        [
          'src/run/',
          'run/store.ts',
          'test/helpers.ts',
          'skills/',
          'src/agents/<id>/adapter.ts',
          'schemas/*.json',
          'run.json',
          'run/store.ts',
        ],
        new Set(['run']),
      ),
    ).toEqual(['src/run', 'src/run/store.ts', 'test/helpers.ts']);
  });

  it('reads a module’s top-level names and a union type’s literals', () => {
    const text =
      "export function a() {}\nconst B = 1, C = 2;\nclass D {}\ntype E = 'x' | 'y' | number;\ninterface F {}\nfunction g() { const h = 1; }";
    expect([...topLevelNames('m.ts', text)].sort()).toEqual(['B', 'C', 'D', 'E', 'F', 'a', 'g']);
    expect(unionLiterals('m.ts', text, 'E')).toEqual(['x', 'y']);
    expect(() => unionLiterals('m.ts', text, 'Z')).toThrow('m.ts declares no type Z');
  });
});

describe('the map against the tree', () => {
  const MAP = [
    '## Find it fast',
    '| feature | start at |',
    '| --- | --- |',
    '| run a suite: `skillprobe run` | `src/cli/run.ts` `runCommand`; `src/runner/pipeline.ts` `runPipeline` |',
    '| `skillprobe lint` | `src/lint/rules.ts` `lintRules` |',
    '## Folders: what each holds',
    '| folder | holds | touches |',
    '| --- | --- | --- |',
    '| `src/cli/` | commands | only through io |',
    '| `src/lint/` | rules | pure |',
    '| `src/runner/` | the pipeline; `src/runner/parts/` | disk |',
    '## Registries',
    '| registry | members |',
    '| --- | --- |',
    '| `COMMANDS` in `src/cli/registry.ts` | `run` `lint` |',
    '## Glossary',
    '| word | means |',
    '| --- | --- |',
    '| run | one suite |',
    '| trial | one CLI run |',
  ].join('\n');
  const FILES: Record<string, string[]> = {
    'src/cli/run.ts': ['runCommand'],
    'src/cli/registry.ts': ['COMMANDS'],
    'src/runner/pipeline.ts': ['runPipeline'],
    'src/lint/rules.ts': ['lintRules'],
  };
  const TREE: TreeFacts = {
    folders: ['cli', 'lint', 'runner', 'runner/parts'],
    pureFolders: ['lint'],
    registries: [{ name: 'COMMANDS', file: 'src/cli/registry.ts', members: ['run', 'lint'] }],
    commands: ['run', 'lint'],
    exists: (path) => Object.hasOwn(FILES, path) || ['src/cli', 'src/lint', 'src/runner', 'src/runner/parts'].includes(path),
    declared: (file) => (Object.hasOwn(FILES, file) ? new Set(FILES[file]) : undefined),
  };
  const NONE: MapProblems = { folders: [], subfolders: [], pure: [], registries: [], commands: [], paths: [], names: [], glossary: [] };

  it('finds nothing wrong with a true map', () => {
    expect(mapProblems(MAP, TREE)).toEqual(NONE);
  });

  it.each<[string, string, Partial<TreeFacts>, Partial<MapProblems>]>([
    ['a folder added to src/', MAP, { folders: [...TREE.folders, 'tune'] }, { folders: ['the folders table lacks tune'] }],
    [
      'a folder gone from src/',
      MAP.replace(
        '| `src/cli/` | commands | only through io |\n',
        '| `src/cli/` | commands | only through io |\n| `src/old/` | gone | disk |\n',
      ),
      {},
      { folders: ['the folders table names old, which is not there'], paths: ['src/old does not exist'] },
    ],
    [
      'a folder inside one, named nowhere',
      MAP.replace('; `src/runner/parts/`', ''),
      {},
      { subfolders: ['src/runner/parts/ is named nowhere'] },
    ],
    [
      'a pure folder not marked pure',
      MAP.replace('| rules | pure |', '| rules | disk |'),
      {},
      { pure: ['the folders marked pure lacks lint'] },
    ],
    [
      'an impure folder marked pure',
      MAP.replace('| disk |', '| pure |'),
      {},
      { pure: ['the folders marked pure names runner, which is not there'] },
    ],
    [
      'a registry member added',
      MAP,
      {
        registries: [{ name: 'COMMANDS', file: 'src/cli/registry.ts', members: ['run', 'lint', 'tune'] }],
        commands: ['run', 'lint', 'tune'],
      },
      { registries: ['the members of COMMANDS lacks tune'], commands: ['"find it fast" lacks skillprobe tune'] },
    ],
    [
      'a registry member removed',
      MAP,
      { registries: [{ name: 'COMMANDS', file: 'src/cli/registry.ts', members: ['run'] }], commands: ['run'] },
      {
        registries: ['the members of COMMANDS names lint, which is not there'],
        commands: ['"find it fast" names skillprobe lint, which is not there'],
      },
    ],
    [
      'a registry added',
      MAP,
      { registries: [...TREE.registries, { name: 'ADAPTERS', file: 'src/cli/registry.ts', members: [] }] },
      { registries: ['the registries table lacks ADAPTERS in src/cli/registry.ts', 'src/cli/registry.ts declares no ADAPTERS'] },
    ],
    [
      'a registry renamed in its module',
      MAP,
      { declared: (file) => (file === 'src/cli/registry.ts' ? new Set(['ALL_COMMANDS']) : TREE.declared(file)) },
      { registries: ['src/cli/registry.ts declares no COMMANDS'] },
    ],
    [
      'a function renamed',
      MAP,
      { declared: (file) => (file === 'src/runner/pipeline.ts' ? new Set(['runStages']) : TREE.declared(file)) },
      { names: ['src/runner/pipeline.ts declares no runPipeline'] },
    ],
    [
      'a file moved',
      MAP,
      {
        exists: (path) => path !== 'src/runner/pipeline.ts' && TREE.exists(path),
        declared: (file) => (file === 'src/runner/pipeline.ts' ? undefined : TREE.declared(file)),
      },
      { paths: ['src/runner/pipeline.ts does not exist'] },
    ],
    ['a word defined twice', `${MAP}\n| Trial | a case's run |`, {}, { glossary: ['"trial" is defined twice'] }],
  ])('names %s', (_name, map, tree, problems) => {
    expect(mapProblems(map, { ...TREE, ...tree })).toEqual({ ...NONE, ...problems });
  });

  it('refuses a map without one of its tables', () => {
    expect(() => mapProblems(MAP.replace('## Glossary', '## Words'), TREE)).toThrow(
      'expected one table under a heading "Glossary…", found 0',
    );
  });

  it('names a registry module no registry is read from', () => {
    const registries = [{ file: 'src/cli/registry.ts' }];
    expect(unlistedRegistries(['src/cli/registry.ts', 'src/cli/run.ts', 'src/sim/registry.ts'], registries)).toEqual([
      'src/sim/registry.ts',
    ]);
  });
});

describe('functions stay short', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  it.each([
    ['a declared function', (n: number) => `export function big() {\n${body(n)}\n}\n`, 'f.ts:1 big'],
    ['an arrow bound to a variable', (n: number) => `// a comment\nconst big = () => {\n${body(n)}\n};\n`, 'f.ts:2 big'],
    ['a method', (n: number) => `class C {\n  big() {\n${body(n)}\n  }\n}\n`, 'f.ts:2 big'],
    ['a callback', (n: number) => `app.get('/', async (c) => {\n${body(n)}\n});\n`, 'f.ts:1 (anonymous)'],
  ])('%s: over the limit is named with its line and length, at it is not', (_, source, where) => {
    // The span counts the first and last lines: a body of 8 lines spans 10.
    expect(longFunctions('f.ts', source(8), 9)).toEqual([`${where}: 10 lines`]);
    expect(longFunctions('f.ts', source(8), 10)).toEqual([]);
  });

  it('a nested function too long counts, inside its parent', () => {
    const text = `function outer() {\n  function inner() {\n${body(10)}\n  }\n}\n`;
    expect(longFunctions('f.ts', text, 11)).toEqual(['f.ts:1 outer: 14 lines', 'f.ts:2 inner: 12 lines']);
  });
});
