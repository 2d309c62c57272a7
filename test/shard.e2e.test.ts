import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RunStore } from '../src/run/store.js';
import type { Results } from '../src/run/schema.js';
import type { Comparison } from '../src/verdict/comparison.js';
import { CLI, cleanup, demoProject, ROOT, runInProcess, testEnv } from './helpers.js';

// One draw seed for the shards and the unsharded run: the merged shards must draw the unsharded run's trials. Six of
// the demo's cases, one of each kind (happy, vague, trap, near-miss, and the second skill's pair): two a shard.
const CASES = [
  'jira-create-bug',
  'vague-sprint',
  'trap-comment-on-ticket-about-page',
  'neg-jira-history',
  'csv-summary',
  'neg-csv-meaning',
];
// Through Codex, the real CLI that starts cheapest (about a third of Claude Code's CPU a trial): sharding and merging
// are the harness's own.
const RUN_FLAGS = `--agent codex --sim sim/demo.profile.yaml --draw-seed 1 --grep ^(${CASES.join('|')})$ --arms skill --min-trials 3 --max-trials 4 --concurrency 2`;
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
    expect(results.verdicts.map((v) => v.caseId).sort()).toEqual([...CASES].sort());
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
