import { OPERATOR_NAMES } from '../src/mutate/registry.js';
import { IMPORTERS } from '../src/load/import/registry.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IDS } from '../src/agents/registry.js';
import { CHECK_KINDS, EXPECT_CHECKS } from '../src/checks/registry.js';
import { COMMANDS } from '../src/cli/registry.js';
import { REPORTER_NAMES } from '../src/report/registry.js';
import { DECISION_MODE_REGISTRY, DESIGN_KINDS } from '../src/stats/decision-modes/registry.js';
import {
  fileGraph,
  folderGraph,
  importCycles,
  folderOf,
  impureGlobals,
  impureImports,
  longFunctions,
  mapProblems,
  processMembers,
  scanImports,
  sourceFiles,
  sourceFolders,
  topLevelNames,
  unionLiterals,
  unlistedRegistries,
  type ImportEdge,
  type MapProblems,
} from './architecture-map.js';
import { ROOT } from './helpers.js';

/**
 * The folder list is the data path. A module may import its own folder and any folder before it, never one after
 * it. `util` and `run` (the run folder's contract) come first because every stage uses them; `checks` (the plan-check
 * kinds: schemas and pure graders) sits between them, because the run folder stores each case's checks; `transcript`
 * is the adapters' output type, so it comes before `agents`; `mcp` (the stub MCP server: its file's schema, answers and
 * record) sits after `run`, because loading checks a stub's file and every stage after reads what its record holds; `schema`, `lint`, `init`, `runner`, `commands` and the
 * CLI put the stages together and come last.
 */
const ORDER = [
  'util',
  'checks',
  'run',
  'mcp',
  'load',
  'trials',
  'workspace',
  'transcript',
  'agents',
  'grade',
  'stats',
  'verdict',
  'tune',
  'report',
  'sim',
  'mutate',
  'schema',
  'lint',
  'init',
  'runner',
  'commands',
  'cli',
  'cli.ts',
];

/** The imports that run against the order on purpose, each with its reason. */
const ALLOWED_UPSTREAM: Record<string, string> = {
  'trials/schedule.ts -> stats/sequential-design.ts': 'the sequential scheduler walks the design: it asks it whether a case is decided',
  'trials/schedule.ts -> stats/case-design.ts': 'the scheduler reads the design stored with each case',
  'trials/stored-case.ts -> stats/case-design.ts':
    'a case carries its design, built once before any trial, so every stage replays the same boundaries',
  'load/decision.ts -> stats/design-size.ts':
    'a config is refused where its design would be too large to build, a size only the statistics know',
  'load/decision.ts -> stats/decision-modes/registry.ts':
    'a config is refused where its decision mode could not build its design: the mode says when it builds one',
};

/** The folders that put the stages together: they call any stage, grading included. */
const ASSEMBLY = ORDER.slice(ORDER.indexOf('schema'));

/**
 * The stages' imports of grading, each with its reason; at most two, counted as the compiler reads them (`import type`
 * included). What the stages share with grading (the fired-column literals, the exclusion reasons, the status
 * groups) is the run folder's vocabulary, in `run`.
 */
const ALLOWED_INTO_GRADE: Record<string, string> = {
  'report/html/transcript.ts -> grade/plan.ts': "the transcript view marks the grader's planned calls, in the grader's canonical form",
  'mutate/rates.ts -> grade/plan.ts': "a mutant's predicted pass chance is what the grader says of the plans the simulator would write",
};

/** The modules that read `process.env` beside the edge, each with its reason; everything else has the command's `io.env`. */
const ALLOWED_ENV_READS: Record<string, string> = {
  'agents/cli-binary.ts': "asking a binary its version runs it with only this process's PATH, in a fresh HOME, before any run exists",
  'workspace/sealed.ts': "the system temp folder is where Node's tmpdir() says, from TMPDIR: a message names which of the two it was",
};

/** The folders whose modules are pure functions: no disk, no process, no clock, no unseeded randomness. */
const PURE_FOLDERS = ['checks', 'transcript', 'grade', 'stats', 'verdict', 'tune', 'mutate', 'lint'];

const SRC = join(ROOT, 'src');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Every import of the tree, read once with the compiler for every check below. */
let edges: ImportEdge[];
beforeAll(() => {
  edges = scanImports(SRC);
});

describe('architecture: the data path has no cycles and no import runs upstream', () => {
  let graph: Record<string, string[]>;
  beforeAll(() => {
    graph = Object.fromEntries([...fileGraph(edges)].map(([file, deps]) => [file, [...deps.keys()]]));
  });

  it('sees the whole source tree', () => {
    expect(Object.keys(graph).length).toBeGreaterThan(60);
    expect(Object.keys(graph).every((f) => ORDER.includes(folderOf(f)))).toBe(true);
  });

  it('has no import cycles between files', () => {
    expect(importCycles(fileGraph(edges))).toEqual([]);
  });

  it('the run folder contract imports no stage: only itself, util and checks', () => {
    const outside = Object.entries(graph)
      .filter(([f]) => folderOf(f) === 'run')
      .flatMap(([f, deps]) => deps.filter((d) => !['run', 'util', 'checks'].includes(folderOf(d))).map((d) => `${f} -> ${d}`));
    expect(outside).toEqual([]);
  });

  const imports = () => Object.entries(graph).flatMap(([f, deps]) => deps.map((d) => ({ from: f, to: d, edge: `${f} -> ${d}` })));

  it('reporters know no agent: what they say of one (its refusal advice, its read echo) comes in their input', () => {
    expect(
      imports()
        .filter((i) => folderOf(i.from) === 'report' && folderOf(i.to) === 'agents')
        .map((i) => i.edge),
    ).toEqual([]);
  });

  it('the stages import grading only where listed with a reason', () => {
    const intoGrade = imports().filter(
      (i) => folderOf(i.to) === 'grade' && folderOf(i.from) !== 'grade' && !ASSEMBLY.includes(folderOf(i.from)),
    );
    expect(intoGrade.map((i) => i.edge).sort()).toEqual(Object.keys(ALLOWED_INTO_GRADE).sort());
    expect(Object.keys(ALLOWED_INTO_GRADE).length).toBeLessThanOrEqual(2);
  });

  it('no import runs upstream, but for the ones listed with a reason', () => {
    const upstream = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => ORDER.indexOf(folderOf(d)) > ORDER.indexOf(folderOf(f))).map((d) => `${f} -> ${d}`),
    );
    expect(upstream.sort()).toEqual(Object.keys(ALLOWED_UPSTREAM).sort());
  });
});

/** The folders that put a run together, whose functions stay short enough to read at once (issue 33). */
const SHORT_FUNCTION_FOLDERS = ['commands', 'runner', 'tune'];
const MAX_FUNCTION_LINES = 100;

describe('architecture: functions stay short where a run is put together', () => {
  it(`no function in src/${SHORT_FUNCTION_FOLDERS.join(', src/')} spans more than ${MAX_FUNCTION_LINES} lines`, () => {
    const files = sourceFiles(SRC).filter((f) => SHORT_FUNCTION_FOLDERS.includes(folderOf(f)));
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((f) => longFunctions(`src/${f}`, read(join('src', f)), MAX_FUNCTION_LINES))).toEqual([]);
  });
});

describe('architecture: pure folders touch nothing, and folders form no cycle', () => {
  it('reads the whole tree with the compiler, type imports included', () => {
    expect(new Set(edges.map((e) => e.from)).size).toBeGreaterThan(60);
    expect(edges.some((e) => e.typeOnly && e.to !== undefined)).toBe(true);
    // Every relative import of a module resolves to a file of the tree, so none escapes the checks (package.json is data).
    const unresolved = edges.filter((e) => e.specifier.startsWith('.') && !e.specifier.endsWith('.json') && e.to === undefined);
    expect(unresolved.map((e) => `${e.from} -> ${e.specifier}`)).toEqual([]);
  });

  it('a pure folder imports no file system module, process spawner, run store or agent registry', () => {
    expect(impureImports(edges, PURE_FOLDERS)).toEqual([]);
  });

  it('a pure folder reads no process global, clock or unseeded randomness', () => {
    const pure = sourceFiles(SRC).filter((f) => PURE_FOLDERS.includes(folderOf(f)));
    expect(pure.flatMap((f) => impureGlobals(f, read(join('src', f))))).toEqual([]);
  });

  it("only the edge (src/cli.ts) reads or changes the process's working folder: commands take theirs from io", () => {
    const outside = sourceFiles(SRC).filter((f) => f !== 'cli.ts');
    expect(outside.flatMap((f) => processMembers(f, read(join('src', f)), ['cwd', 'chdir']))).toEqual([]);
  });

  it("no module finds a file by its own URL (in the bundled dist/cli.js every module's URL is the bundle's): util/package-root.ts does", () => {
    const byOwnUrl = sourceFiles(SRC).filter(
      (f) => f !== 'util/package-root.ts' && /\bimport\.meta\.(url|dirname|filename)\b/.test(read(join('src', f))),
    );
    expect(byOwnUrl).toEqual([]);
  });

  it("the process's environment is read at the edge (src/cli.ts) and only where listed with a reason", () => {
    const outside = sourceFiles(SRC).filter((f) => f !== 'cli.ts');
    const readers = new Set(outside.filter((f) => processMembers(f, read(join('src', f)), ['env']).length));
    expect([...readers].sort()).toEqual(Object.keys(ALLOWED_ENV_READS).sort());
  });

  it('the folders import each other without a cycle (the folder-level graph, type imports included)', () => {
    expect(importCycles(folderGraph(edges))).toEqual([]);
  });
});

/**
 * The registries the map lists with their members: each read from the module that holds it, so a member added or
 * renamed there and not here in the map fails. A registry renamed or moved is a line here.
 */
const REGISTRIES: { name: string; file: string; members: () => readonly string[] }[] = [
  { name: 'ADAPTERS', file: 'src/agents/registry.ts', members: () => AGENT_IDS },
  { name: 'REPORTERS', file: 'src/report/registry.ts', members: () => REPORTER_NAMES },
  { name: 'CHECK_KINDS', file: 'src/checks/registry.ts', members: () => Object.keys(CHECK_KINDS) },
  { name: 'EXPECT_CHECKS', file: 'src/checks/registry.ts', members: () => Object.keys(EXPECT_CHECKS) },
  { name: 'DECISION_MODE_REGISTRY', file: 'src/stats/decision-modes/registry.ts', members: () => Object.keys(DECISION_MODE_REGISTRY) },
  { name: 'DESIGN_KINDS', file: 'src/stats/decision-modes/registry.ts', members: () => DESIGN_KINDS.map((d) => d.kind) },
  { name: 'COMMANDS', file: 'src/cli/registry.ts', members: () => COMMANDS.map((c) => c.name) },
  { name: 'IMPORTERS', file: 'src/load/import/registry.ts', members: () => IMPORTERS.map((i) => i.name) },
  { name: 'OPERATORS', file: 'src/mutate/registry.ts', members: () => OPERATOR_NAMES },
  { name: 'CheckId', file: 'src/lint/types.ts', members: () => unionLiterals('src/lint/types.ts', read('src/lint/types.ts'), 'CheckId') },
];

describe('architecture: ARCHITECTURE.md maps the tree as it is', () => {
  let problems: MapProblems;
  beforeAll(() => {
    const files = new Set(sourceFiles(SRC).map((f) => `src/${f}`));
    problems = mapProblems(read('ARCHITECTURE.md'), {
      folders: sourceFolders(SRC),
      pureFolders: PURE_FOLDERS,
      registries: REGISTRIES.map((r) => ({ ...r, members: r.members() })),
      commands: COMMANDS.map((c) => c.name),
      exists: (path) => existsSync(join(ROOT, path)),
      declared: (file) => (files.has(file) ? topLevelNames(file, read(file)) : undefined),
    });
  });

  it.each<[string, keyof MapProblems]>([
    ['its folders table has one row per folder of src/, and none for a folder that is gone', 'folders'],
    ['it names every folder inside them too', 'subfolders'],
    ['it marks pure exactly the folders held pure here', 'pure'],
    ['it lists every registry with exactly its members, read from the registry itself', 'registries'],
    ['it gives every command a row in "find it fast"', 'commands'],
    ['it names only files and folders that exist', 'paths'],
    ['"find it fast" names only functions and types its files declare', 'names'],
    ['its glossary gives each word one meaning', 'glossary'],
  ])('%s', (_title, kind) => {
    expect(problems[kind]).toEqual([]);
  });

  it('knows every registry module of src/', () => {
    expect(
      unlistedRegistries(
        sourceFiles(SRC).map((f) => `src/${f}`),
        REGISTRIES,
      ),
    ).toEqual([]);
  });
});
