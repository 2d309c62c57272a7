import madge from 'madge';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IDS } from '../src/agents/registry.js';
import { CHECK_KINDS, EXPECT_CHECKS } from '../src/checks/registry.js';
import { COMMANDS } from '../src/cli/registry.js';
import { REPORTER_NAMES } from '../src/report/registry.js';
import { DECISION_MODE_REGISTRY, DESIGN_KINDS } from '../src/stats/decision-modes/registry.js';
import {
  codeSpans,
  entriesOf,
  folderCycles,
  folderGraph,
  folderOf,
  impureGlobals,
  impureImports,
  mapDifference,
  namedPaths,
  scanImports,
  sourceFiles,
  sourceFolders,
  tableUnder,
  topLevelNames,
  unionLiterals,
  withoutFences,
  type ImportEdge,
} from './architecture-map.js';
import { ROOT } from './helpers.js';

/**
 * The folder list is the data path. A module may import its own folder and any folder before it, never one after
 * it. `util` and `run` (the run folder's contract) come first because every stage uses them; `checks` (the plan-check
 * kinds: schemas and pure graders) sits between them, because the run folder stores each case's checks; `transcript`
 * is the adapters' output type, so it comes before `agents`; `schema`, `lint`, `init`, `runner`, `commands` and the
 * CLI put the stages together and come last.
 */
const ORDER = [
  'util',
  'checks',
  'run',
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
 * The stages' imports of grading, each with its reason; at most two, counted as madge sees them (`import type`
 * included). What the stages share with grading (the fired-column literals, the exclusion reasons, the status
 * groups) is the run folder's vocabulary, in `run`.
 */
const ALLOWED_INTO_GRADE: Record<string, string> = {
  'report/html/transcript.ts -> grade/plan.ts': "the transcript view marks the grader's planned calls, in the grader's canonical form",
};

const stage = (file: string) => file.split('/')[0]!;

describe('architecture: the data path has no cycles and no import runs upstream', () => {
  let graph: Record<string, string[]>;
  let circular: string[][];
  beforeAll(async () => {
    const result = await madge(join(ROOT, 'src'), { fileExtensions: ['ts'], tsConfig: join(ROOT, 'tsconfig.json') });
    graph = result.obj();
    circular = result.circular();
  }, 60_000);

  it('sees the whole source tree', () => {
    expect(Object.keys(graph).length).toBeGreaterThan(60);
    expect(Object.keys(graph).every((f) => ORDER.includes(stage(f)))).toBe(true);
  });

  it('has no import cycles', () => {
    expect(circular).toEqual([]);
  });

  it('the run folder contract imports no stage: only itself, util and checks', () => {
    const outside = Object.entries(graph)
      .filter(([f]) => stage(f) === 'run')
      .flatMap(([f, deps]) => deps.filter((d) => !['run', 'util', 'checks'].includes(stage(d))).map((d) => `${f} -> ${d}`));
    expect(outside).toEqual([]);
  });

  const imports = () => Object.entries(graph).flatMap(([f, deps]) => deps.map((d) => ({ from: f, to: d, edge: `${f} -> ${d}` })));

  it('reporters know no agent: what they say of one (its refusal advice, its read echo) comes in their input', () => {
    expect(
      imports()
        .filter((i) => stage(i.from) === 'report' && stage(i.to) === 'agents')
        .map((i) => i.edge),
    ).toEqual([]);
  });

  it('the stages import grading only where listed with a reason', () => {
    const intoGrade = imports().filter((i) => stage(i.to) === 'grade' && stage(i.from) !== 'grade' && !ASSEMBLY.includes(stage(i.from)));
    expect(intoGrade.map((i) => i.edge).sort()).toEqual(Object.keys(ALLOWED_INTO_GRADE).sort());
    expect(Object.keys(ALLOWED_INTO_GRADE).length).toBeLessThanOrEqual(2);
  });

  it('no import runs upstream, but for the ones listed with a reason', () => {
    const upstream = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => ORDER.indexOf(stage(d)) > ORDER.indexOf(stage(f))).map((d) => `${f} -> ${d}`),
    );
    expect(upstream.sort()).toEqual(Object.keys(ALLOWED_UPSTREAM).sort());
  });
});

/** The folders whose modules are pure functions: no disk, no process, no clock, no unseeded randomness. */
const PURE_FOLDERS = ['checks', 'transcript', 'grade', 'stats', 'verdict', 'tune', 'lint'];

const SRC = join(ROOT, 'src');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('architecture: pure folders touch nothing, and folders form no cycle', () => {
  let edges: ImportEdge[];
  beforeAll(() => {
    edges = scanImports(SRC);
  });

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

  it('the folders import each other without a cycle (the folder-level graph, type imports included)', () => {
    expect(folderCycles(folderGraph(edges))).toEqual([]);
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
  { name: 'CheckId', file: 'src/lint/types.ts', members: () => unionLiterals('src/lint/types.ts', read('src/lint/types.ts'), 'CheckId') },
];

describe('architecture: ARCHITECTURE.md maps the tree as it is', () => {
  const map = read('ARCHITECTURE.md');
  const folders = sourceFolders(SRC);
  const topFolders = folders.filter((f) => !f.includes('/'));

  it('its folders table has one row per folder of src/, and none for a folder that is gone', () => {
    const named = tableUnder(map, 'Folders').rows.flatMap((r) => codeSpans(r[0]!).filter((s) => s.startsWith('src/')));
    expect(mapDifference(topFolders, named.map((s) => s.replace(/^src\//, '').replace(/\/$/, '')))).toEqual({ missing: [], stale: [] });
  });

  it('names every folder inside them too', () => {
    const named = namedPaths(codeSpans(withoutFences(map)), new Set(topFolders));
    expect(folders.filter((f) => !named.some((p) => `${p}/`.startsWith(`src/${f}/`)))).toEqual([]);
  });

  it('marks pure exactly the folders held pure here', () => {
    const pure = tableUnder(map, 'Folders')
      .rows.filter((r) => r.at(-1)!.trim() === 'pure')
      .flatMap((r) => codeSpans(r[0]!).map((s) => s.replace(/^src\//, '').replace(/\/$/, '')));
    expect(pure.sort()).toEqual([...PURE_FOLDERS].sort());
  });

  it('lists every registry with exactly its members, read from the registry itself', () => {
    const rows = tableUnder(map, 'Registries').rows.map((r) => ({ id: codeSpans(r[0]!).join(' in '), members: codeSpans(r[1]!) }));
    expect(mapDifference(REGISTRIES.map((r) => `${r.name} in ${r.file}`), rows.map((r) => r.id))).toEqual({ missing: [], stale: [] });
    for (const r of REGISTRIES) {
      expect(topLevelNames(r.file, read(r.file)), `${r.name} is declared in ${r.file}`).toContain(r.name);
      const row = rows.find((x) => x.id === `${r.name} in ${r.file}`)!;
      expect(mapDifference(r.members(), row.members), `the members of ${r.name}`).toEqual({ missing: [], stale: [] });
    }
  });

  it('knows every registry module of src/', () => {
    const registryFiles = sourceFiles(SRC)
      .filter((f) => f.endsWith('/registry.ts'))
      .map((f) => `src/${f}`);
    expect(registryFiles.filter((f) => !REGISTRIES.some((r) => r.file === f))).toEqual([]);
  });

  it('gives every command a row of its own in "find it fast"', () => {
    const features = tableUnder(map, 'Find it fast').rows.flatMap((r) => codeSpans(r[0]!));
    const named = features.flatMap((s) => /^skillprobe ([a-z-]+)$/.exec(s)?.[1] ?? []);
    expect(mapDifference(COMMANDS.map((c) => c.name), named)).toEqual({ missing: [], stale: [] });
  });

  it('names only files and folders that exist', () => {
    const named = namedPaths(codeSpans(withoutFences(map)), new Set(topFolders));
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('"find it fast" names only functions and types its files declare', () => {
    const entries = tableUnder(map, 'Find it fast').rows.flatMap((r) => entriesOf(r[1]!));
    expect(entries.length).toBeGreaterThan(30);
    const undeclared = entries.flatMap(({ file, names }) => {
      if (!existsSync(join(ROOT, file))) return [`${file} (no such file)`];
      const declared = topLevelNames(file, read(file));
      return names.filter((n) => !declared.has(n)).map((n) => `${file} ${n}`);
    });
    expect(undeclared).toEqual([]);
  });

  it('its glossary gives each word one meaning', () => {
    const words = tableUnder(map, 'Glossary').rows.map((r) => r[0]!.toLowerCase());
    expect(words.length).toBeGreaterThan(8);
    expect(words.filter((w, i) => words.indexOf(w) !== i)).toEqual([]);
  });
});
