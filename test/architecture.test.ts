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
const ORDER = ['util', 'checks', 'run', 'load', 'trials', 'workspace', 'transcript', 'agents', 'grade', 'stats', 'verdict', 'report', 'sim', 'schema', 'lint', 'init', 'runner', 'commands', 'cli.ts'];

/** The imports that run against the order on purpose, each with its reason. */
const ALLOWED_UPSTREAM: Record<string, string> = {
  'trials/schedule.ts -> stats/sequential-design.ts': 'the sequential scheduler walks the design: it asks it whether a case is decided',
  'trials/schedule.ts -> stats/case-design.ts': 'the scheduler reads the design stored with each case',
  'trials/stored-case.ts -> stats/case-design.ts': 'a case carries its design, built once before any trial, so every stage replays the same boundaries',
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

  it('no import runs upstream, but for the ones listed with a reason', () => {
    const upstream = Object.entries(graph).flatMap(([f, deps]) =>
      deps.filter((d) => ORDER.indexOf(stage(d)) > ORDER.indexOf(stage(f))).map((d) => `${f} -> ${d}`),
    );
    expect(upstream.sort()).toEqual(Object.keys(ALLOWED_UPSTREAM).sort());
  });
});
