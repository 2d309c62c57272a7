import { execa } from 'execa';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, cleanup, demoProject, ROOT, runCli, runInProcess, testEnv } from './helpers.js';
import { resultsByAgent, resultsOf } from './e2e-scenarios.js';
import type { Results, RunManifest } from '../src/run/schema.js';
import { expectArmCostsRecalculated } from './arm-cost-recalculation.js';
import { loadProfile, type Profile } from '../src/sim/profile.js';
import type { Comparison } from '../src/verdict/comparison.js';

/**
 * `npm run demo` as a newcomer runs it (without the build): the repo's example suite through a real CLI against the
 * simulator. Its report must show every kind of finding the product makes, so the demo stays worth watching. What the
 * report finds is the simulator's and the harness's doing, whatever the CLI: these runs go through the CLI that starts
 * cheapest (Codex, a third of the CPU a trial of the demo's own agent, Claude Code), and one trial of every case
 * through each other CLI must come out as the Codex run's first trial of that case did.
 */
const AGENT = ['--agent', 'codex'];
const out = mkdtempSync(join(tmpdir(), 'sp-demo-'));
const demoRun = () => join(out, 'demo', readdirSync(join(out, 'demo'))[0]!);
afterAll(() => cleanup(out));

describe('the demo', () => {
  let results: Results;
  let stdout: string;
  let exitCode: number | undefined;

  beforeAll(async () => {
    // Runs draw afresh unless given a draw seed: the test pins one so that what it asserts is reproducible.
    const r = await runCli(
      ['run', '--sim', 'sim/demo.profile.yaml', '--draw-seed', '1', ...AGENT, '--no-gate', '--transcripts', join(out, 'demo')],
      {
        cwd: ROOT,
        timeoutMs: 600_000,
      },
    );
    exitCode = r.exitCode;
    stdout = r.stdout;
    results = JSON.parse(readFileSync(join(demoRun(), 'results.json'), 'utf8')) as Results;
  }, 600_000);

  it('exits 0 (gate off) and says what the gate would have said', () => {
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/gate off \(--no-gate\): the verdicts' exit code would be 1/);
  });

  // Each run draws afresh, so the demo's size varies from run to run (about 150 trials; this one is pinned): within what its
  // sequential designs expect at each case's worst rate (`skillprobe plan`: about 185), far below fixed N's 300.
  it('stays small: within its designs’ expected trials', () => {
    expect(results.outcomes.length).toBeLessThanOrEqual(185);
  });

  it('decides every case by its sequential design, PASS and FAIL, none left INCONCLUSIVE, each with its adjusted rate', () => {
    const verdicts = results.verdicts.map((v) => v.verdict);
    expect(verdicts).toContain('PASS');
    expect(verdicts).toContain('FAIL');
    expect(verdicts.filter((v) => v === 'INCONCLUSIVE')).toHaveLength(0);
    for (const v of results.verdicts) {
      expect(v.mode).toBe('sequential');
      expect(v.decidedAt).toBeLessThanOrEqual(v.design!.maxTrials);
      expect(v.design!.alpha).toBeLessThanOrEqual(v.params.alpha);
      expect(v.design!.beta).toBeLessThanOrEqual(v.params.beta);
      expect(v.estimate!.lower).toBeLessThanOrEqual(v.estimate!.rate);
      expect(v.estimate!.rate).toBeLessThanOrEqual(v.estimate!.upper);
    }
  });

  it('shows a sibling stealing a case, in the confusion matrix', () => {
    const m = results.summary.confusion;
    const notMembers = ['none', 'multiple', 'other'];
    const stolen = m.rows
      .filter((row) => row !== 'none')
      .flatMap((row) => m.columns.filter((col) => col !== row && !notMembers.includes(col) && m.cells[row]![col]!.successes > 0));
    expect(stolen.length).toBeGreaterThan(0);
  });

  it('shows a plan failure: the expected skill fired, the plan was wrong', () => {
    expect(results.outcomes.some((o) => o.arm === 'skill' && o.fired === 'expected' && o.plan?.pass === false)).toBe(true);
  });

  it('shows an ablation difference that McNemar’s test calls significant', () => {
    expect(results.summary.ablation.some((a) => a.difference.diff > 0 && a.pValue < 0.05)).toBe(true);
  });

  it('its per-arm table agrees with a recalculation from its own trials: the skill costs input tokens, a worth line per skill', () => {
    expect(expectArmCostsRecalculated(results)).toBeGreaterThan(50);
    expect(results.armCosts!.skills.every((s) => s.difference.input!.lo > 0)).toBe(true);
    expect(results.armCosts!.listing!.chars).toBeGreaterThan(0);
    for (const s of results.armCosts!.skills) expect(stdout).toContain(`${s.skill}: +`);
  });
});

describe('the demo through every agent', () => {
  const OTHERS = ['claude-code', 'gemini'];
  const agentsOut = mkdtempSync(join(tmpdir(), 'sp-demo-agents-'));
  afterAll(() => cleanup(agentsOut));
  let byAgent: Record<string, Results>;

  beforeAll(async () => {
    // One trial of every case, skill arm, with the demo run's draw seed: the simulator draws per trial, so each trial
    // must come out as that trial did in the Codex demo run, which says more than the verdicts would, at a fraction
    // of the demo's trials.
    const args = ['run', '--sim', 'sim/demo.profile.yaml', '--draw-seed', '1', '--agent', OTHERS.join(',')];
    args.push('--arms', 'skill', '--trials', '1', '--concurrency', '3', '--no-gate', '--transcripts', agentsOut);
    const r = await runCli(args, { cwd: ROOT, timeoutMs: 600_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(agentsOut, OTHERS);
  }, 660_000);

  it('Claude Code and Gemini grade every trial as Codex did in the demo, plan-check cases included', () => {
    const trials = (r: Results) =>
      r.outcomes
        .filter((o) => o.arm === 'skill' && o.n === 1)
        .map((o) => ({ trial: `${o.caseId}#${o.n}`, passed: o.passed, fired: o.fired, planPass: o.plan?.pass }))
        .sort((a, b) => a.trial.localeCompare(b.trial));
    const codex = trials(resultsOf(demoRun()));
    const planChecked = codex.filter((t) => t.planPass !== undefined);
    expect(planChecked.length).toBeGreaterThanOrEqual(5);
    expect(codex).toHaveLength(11);
    expect(codex.some((t) => t.passed === true) && codex.some((t) => t.planPass === false)).toBe(true);
    for (const id of OTHERS) expect(trials(byAgent[id]!), id).toEqual(codex);
  });
});

/** The demo profile after a model update that broke routing: every rule keeps half its skill-calling mass. */
function halvedRouting(demo: Profile): Profile {
  const answer = 'Here is how I would go about that, in plain text: no tool needed.';
  return {
    ...demo,
    name: 'demo-halved-routing',
    rules: demo.rules.map((r) => {
      const moved = r.do.filter((d) => d.skill !== undefined).reduce((sum, d) => sum + d.p / 2, 0);
      const kept = r.do.map((d) => (d.skill !== undefined ? { ...d, p: d.p / 2 } : d));
      return { ...r, do: moved > 0 ? [...kept, { p: Math.round(moved * 1000) / 1000, answer }] : kept };
    }),
  };
}

/**
 * The canary on the runs users already make, through the example scheduled workflow's own steps: the demo (its
 * default sequential design) is the accepted baseline, and the workflow runs the suite as a canary against it
 * (`run --baseline`) through the real CLI and the halved profile. The bench measures the suite-level test on two
 * runs at the default design (no extra trial); here `compare` meets the halved canary run with the demo.
 */
describe('the demo as a canary base, through the example scheduled workflow', () => {
  const workflow = parse(readFileSync(join(ROOT, 'examples/github-actions/skillprobe-canary.yml'), 'utf8'));
  const steps = workflow.jobs.canary.steps as { name?: string; run?: string; if?: string; uses?: string; with?: Record<string, unknown> }[];
  const step = (name: string) => steps.find((x) => x.name === name)!;
  const CANARY = 'Run the canary against the last accepted run';
  const CANARY_CASES = ['jira-move-done', 'confluence-meeting-notes'];
  const project = demoProject();
  const bare = demoProject();
  afterAll(() => cleanup(project, bare));
  const bash = (dir: string, script: string, env: Record<string, string> = {}) =>
    execa('bash', ['-ec', script.replaceAll('npx skillprobe', `node ${JSON.stringify(CLI)}`)], {
      cwd: dir,
      env: testEnv({ GITHUB_STEP_SUMMARY: join(dir, 'summary.md'), ...env }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 600_000,
    });
  const runOf = (dir: string) => join(dir, readdirSync(dir)[0]!);
  let canary: Awaited<ReturnType<typeof bash>>;
  /** `compare demo halved --reporter json`, run once for the tests that read it. */
  let halvedJson: Promise<Comparison> | undefined;
  const comparedAsJson = () =>
    (halvedJson ??= runInProcess(['compare', demoRun(), runOf(join(project, 'candidate')), '--reporter', 'json'], { cwd: ROOT }).then(
      (r) => JSON.parse(r.stdout) as Comparison,
    ));

  beforeAll(async () => {
    // What "Fetch the last accepted run" leaves: the baseline's run folder under baseline/.
    cpSync(demoRun(), join(project, 'baseline', 'demo'), { recursive: true });
    // The skill arm alone (the canary and the gate read nothing else), and two of the cases the halved profile moves
    // most (21 trials). A case it leaves alone runs until the margin is ruled out (a negative case took 30 trials) and
    // one it moves less to its cap, UNDECIDED, bound by the base: canary.test.ts and canary-topup.test.ts hold those.
    canary = await bash(project, step(CANARY).run!, {
      SKILLPROBE_RUN_FLAGS: `--sim sim/demo-halved.profile.yaml --draw-seed 2 ${AGENT.join(' ')} --arms skill --grep ^(${CANARY_CASES.join('|')})$`,
    });
  }, 600_000);

  it('runs nightly and on a change of the pinned model; its base is made for it at the size plan --compare prescribes, never a canary or default-design run', () => {
    expect(workflow.on.schedule[0].cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(workflow.on.push.paths).toEqual(['skillprobe.config.yaml']);
    const keep = steps.findIndex((x) => x.name === 'Keep the accepted base');
    expect(keep).toBeGreaterThan(steps.findIndex((x) => x.name === CANARY));
    expect(steps[keep]).toMatchObject({ if: 'success()', with: { name: 'skillprobe-baseline', path: 'baseline/' } });
    expect(step('Fetch the last accepted run').run).toContain('--name skillprobe-baseline --dir baseline');
    // The one run that writes under baseline/ is the --for-baseline one; the canary writes under candidate/.
    const runs = step(CANARY)
      .run!.split('\n')
      .filter((l) => l.includes('skillprobe run'));
    expect(runs.filter((l) => l.includes('--transcripts baseline'))).toEqual([expect.stringContaining('run --for-baseline')]);
    expect(runs.filter((l) => l.includes('--baseline '))).toEqual([expect.stringContaining('--transcripts candidate')]);
    expect(workflow.on.workflow_dispatch.inputs.new_base.type).toBe('boolean');
  });

  it("the halved profile is the demo profile with half of every rule's skill-calling mass, and nothing else", () => {
    const [demo, halved] = [
      loadProfile(join(ROOT, 'sim/demo.profile.yaml')),
      loadProfile(join(ROOT, 'test/fixtures/sim/demo-halved.profile.yaml')),
    ];
    expect(halved).toEqual(halvedRouting(demo));
  });

  it('its canary step: REGRESSED, named in the log, the step summary and JUnit, exit 1, so the baseline stays', async () => {
    expect(canary.exitCode, canary.stderr).toBe(1);
    expect(canary.stderr).toMatch(/canary against \S+: 2 cases, each REGRESSED at α 0\.025 \(0\.05 across them\)/);
    expect(canary.stdout).toMatch(/^skillprobe compare · suite REGRESSED · [1-9]\d* REGRESSED · /);
    expect(readFileSync(join(project, 'summary.md'), 'utf8')).toMatch(/#### Suite · .*REGRESSED/);
    expect(readFileSync(join(project, 'skillprobe-canary-junit.xml'), 'utf8')).toMatch(/<testcase name="suite"[^>]*>\s*<failure/);
    // Every skill-arm row was the canary's own test, and no case ran past its cap.
    const json = await comparedAsJson();
    expect(json.cases.every((c) => c.method === 'canary')).toBe(true);
    const manifest = JSON.parse(readFileSync(join(runOf(join(project, 'candidate')), 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.canary!.cases.map((c) => c.caseId).sort()).toEqual([...CANARY_CASES].sort());
    expect(json.candidate.trials).toBeLessThanOrEqual(manifest.canary!.cases.reduce((sum, c) => sum + c.design.maxTrials, 0));
  });

  it('compare demo halved: the suite REGRESSED, exit 1', async () => {
    const r = await runInProcess(['compare', demoRun(), runOf(join(project, 'candidate'))], { cwd: ROOT });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^skillprobe compare · suite REGRESSED · /);
    // The terminal wraps at 100 columns: read it as one line.
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /SUITE · REGRESSED · (\S+(, \S+)* REGRESSED; )?pass rates dropped in the suite \(in one case or more\): combined p <?0\.\d+ ≤ 0\.05 over 2 cases/,
    );
    expect(r.stdout).toMatch(/trigger recall\s+-0\.\d\d \[-0\.\d\d, -0\.\d\d\]/);
    expect((await comparedAsJson()).suite.rates.passRate.hi).toBeLessThan(0);
  });

  it('compare demo demo: nothing moved, yet a default-design run rules out no drop of the margin in every case: exit 3', async () => {
    const r = await runInProcess(['compare', demoRun(), demoRun()], { cwd: ROOT });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^skillprobe compare · suite UNDECIDED · /);
    expect(r.stdout).not.toMatch(/ REGRESSED\s*$/m);
    expect(r.stdout).toMatch(/no case moved/);
  });

  it('the first run has no base: it makes one with run --for-baseline under baseline/, says so, and is accepted', async () => {
    // A wide margin keeps the base small here (8 trials); the workflow's own default sizes it for a drop of 0.15.
    const r = await bash(bare, step(CANARY).run!, {
      SKILLPROBE_RUN_FLAGS: `--sim sim/demo.profile.yaml --draw-seed 3 ${AGENT.join(' ')} --arms skill --grep csv-summary --margin 0.9`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(bare, 'summary.md'), 'utf8')).toContain('no base to compare with: this run makes one');
    expect(existsSync(join(bare, 'candidate'))).toBe(false);
    const base = runOf(join(bare, 'baseline'));
    const manifest = JSON.parse(readFileSync(join(base, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.canary).toBeUndefined();
    const results = JSON.parse(readFileSync(join(base, 'results.json'), 'utf8')) as { outcomes: unknown[] };
    expect(results.outcomes).toHaveLength(8);
  }, 300_000);
});
