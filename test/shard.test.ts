import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { casesOfShard } from '../src/trials/shard.js';
import { RunStore } from '../src/run/store.js';
import { cleanup, makeProject, runInProcess } from './helpers.js';
import { handMadeManifest } from './run-fixtures.js';
import { configSchema } from '../src/run/config-schema.js';

describe('casesOfShard: a deterministic, balanced share', () => {
  const cases = [9, 7, 6, 5, 5, 4, 3, 1, 1].map((w, i) => ({ id: `c${i}`, expectedTrials: w }));
  it.each([1, 2, 3, 4, 12])('%i shards cover every case exactly once, whatever order the cases come in', (total) => {
    const shares = Array.from({ length: total }, (_, i) => casesOfShard(cases, { index: i + 1, total }));
    const reversed = Array.from({ length: total }, (_, i) => casesOfShard([...cases].reverse(), { index: i + 1, total }));
    expect(shares.flatMap((s) => [...s]).sort()).toEqual(cases.map((c) => c.id).sort());
    expect(reversed).toEqual(shares);
  });

  it('balances by expected trials: no shard carries more than the lightest plus the heaviest case', () => {
    const loads = [1, 2, 3].map((index) =>
      [...casesOfShard(cases, { index, total: 3 })].reduce((s, id) => s + cases.find((c) => c.id === id)!.expectedTrials, 0),
    );
    expect(loads.reduce((a, b) => a + b)).toBe(41);
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(9);
    expect(loads).toEqual([14, 13, 14]);
  });
});

describe('merge refuses shards that are not one run, naming the difference', () => {
  const root = makeProject({});
  afterAll(() => cleanup(root));
  const defs = (ids: string[]) =>
    ids.map((id) => ({
      id,
      expect: 'atl',
      exclusive: false,
      tags: [],
      decision: { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 5 },
    }));
  let made = 0;
  async function shardFolder(index: number, ids: string[], over: Parameters<typeof handMadeManifest>[2] = {}): Promise<string> {
    const store = await RunStore.create(join(root, 'shards'), `run-${++made}`);
    await store.writeManifest(
      handMadeManifest(defs(ids), 0, { runId: `run-${made}`, shard: { index, total: 3, suiteCases: ['a', 'b', 'c'] }, ...over }),
    );
    return store.dir;
  }

  it("a concurrency or binary of a machine's own is no disagreement; an unfinished shard makes a partial run that names how to finish it", async () => {
    const own = { config: configSchema.parse({ arms: ['skill'], concurrency: 8, agentBinary: '/opt/claude' }) };
    const folders = [
      await shardFolder(1, ['a']),
      await shardFolder(2, ['b'], { ...own, status: 'interrupted' }),
      await shardFolder(3, ['c']),
    ];
    const r = await runInProcess(['merge', ...folders, '--transcripts', join(root, 'partial')], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stdout).toContain(
      `shard 2/3 (${folders[1]}) is interrupted: a partial run; \`skillprobe run --resume ${folders[1]} --shard 2/3\` finishes it, then merge again`,
    );
    const [merged] = readdirSync(join(root, 'partial'));
    const { manifest } = await RunStore.open(join(root, 'partial', merged!));
    expect(manifest.status).toBe('interrupted');
    expect(manifest.cases.defs.map((d) => d.id)).toEqual(['a', 'b', 'c']);
  });

  it.each<[string, () => Promise<string[]>, RegExp]>([
    [
      'a different CLI version',
      async () => [
        await shardFolder(1, ['a']),
        await shardFolder(2, ['b'], { agent: { id: 'claude-code', binary: 'claude', cliVersion: '9.9.9' } }),
        await shardFolder(3, ['c']),
      ],
      /differs from .* in CLI version: 9\.9\.9 vs 2\.1\.197/,
    ],
    [
      'a different model',
      async () => [await shardFolder(1, ['a']), await shardFolder(2, ['b'], { model: 'other-model' }), await shardFolder(3, ['c'])],
      /in model: other-model vs/,
    ],
    [
      'different cases',
      async () => [
        await shardFolder(1, ['a']),
        await shardFolder(2, ['b'], { cases: { files: [], hash: 'zzz', defs: defs(['b']) } }),
        await shardFolder(3, ['c']),
      ],
      /in cases \(hash\): zzz vs y/,
    ],
    [
      "different fixtures (the user's files)",
      async () => [await shardFolder(1, ['a']), await shardFolder(2, ['b'], { fixturesHash: 'fff' }), await shardFolder(3, ['c'])],
      /in fixtures \(hash\): fff vs none/,
    ],
    [
      'different neighbours',
      async () => [
        await shardFolder(1, ['a']),
        await shardFolder(2, ['b'], { neighbours: [{ dir: 'pdf-tool', name: 'pdf-tool', hash: 'p' }], neighboursHash: 'nnn' }),
        await shardFolder(3, ['c']),
      ],
      /in neighbours \(hash\): nnn vs none/,
    ],
    [
      'a shard missing',
      async () => [await shardFolder(1, ['a']), await shardFolder(3, ['c'])],
      /1 case\(s\) of the suite are in no shard given: b \(shard 2 of 3 not given\)/,
    ],
    [
      'the same shard twice',
      async () => [await shardFolder(1, ['a']), await shardFolder(1, ['a']), await shardFolder(2, ['b']), await shardFolder(3, ['c'])],
      /is shard 1 again/,
    ],
    [
      'a case in two shards',
      async () => [await shardFolder(1, ['a', 'b']), await shardFolder(2, ['b']), await shardFolder(3, ['c'])],
      /holds case "b", which .*run-\d+ holds too/,
    ],
    [
      'a config that differs',
      async () => [
        await shardFolder(1, ['a']),
        await shardFolder(2, ['b'], { config: configSchema.parse({ arms: ['skill'], grading: { confidence: 0.9 } }) }),
        await shardFolder(3, ['c']),
      ],
      /in config: grading\.confidence 0\.9 vs 0\.95/,
    ],
    [
      'a run that is not a shard',
      async () => [await shardFolder(1, ['a']), await shardFolder(2, ['b'], { shard: undefined })],
      /is not a shard/,
    ],
  ])('%s: exit 2, one line per problem, nothing merged', async (_, folders, says) => {
    const r = await runInProcess(['merge', ...(await folders()), '--transcripts', join(root, 'merged')], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toMatch(/undefined/);
    expect(existsSync(join(root, 'merged'))).toBe(false);
  });

  it("a symlink among a shard's trials is refused, never followed into the merged run", async () => {
    const folders = [await shardFolder(1, ['a']), await shardFolder(2, ['b']), await shardFolder(3, ['c'])];
    const arm = join(folders[1]!, 'trials', 'b', 'skill');
    mkdirSync(arm, { recursive: true });
    writeFileSync(join(root, 'secret.txt'), 'key\n');
    symlinkSync(join(root, 'secret.txt'), join(arm, '1.jsonl'));
    writeFileSync(join(arm, '1.meta.json'), '{}');
    const r = await runInProcess(['merge', ...folders, '--transcripts', join(root, 'linked')], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/trials\/b\/skill\/1\.jsonl: a symlink inside a shard's trials, which merge does not follow/);
    expect(existsSync(join(root, 'linked')) ? readdirSync(join(root, 'linked')) : []).toEqual([]);
  });
});
