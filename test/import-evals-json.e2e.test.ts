import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, ROOT, runCli, testEnv } from './helpers.js';
import { onlyRun, resultsOf } from './e2e-scenarios.js';

/**
 * A folder as skill-creator leaves it (`skills/<skill>/evals/evals.json` and its files) runs as it is, through Codex
 * against the simulator: the object is read, not refused, its expectations judged, its file in the trial's
 * workspace; and the run exports as skill-creator's benchmark.json.
 */
const CONFIG =
  'agent: codex\nmodel: sim-model\ncases: skills/*/evals/evals.json\njudge:\n  allowSelf: true\n  samples: 1\nretries:\n  cli: 1\n';

describe("end to end: skill-creator's evals/evals.json runs in place", () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('runs every eval as a case, judges its expectations, hands it its files, and exports benchmark.json and aggregate-result.json', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': CONFIG });
    dirs.push(project);
    cpSync(join(ROOT, 'test/fixtures/import/alpha/evals'), join(project, 'skills/alpha/evals'), { recursive: true });
    const r = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--transcripts', 'runs'], { cwd: project, env: testEnv() });
    expect(r.exitCode, r.stderr).not.toBe(2);
    // What the cases do not carry is said before anything is spent.
    expect(
      r.stderr.split('\n').filter((l) => /^warning: skills\/alpha\/evals\/evals\.json:\d+:\d+: eval \d: "expected_output"/.test(l)),
    ).toHaveLength(3);
    const runDir = onlyRun(project);
    const results = resultsOf(runDir);
    expect(results.verdicts.map((v) => v.caseId).sort()).toEqual(['alpha-beta-eval-3', 'alpha-eval-1', 'alpha-eval-2']);
    const judged = results.outcomes.find((o) => o.caseId === 'alpha-eval-1' && o.arm === 'skill')!;
    expect(judged.judge?.items.map((i) => i.item)).toEqual([
      'The reply says how many alpha records were created',
      'The reply names the file it read the rows from',
    ]);
    // The eval's file, by its bytes' hash, among the fixtures the run copied for its trials.
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(manifest.cases.defs.find((d: { id: string }) => d.id === 'alpha-eval-1').fixtures).toBeDefined();
    expect(readdirSync(join(runDir, 'fixtures'))).toHaveLength(1);

    const exported = await runCli(
      ['report', runDir, '--reporter', 'benchmark=benchmark.json', '--reporter', 'plugin-eval=aggregate-result.json'],
      { cwd: project, env: testEnv() },
    );
    expect(exported.exitCode, exported.stderr).not.toBe(2);
    const benchmark = JSON.parse(readFileSync(join(project, 'benchmark.json'), 'utf8'));
    expect(benchmark.runs.filter((x: { configuration: string }) => x.configuration === 'with_skill')).toHaveLength(3);
    expect(Object.keys(benchmark.run_summary)).toEqual(expect.arrayContaining(['with_skill', 'without_skill', 'delta']));
    const aggregate = JSON.parse(readFileSync(join(project, 'aggregate-result.json'), 'utf8'));
    expect(aggregate.cases.map((c: { name: string }) => c.name).sort()).toEqual(['alpha-beta-eval-3', 'alpha-eval-1', 'alpha-eval-2']);
    expect(aggregate.aggregates.casesTotal).toBe(3);
  }, 180_000);
});
