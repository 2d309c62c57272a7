import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Context } from '../src/run/config-schema.js';
import { EXIT } from '../src/run/exit-codes.js';
import type { AgentRuns, Results } from '../src/run/schema.js';
import { writeAgentRuns } from '../src/run/store.js';
import { loadContextSuites } from '../src/runner/load-suite.js';
import { runOptionsFrom } from '../src/cli/run-options.js';
import { cleanup, ROOT, runInProcess } from './helpers.js';
import { labFieldRecord, storeSyntheticRun, syntheticRun, type CaseTrials } from './run-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'sp-labfield-merge-'));
afterAll(() => cleanup(root));

/** Each context's cases: the lab passes all, the field drops `chart`. */
const SUITE: Record<Context, Record<string, CaseTrials>> = {
  lab: { chart: { passes: 30, n: 30 }, slides: { passes: 30, n: 30 }, pdf: { passes: 29, n: 30 } },
  field: { chart: { passes: 6, n: 30 }, slides: { passes: 30, n: 30 }, pdf: { passes: 28, n: 30 } },
};
const ALL = Object.keys(SUITE.lab);
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

/** A lab,field folder as `run --context lab,field --shard I/N` leaves it: each context's run of the share's cases. */
async function shardFolder(name: string, index: number, total: number, cases: string[], started: Context[] = ['lab', 'field']) {
  const dir = join(root, name);
  for (const context of started) {
    const run = syntheticRun(Object.fromEntries(cases.map((id) => [id, SUITE[context][id]!])));
    // The field's run says so in its config (what the report reads); its cases' trials are stored as lab trials, which
    // need no field evidence to grade.
    const config = context === 'field' ? { ...run.manifest.config, context } : run.manifest.config;
    await storeSyntheticRun(dir, `${name}-${context}`, {
      ...run,
      manifest: { ...run.manifest, config, shard: { index, total, suiteCases: ALL } },
    });
  }
  await writeAgentRuns(dir, labFieldRecord(name, started));
  return dir;
}
const merge = (...args: string[]) => runInProcess(['merge', ...args], { cwd: root });

describe('merge of a lab,field run’s shards', () => {
  it('joins each context’s shares into one lab,field folder with the unsharded run’s verdicts', async () => {
    const shards = [await shardFolder('s1', 1, 2, ['chart', 'pdf']), await shardFolder('s2', 2, 2, ['slides'])];
    const unsharded = await shardFolder('whole', 1, 1, ALL);
    const r = await merge(...shards, '--transcripts', join(root, 'merged'));
    expect(r.exitCode, r.stderr).toBe(EXIT.fail);
    const folder = /run folder (\S+) \(agents\.json names each context's run folder\)/.exec(r.stdout)?.[1];
    expect(folder, r.stdout).toBeDefined();
    const record = readJson<AgentRuns>(join(root, folder!, 'agents.json'));
    expect(record).toMatchObject({ by: 'context', planned: ['lab', 'field'] });
    const wholeRecord = readJson<AgentRuns>(join(unsharded, 'agents.json'));
    const verdicts = (parent: string, rec: AgentRuns, context: Context) =>
      readJson<Results>(join(parent, rec.agents.find((a) => a.id === context)!.dir, 'results.json')).verdicts.map((v) => [
        v.caseId,
        v.verdict,
      ]);
    for (const context of ['lab', 'field'] as const)
      expect(verdicts(join(root, folder!), record, context)).toEqual(verdicts(unsharded, wholeRecord, context));
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('merged 2 shards of lab and field');
    expect(text).toMatch(/LAB → FIELD · 1 case significantly worse in the field/);
  });

  it.each<[string, () => Promise<string[]>, (dirs: string[]) => string]>([
    [
      'a shard that is not a lab,field folder',
      async () => [
        await shardFolder('m1', 1, 2, ['chart', 'pdf']),
        await storeSyntheticRun(join(root, 'plain'), 'plain', syntheticRun({ slides: SUITE.lab.slides! })),
      ],
      ([first, plain]) => `skillprobe: ${plain}: is not a lab,field folder, and ${first} is`,
    ],
    [
      'a shard that stopped before the field',
      async () => [await shardFolder('h1', 1, 2, ['chart', 'pdf']), await shardFolder('h2', 2, 2, ['slides'], ['lab'])],
      ([, half]) => `skillprobe: ${half}: holds no field run (the shard stopped before it)`,
    ],
  ])('%s is refused, naming it (exit 2)', async (_name, make, says) => {
    const dirs = await make();
    const r = await merge(...dirs, '--transcripts', join(root, 'refused'));
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toContain(says(dirs));
  });
});

describe('run --context lab,field --shard I/N', () => {
  it('runs the same share of the cases in both contexts, and the shares cover the suite once', () => {
    const share = (index: number) => {
      const o = runOptionsFrom({ context: ['lab', 'field'], sim: 'sim.yaml', shard: { index, total: 2 } } as Parameters<
        typeof runOptionsFrom
      >[0]);
      const [lab, field] = loadContextSuites({ ...o.run, cwd: join(ROOT, 'examples', 'field') }, o.contexts!);
      expect(field!.suite.cases.map((c) => c.id)).toEqual(lab!.suite.cases.map((c) => c.id));
      expect([lab!.config.context ?? 'lab', field!.config.context]).toEqual(['lab', 'field']);
      expect(lab!.shard).toMatchObject({ index, total: 2 });
      return { ids: lab!.suite.cases.map((c) => c.id), suite: lab!.shard!.suiteCases };
    };
    const [one, two] = [share(1), share(2)];
    expect(one.ids.length).toBeGreaterThan(0);
    expect([...one.ids, ...two.ids].sort()).toEqual([...one.suite].sort());
  });
});
