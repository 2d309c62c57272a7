import madge from 'madge';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
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
