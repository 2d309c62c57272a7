import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { casesOfShard } from '../src/trials/shard.js';
import { RunStore } from '../src/run/store.js';
import type { Results } from '../src/run/schema.js';
import type { Comparison } from '../src/verdict/comparison.js';
import { CLI, cleanup, demoProject, makeProject, ROOT, runInProcess, testEnv } from './helpers.js';
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

// One draw seed for the shards and the unsharded run: the merged shards must draw the unsharded run's trials.
const RUN_FLAGS = '--sim sim/demo.profile.yaml --draw-seed 1 --arms skill --min-trials 3 --max-trials 4 --concurrency 2';
const verdictsOf = (r: Pick<Results, 'verdicts'>) =>
  r.verdicts.map((v) => ({ caseId: v.caseId, verdict: v.verdict, decidedAt: v.decidedAt }));

describe('the example GitHub Actions workflow, run step by step on this machine', () => {
  const workflow = parse(readFileSync(join(ROOT, 'examples/github-actions/skillprobe-sharded.yml'), 'utf8'));
  const project = demoProject();
  afterAll(() => cleanup(project));
  /** The workflow's skillprobe commands of a job, as bash would run them here (`npx skillprobe` is the built CLI). */
  const commands = (job: string): string[] =>
    (workflow.jobs[job].steps as { run?: string }[])
      .map((s) => s.run ?? '')
      .filter((r) => r.includes('skillprobe'))
      .map((r) => r.replaceAll('npx skillprobe', `node ${JSON.stringify(CLI)}`));
  const bash = (script: string, env: Record<string, string>) =>
    execa('bash', ['-c', script], { cwd: project, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 240_000 });

  it("three shards plus merge give the unsharded run's verdicts, a step summary, JUnit and the HTML report", async () => {
    const env = testEnv({ SKILLPROBE_RUN_FLAGS: RUN_FLAGS, GITHUB_STEP_SUMMARY: join(project, 'step-summary.md') });
    expect(workflow.jobs.shard.strategy.matrix.shard).toEqual([1, 2, 3]);
    const [shardStep] = commands('shard');
    expect(shardStep).toContain('--shard ${{ matrix.shard }}/3');
    for (const shard of [1, 2, 3]) {
      const r = await bash(shardStep!.replaceAll('${{ matrix.shard }}', String(shard)), env);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    // upload-artifact then download-artifact with merge-multiple: every shard's run folder side by side in shards/.
    expect(readdirSync(join(project, 'shards'))).toHaveLength(3);
    const [mergeStep] = commands('merge');
    const merged = await bash(mergeStep!, env);

    const single = await runInProcess(['run', ...RUN_FLAGS.split(' '), '--transcripts', 'single', '--json'], { cwd: project });
    const unsharded = JSON.parse(single.stdout) as Results;
    expect(merged.exitCode, merged.stderr).toBe(unsharded.exitCode);
    const [mergedRun] = readdirSync(join(project, 'merged'));
    const { manifest } = await RunStore.open(join(project, 'merged', mergedRun!));
    const results = JSON.parse(readFileSync(join(project, 'merged', mergedRun!, 'results.json'), 'utf8')) as Results;
    expect(verdictsOf(results)).toEqual(verdictsOf(unsharded));
    expect(results.verdicts.length).toBeGreaterThan(5);
    expect(manifest.mergedFrom?.map((m) => m.shard).sort()).toEqual(['1/3', '2/3', '3/3']);
    // The merged run's outcomes are the shards' trials, each once.
    expect(new Set(results.outcomes.map((o) => `${o.caseId}/${o.n}`)).size).toBe(results.outcomes.length);

    expect(readFileSync(join(project, 'step-summary.md'), 'utf8')).toMatch(/\|\s*case\s*\|/);
    const junit = readFileSync(join(project, 'skillprobe-junit.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)?.length).toBe(results.summary.cases.length);
    expect(readFileSync(join(project, 'skillprobe-report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    expect(merged.stdout).toContain('VERDICTS');

    // The same trials, sharded or not: the canary sees no change in any case (too few trials to rule out a change of
    // the margin, so the gate says UNDECIDED, exit 3, never a green 0 or a regression).
    const [singleRun] = readdirSync(join(project, 'single'));
    const aa = await runInProcess(['compare', join('single', singleRun!), join('merged', mergedRun!), '--json'], { cwd: project });
    expect(aa.exitCode, aa.stderr).toBe(3);
    const comparison = JSON.parse(aa.stdout) as Comparison;
    expect(comparison.cases.length).toBe(results.summary.cases.length);
    // Each case stopped by its design in both runs, at the same end: tested under both designs, nothing moved.
    expect(
      comparison.cases.every(
        (c) => c.change !== 'REGRESSED' && c.change !== 'IMPROVED' && c.method === 'design' && c.difference.diff === 0,
      ),
    ).toBe(true);
    expect(comparison.suite).toMatchObject({ pRegressed: 1, pImproved: 1 });
  }, 600_000);
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
