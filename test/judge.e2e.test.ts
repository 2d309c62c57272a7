import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../src/run/schema.js';
import { CLI, cleanup, makeProject, processesUnder, runInProcess, skillMd, testEnv } from './helpers.js';
import { onlyRun, resultsOf } from './e2e-scenarios.js';

/**
 * The model judge through the real Claude Code CLI against the simulator: the trials under test and every judge
 * request are real CLI runs. The simulator's judge answers by a fixed rule (an item holds when the answer has all its
 * content words), so the right verdict of every item is known: after loading `cleanup`, the simulated model writes
 * "Here is the plan: … run it yourself." — "say to run it yourself" holds, "ask for confirmation before deleting"
 * does not.
 */

const YOURSELF = 'Does the plan say to run it yourself?';
const CONFIRM = 'Does it ask for confirmation before deleting?';

const BODY = 'Plan one call and show it in a bash block:\n\n```bash\ncleanup --dry-run $ARGUMENTS\n```\n';
const CASES = `- id: plans-call
  prompt: "Remove the old build folders."
  expect:
    skill: cleanup
    judge:
      - "${YOURSELF}"
- id: confirms
  prompt: "Clean out the caches please."
  expect:
    skill: cleanup
    judge:
      - "${YOURSELF}"
      - "${CONFIRM}"
`;
const profile = (judge: string) => `name: judged
seed: 3
rules:
  - { prompt: "build folders", do: [{ skill: cleanup, args: "build/" }] }
  - { prompt: "caches", do: [{ skill: cleanup, args: "cache/" }] }
${judge}`;

/** A project judged by the simulator's judge as `judgeBlock` describes it, run once; its run folder and exit code. */
async function judgedRun(o: { judgeBlock: string; config: string; cases?: string; args?: string[]; drawSeed?: number }) {
  const project = makeProject({
    'skills/cleanup/SKILL.md': skillMd('cleanup', 'Remove old build folders and caches.', BODY),
    'cases/main.yaml': o.cases ?? CASES,
    'sim.yaml': profile(o.judgeBlock),
    'skillprobe.config.yaml': o.config,
  });
  const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
  // In this process: what is under test is the run and its judge, not skillprobe's own process (the Ctrl-C test's).
  const r = await runInProcess(
    [
      'run',
      '--sim',
      'sim.yaml',
      '--draw-seed',
      String(o.drawSeed ?? 1),
      '--transcripts',
      'runs',
      '--workdir',
      workdir,
      '--reporter',
      'terminal',
      ...(o.args ?? []),
    ],
    { cwd: project },
  );
  expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  return { project, workdir, r };
}

const BASE = 'arms: [skill]\ndecision: { mode: fixed }\n';
/**
 * The judge's logic (sampling, stability, a rejudge, stopping and resuming it, calibration, unreadable replies) is the
 * harness's own, so those scenarios judge through the real CLI that starts cheapest (Codex: about a third of Claude
 * Code's CPU a request); the honest judge's run is Claude Code's (a judge on another CLI than the run's), and the cost
 * cap below judges through Claude Code. test/sim-judge.e2e.test.ts asks each CLI's judge, offered no tool.
 */
const CODEX = 'agent: codex\n';
/** The case with an item that holds and one that does not. */
const ONLY_CONFIRMS = CASES.slice(CASES.indexOf('- id: confirms'));

describe('judge: an honest judge on another CLI (Codex) than the run (Claude Code), three samples an item', () => {
  let run: Awaited<ReturnType<typeof judgedRun>>;
  let dir: string;
  let results: Results;

  beforeAll(async () => {
    // One trial of the case whose items the judge answers yes and no: the samples and the items are the claim here, not
    // a verdict (a calibrated judge's yes that passes a trial, its no that FAILs a case: test/judge-verdicts.test.ts).
    run = await judgedRun({
      judgeBlock: '',
      config: `${BASE}trials: 1\njudge: { agent: codex, model: sim-judge, samples: 3 }\n`,
      cases: ONLY_CONFIRMS,
    });
    dir = onlyRun(run.project);
    results = resultsOf(dir);
  }, 260_000);
  afterAll(() => cleanup(run.project, run.workdir));

  it('judges every item of every trial by the strict majority of its samples, and scores the verdicts', () => {
    expect(results.judge).toMatchObject({
      agent: 'codex',
      model: 'sim-judge',
      self: false,
      samples: 3,
      calibrated: true,
      unanswered: 0,
    });
    // 2 trial items; per item 2 controls, the first trial's items reworded, and the two items reordered: 8.
    expect(results.judge!.calibration).toEqual({ asked: 8, missed: [] });
    expect(results.judge!.requests).toBe(10);
    const [o, ...others] = results.outcomes;
    expect(others).toEqual([]);
    expect(o!.judge?.scored).toBe(true);
    expect(o!.judge?.items.map((i) => [i.verdict, i.samples.every((s) => s === i.verdict) ? i.verdict : 'mixed'])).toEqual([
      ['yes', 'yes'],
      ['no', 'no'],
    ]);
    expect(o!.judge?.items.every((i) => i.samples.length === 3)).toBe(true);
    // The trigger and plan are right: only the judge's "no" fails the trial.
    expect(o).toMatchObject({ caseId: 'confirms', n: 1, status: 'ok', fired: 'expected', passed: false });
  });

  it("progress shows each judge trial's answer, never as a trial left unscored", () => {
    expect(run.r.stderr).toMatch(/judge: codex sim-judge asks 10 requests \(0 answered before\), 3 samples each: 30 judge trials/);
    expect(run.r.stderr.match(/: judge answered (YES|NO) ·/g)).toHaveLength(30);
    expect(run.r.stderr).not.toContain('nothing to score without the skill');
  });

  it('measures stability on the judged case: no sample disagreed, nothing UNSTABLE', () => {
    expect(results.judge!.stability.map((s) => [s.caseId, s.comparable, s.disagreeing, s.unstable])).toEqual([['confirms', 2, 0, false]]);
  });

  it("keeps every judge prompt and raw reply in the judge's own run folder, and a regrade reuses them without asking", async () => {
    const steps = readdirSync(join(dir, 'judge'));
    expect(steps).toHaveLength(1);
    const step = resultsOf(join(dir, 'judge', steps[0]!));
    expect(JSON.parse(readFileSync(join(dir, 'judge', steps[0]!, 'run.json'), 'utf8')).agent.id).toBe('codex');
    // Each request is one case of the judge's run, asked `samples` times with none of the skills; each sample ok (a judge
    // that had called a tool would have given no verdict).
    expect(step.outcomes).toHaveLength(10 * 3);
    expect(step.outcomes.every((o) => o.arm === 'ablation' && o.status === 'ok')).toBe(true);
    const regraded = await runInProcess(['grade', dir], { cwd: run.project });
    expect(regraded.exitCode).toBe(run.r.exitCode);
    // One trial decides nothing: INCONCLUSIVE.
    expect(run.r.exitCode).toBe(3);
    expect(readdirSync(join(dir, 'judge'))).toEqual(steps);
    const again = resultsOf(dir);
    expect(again.outcomes.map((o) => [o.caseId, o.n, o.passed, o.judge])).toEqual(
      results.outcomes.map((o) => [o.caseId, o.n, o.passed, o.judge]),
    );
    expect(again.judge).toEqual(results.judge);
  });

  it('rejudge asks every stored judged item again: an honest judge changes no answer; labels give κ, warned below 50', async () => {
    const labels = [
      `- { case: confirms, n: 1, item: "${YOURSELF}", label: yes }`,
      `- { case: confirms, n: 1, item: "${CONFIRM}", label: no }`,
      `- { case: confirms, n: 9, item: "${CONFIRM}", label: no }`,
    ].join('\n');
    writeFileSync(join(run.project, 'labels.yaml'), labels);
    const noSim = await runInProcess(['rejudge', dir], { cwd: run.project });
    expect(noSim.exitCode).toBe(2);
    expect(noSim.stderr).toMatch(/was judged by the model simulator .* add --sim sim\.yaml/s);
    expect(existsSync(join(dir, 'rejudge'))).toBe(false);
    const r = await runInProcess(['rejudge', dir, '--sim', 'sim.yaml', '--labels', 'labels.yaml', '--workdir', run.workdir], {
      cwd: run.project,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('REJUDGE · 2 stored judge requests asked again, 3 samples each (completed)');
    expect(r.stdout).toContain('answers changed: 0 of 6 paired samples, 0.0%');
    expect(r.stdout).toContain('verdicts changed: 0 of 2 items, 0.0%');
    expect(r.stdout).toMatch(
      /Cohen's κ 1\.00 \[-?\d\.\d\d, 1\.00\] over 2 items, raw agreement 100\.0% · 1 labels matched no judged verdict · about \d+ labels more for an interval of ±0\.1 · WARNING: fewer than 50 labels/,
    );
    // Asked in a folder of its own: the stored answers, and the run's results, are untouched.
    expect(readdirSync(join(dir, 'rejudge'))).toHaveLength(1);
    expect(resultsOf(dir).judge).toEqual(results.judge);
  }, 150_000);
});

describe('judge: --max-cost counts the judge', () => {
  // The trial under test spends about $0.013 at Claude Code 2.1.332's prices. One run, resumed under a cap the judge
  // crosses, then under one that lets it finish.
  it("the trials under test spend it whole: no judge step starts (its run.json would hold a cap of 0); resumed with a cap the judge's trials cross, its step stops capped; each stop is cost_capped (exit 5); resumed with more, it completes", async () => {
    const run = await judgedRun({
      judgeBlock: '',
      config: `${BASE}trials: 1\njudge: { model: sim-judge, samples: 1 }\n`,
      cases: CASES.slice(0, CASES.indexOf('- id: confirms')),
      args: ['--max-cost', '0.005'],
    });
    try {
      const dir = onlyRun(run.project);
      const resume = (cap: string) =>
        runInProcess(['run', '--sim', 'sim.yaml', '--resume', dir, '--max-cost', cap, '--workdir', run.workdir], { cwd: run.project });
      const judgeSteps = () => (existsSync(join(dir, 'judge')) ? readdirSync(join(dir, 'judge')) : []);
      const status = (folder: string) => JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')).status;
      expect(run.r.exitCode, run.r.stderr).toBe(5);
      expect(status(dir)).toBe('cost_capped');
      const trialsSpent = resultsOf(dir).outcomes.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
      expect(trialsSpent).toBeGreaterThanOrEqual(0.005);
      expect(trialsSpent).toBeLessThan(0.02);
      expect(judgeSteps()).toEqual([]);

      const crossed = await resume('0.02');
      expect(crossed.exitCode, crossed.stderr).toBe(5);
      expect(status(dir)).toBe('cost_capped');
      expect(judgeSteps()).toHaveLength(1);
      expect(status(join(dir, 'judge', judgeSteps()[0]!))).toBe('cost_capped');

      const resumed = await resume('5');
      expect(resumed.exitCode, resumed.stderr).toBe(3);
      expect(resultsOf(dir).judge).toMatchObject({ calibrated: true, unanswered: 0, requests: 4 });
    } finally {
      cleanup(run.project, run.workdir);
    }
  }, 240_000);
});

describe('judge: Ctrl-C while the judge asks, then --resume', () => {
  it('exits 130 with the run interrupted; the resume asks only what is missing, in the same judge folder, and reaches the uninterrupted answer', async () => {
    // One trial of confirms: 2 trial items and 8 controls, 10 requests, one sample each: a request answered before the
    // stop is answered in full, so the resume's unanswered requests are fewer than the step's own.
    const config = `${CODEX}${BASE}trials: 1\njudge: { model: sim-judge, samples: 1 }\n`;
    const project = makeProject({
      'skills/cleanup/SKILL.md': skillMd('cleanup', 'Remove old build folders and caches.', BODY),
      'cases/main.yaml': ONLY_CONFIRMS,
      'sim.yaml': profile(''),
      'skillprobe.config.yaml': config,
    });
    const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    try {
      const args = ['run', '--sim', 'sim.yaml', '--transcripts', 'runs', '--workdir', workdir, '--concurrency', '1'];
      const child = execa('node', [CLI, ...args], { cwd: project, env: testEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
      // Once the judge has answered a few of its trials, the user presses Ctrl-C.
      const judgeTrials = () => {
        const root = join(project, 'runs');
        const run = existsSync(root) ? readdirSync(root)[0] : undefined;
        const steps = run && existsSync(join(root, run, 'judge')) ? readdirSync(join(root, run, 'judge')) : [];
        return steps.flatMap((s) => {
          const trials = join(root, run!, 'judge', s, 'trials');
          return existsSync(trials) ? readdirSync(trials, { recursive: true }).filter((f) => String(f).endsWith('.meta.json')) : [];
        }).length;
      };
      const deadline = Date.now() + 150_000;
      while (judgeTrials() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      const stopped = await child;
      expect(stopped.exitCode).toBe(130);
      const dir = onlyRun(project);
      expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('interrupted');
      const [step] = readdirSync(join(dir, 'judge'));
      const askedBefore = resultsOf(join(dir, 'judge', step!)).outcomes.filter((o) => o.status === 'ok').length;
      expect(askedBefore).toBeGreaterThanOrEqual(3);
      expect(askedBefore).toBeLessThan(10);

      const resumed = await runInProcess(['run', '--sim', 'sim.yaml', '--resume', dir, '--workdir', workdir], { cwd: project });
      // One trial a case decides nothing: INCONCLUSIVE.
      expect(resumed.exitCode).toBe(3);
      expect(readdirSync(join(dir, 'judge'))).toEqual([step]);
      const stepResults = resultsOf(join(dir, 'judge', step!));
      expect(stepResults.outcomes.filter((o) => o.status === 'ok')).toHaveLength(10);
      const results = resultsOf(dir);
      expect(results.judge).toMatchObject({ calibrated: true, unanswered: 0, requests: 10 });
      expect(results.outcomes.map((o) => [o.caseId, o.n, o.passed])).toEqual([['confirms', 1, false]]);
      expect(processesUnder(workdir)).toEqual([]);
      expect(readdirSync(workdir)).toEqual([]);
    } finally {
      cleanup(project, workdir);
    }
  }, 400_000);
});

describe('judge: a judge that must not be trusted is UNCALIBRATED, and none of its verdicts is scored', () => {
  // One case, one trial, one sample: the controls are what is under test here.
  const scenario = async (behaviour: string) => {
    const run = await judgedRun({
      judgeBlock: `judge: { behaviour: ${behaviour} }\n`,
      config: `${CODEX}${BASE}trials: 1\njudge: { model: sim-judge, samples: 1 }\n`,
      cases: ONLY_CONFIRMS,
    });
    const results = resultsOf(onlyRun(run.project));
    cleanup(run.project, run.workdir);
    return { results, exitCode: run.r.exitCode };
  };

  // Each behaviour against the controls, in process: test/judge-core.test.ts. Here the one whose miss only the reordered
  // rubric shows, so the prompt's order must reach the simulator's judge through the CLI intact.
  it('the order-swayed judge misses the reordered control, so its "yes" on the confirmation item counts for nothing', async () => {
    const { results } = await scenario('order-swayed');
    expect(results.judge?.calibrated).toBe(false);
    expect([...new Set(results.judge!.calibration.missed.map((m) => m.kind))]).toEqual(['reordered']);
    for (const m of results.judge!.calibration.missed) expect(m.expected).not.toBe(m.got);
    const [o] = results.outcomes;
    expect(o?.judge?.scored).toBe(false);
    // Unscored, the judge cannot fail the trial: it passes on its trigger alone, whatever the judge said.
    expect(o?.passed).toBe(true);
  }, 120_000);
});

// A bad judge config is an input error, checked in process with every other: test/bad-input.test.ts.
describe('judge: stability and unreadable replies', () => {
  it('a judge whose samples flip is UNSTABLE, and with judge.gate its case is INCONCLUSIVE: exit 3', async () => {
    const run = await judgedRun({
      judgeBlock: `judge: { items: { "${YOURSELF}": { flipRate: 0.5 } } }\n`,
      config: `${CODEX}${BASE}trials: 3\njudge: { model: sim-judge, samples: 3, gate: true }\n`,
      cases: CASES.slice(0, CASES.indexOf('- id: confirms')),
      // Draws pinned where two of the three items' samples disagree (seed 1 gives fewer): UNSTABLE at p 0.028.
      drawSeed: 2,
    });
    const results = resultsOf(onlyRun(run.project));
    cleanup(run.project, run.workdir);
    const [s] = results.judge!.stability;
    expect(s).toMatchObject({ caseId: 'plans-call', comparable: 3, unstable: true });
    expect(s!.disagreeing).toBeGreaterThanOrEqual(2);
    // Gated, a case its judge cannot answer consistently is decided by nothing the judge said.
    expect(results.verdicts[0]).toMatchObject({
      verdict: 'INCONCLUSIVE',
      reason: expect.stringMatching(/^the judge is UNSTABLE on this case/),
    });
    expect(run.r.exitCode).toBe(3);
  }, 240_000);

  it('unreadable replies are judge_error, never a verdict: a calibrated judge leaves the trial out', async () => {
    // Every sample of the confirmation item unreadable; the controls of the other item are answered.
    const run = await judgedRun({
      judgeBlock: 'judge: { unreadable: 1 }\n',
      config: `${CODEX}${BASE}trials: 1\njudge: { model: sim-judge, samples: 1 }\n`,
      cases: CASES.slice(0, CASES.indexOf('- id: confirms')),
    });
    const results = resultsOf(onlyRun(run.project));
    cleanup(run.project, run.workdir);
    const [o] = results.outcomes;
    expect(o?.judge?.items.map((i) => [i.samples, i.verdict])).toEqual([[['error'], 'judge_error']]);
    // Unreadable controls cannot be right: the judge is uncalibrated, and its judge_error is shown, not scored.
    expect(results.judge?.calibrated).toBe(false);
    expect(results.judge!.calibration.missed.every((m) => m.got === 'judge_error')).toBe(true);
  }, 120_000);
});
