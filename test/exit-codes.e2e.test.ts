import { execa } from 'execa';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, CLI, cleanup, makeProject, projectsRemovedAfterAll, runInProcess, testEnv } from './helpers.js';
import type { Results } from '../src/run/schema.js';

/**
 * Exit codes end to end: the real CLI against the simulator, one profile per outcome, decided by SPRT.
 * p0 = 0.8, p1 = 0.5: four straight passes accept, four straight fails reject, three trials decide nothing.
 */
const CONFIG = 'decision:\n  mode: sprt\n  threshold: 0.8\n  delta: 0.3\n  minTrials: 1\n  maxTrials: 6\n';
/** The same, under the design that always decides: no cap, so the design's own maximum. */
const SEQUENTIAL = 'decision:\n  threshold: 0.8\n  delta: 0.3\n  minTrials: 1\n';
const CASES = '- id: c\n  prompt: "please create an alpha record"\n  expect: { skill: alpha }\n';

const PROFILES: Record<string, string> = {
  pass: '- { p: 1, skill: alpha, args: "create" }',
  fail: '- { p: 1, answer: "I will not use a skill." }',
  coin: '- { p: 0.5, skill: alpha, args: "create" }\n      - { p: 0.5, answer: "no" }',
  limited: '- { p: 1, http: 429, retryAfter: 0 }',
};

/** One run of a few trials on a busy 2-core machine (a trial takes 0.5–11 s there), with room to spare. */
const ONE_RUN_MS = 120_000;

describe('exit codes through the real CLI', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  async function run(profile: keyof typeof PROFILES, extra: string[] = [], config = CONFIG) {
    const dir = makeProject({
      ...baseProject(),
      'cases/main.yaml': CASES,
      // Through Codex, the real CLI that starts cheapest (about a third of Claude Code's CPU a trial): exit codes are the
      // harness's own; how each CLI gives up on HTTP 429 is its row in agent-conformance.e2e.test.ts.
      'skillprobe.config.yaml': `agent: codex\n${config}`,
      'sim.yaml': `seed: 3\nrules:\n  - case: c\n    do:\n      ${PROFILES[profile]}\n`,
    });
    dirs.push(dir);
    // One draw seed: the coin's outcomes are the same every time the file runs (a run's draws are otherwise fresh).
    const r = await runInProcess(
      ['run', '--sim', 'sim.yaml', '--draw-seed', '3', '--arms', 'skill', '--concurrency', '2', '--transcripts', 'runs', ...extra],
      {
        cwd: dir,
      },
    );
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    return { r, results, runDir };
  }

  it(
    '0 when every case passes, decided after 4 trials (in-flight extras recorded, not counted in the decision)',
    async () => {
      const { r, results } = await run('pass');
      expect(r.exitCode).toBe(0);
      const v = results.verdicts[0]!;
      expect(v).toMatchObject({ verdict: 'PASS', decidedAt: 4, mode: 'sprt' });
      expect(v.trials).toBeGreaterThanOrEqual(4);
      // Extras are trials scheduled before the decision was known. On a busy machine a later trial can finish before
      // an earlier one, so their number is not bounded by the concurrency (the scheduler's own tests pin that nothing
      // is scheduled after a decision); here: every extra is recorded, and none moved the decision.
      expect(v.afterDecision ?? 0).toBe(v.trials - 4);
      expect(results.outcomes.filter((o) => o.arm === 'skill')).toHaveLength(v.trials);
      expect(r.stdout).toMatch(/VERDICTS · sequential.*1 PASS.*exit code 0/);
    },
    ONE_RUN_MS,
  );

  /** The failing run two tests read: its exit code, and the report of its folder. */
  let failing: ReturnType<typeof run> | undefined;
  const failingRun = () => (failing ??= run('fail', ['--json']));

  it(
    '1 when a case fails; with --json stdout is exactly the results',
    async () => {
      const { r, results } = await failingRun();
      expect(JSON.parse(r.stdout)).toEqual(results);
      expect(r.stderr).toMatch(/run folder: runs\//);
      expect(r.exitCode).toBe(1);
      expect(results.verdicts[0]).toMatchObject({ verdict: 'FAIL', decidedAt: 4 });
    },
    ONE_RUN_MS,
  );

  // 3 for INCONCLUSIVE alone under the default policy: the run below stopped at maxTrials 3. The policy's table
  // (warn 3, fail 1, pass 0) is pure and tested in process (sequential.test.ts); here its flag reaches the exit code.
  it(
    '--inconclusive fail makes INCONCLUSIVE a 1, and --no-gate exits 0 saying so',
    async () => {
      const { r, results } = await run('coin', ['--max-trials', '3', '--inconclusive', 'fail', '--no-gate']);
      expect(results.verdicts[0]).toMatchObject({ verdict: 'INCONCLUSIVE', scored: 3 });
      expect(results.exitCode).toBe(1);
      expect(r.stdout).toMatch(/gate off \(--no-gate\): the verdicts' exit code would be 1/);
      expect(r.exitCode).toBe(0);
    },
    ONE_RUN_MS,
  );

  it(
    'the design that always decides: the coin-flip case Wald left INCONCLUSIVE is decided, with its rate adjusted for stopping',
    async () => {
      const { r, results } = await run('coin', [], SEQUENTIAL);
      const v = results.verdicts[0]!;
      expect(v.mode).toBe('sequential');
      expect(['PASS', 'FAIL']).toContain(v.verdict);
      expect(r.exitCode).toBe(v.verdict === 'PASS' ? 0 : 1);
      expect(v.decidedAt).toBeLessThanOrEqual(v.design!.maxTrials);
      expect(v.estimate!.lower).toBeLessThanOrEqual(v.estimate!.rate);
      expect(v.estimate!.upper).toBeGreaterThanOrEqual(v.estimate!.rate);
      expect(r.stderr).not.toMatch(/warning: case/);
    },
    ONE_RUN_MS,
  );

  it(
    "a maxTrials below the design's maximum is said before any trial, and a case it stops undecided is INCONCLUSIVE: 3 under the default policy",
    async () => {
      const { r, results } = await run('coin', ['--max-trials', '3'], SEQUENTIAL);
      const warning =
        /warning: case c: maxTrials 3 is below the (\d+) by which its design decides: it ends INCONCLUSIVE with chance \d+% at p0 and \d+% at p1/.exec(
          r.stderr,
        );
      expect(warning, r.stderr).not.toBeNull();
      // Said before the first trial: ahead of the simulator banner that precedes the run.
      expect(r.stderr.indexOf('warning: case c')).toBeLessThan(r.stderr.indexOf('SIMULATOR'));
      const v = results.verdicts[0]!;
      expect(v).toMatchObject({ verdict: 'INCONCLUSIVE', scored: 3 });
      expect(v.reason).toContain(`maxTrials 3 is below the ${warning![1]} by which the design decides`);
      expect(r.exitCode).toBe(3);
    },
    ONE_RUN_MS,
  );

  it(
    '4 for ERROR when HTTP 429s leave no usable trial (never scored as "did not trigger")',
    async () => {
      // Two trials show it: every one is an error, whatever the cap (each is a few CLI calls, retried, then re-run once).
      const { r, results } = await run('limited', ['--min-trials', '2', '--max-trials', '2']);
      expect(r.exitCode).toBe(4);
      expect(results.verdicts[0]).toMatchObject({ verdict: 'ERROR', scored: 0 });
      expect(results.outcomes.every((o) => o.status === 'infra_error' && o.passed === null)).toBe(true);
    },
    ONE_RUN_MS,
  );

  it(
    'report on a stored run exits with the same code, without running anything',
    async () => {
      const { runDir } = await failingRun();
      const again = await runInProcess(['report', runDir], { cwd: runDir });
      expect(again.exitCode).toBe(1);
    },
    ONE_RUN_MS,
  );
});

describe('the output and the run folder going away under a run', () => {
  const project = projectsRemovedAfterAll(() => ({
    ...baseProject(),
    'cases/main.yaml': CASES,
    'sim.yaml': 'seed: 3\nrules:\n  - case: c\n    do:\n      - { p: 1, skill: alpha, args: "create" }\n',
    // The output and the run folder are the harness's own: through Codex, the real CLI that starts cheapest.
    'skillprobe.config.yaml': 'agent: codex\n',
  }));

  it(
    'a reader that closes stdout early (run | head -1): no EPIPE trace, and the run goes on to its results',
    async () => {
      const dir = project();
      // The shell reports the exit status of skillprobe itself, not of head.
      const r = await execa(
        'bash',
        ['-c', `node '${CLI}' run --sim sim.yaml --arms skill --trials 3 --transcripts runs | head -1; exit "\${PIPESTATUS[0]}"`],
        {
          cwd: dir,
          env: testEnv(),
          extendEnv: false,
          reject: false,
          timeout: ONE_RUN_MS,
        },
      );
      expect(r.stdout.split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/EPIPE|internal error|\n\s+at /);
      expect(r.exitCode).toBe(3); // the verdicts' code: three passes cannot tell 0.8 from 0.5
      const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
      expect((JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results).outcomes).toHaveLength(3);
    },
    ONE_RUN_MS,
  );

  it(
    'the transcripts folder deleted mid-run: the storage error, named (exit 70), never an internal one',
    async () => {
      const dir = project();
      // In this process: the folder going away is the claim, not the process.
      const child = runInProcess(
        ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--trials', '12', '--concurrency', '1', '--transcripts', 'runs'],
        {
          cwd: dir,
        },
      );
      const stored = () =>
        existsSync(join(dir, 'runs'))
          ? readdirSync(join(dir, 'runs'), { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.meta.json'))
          : false;
      const deadline = Date.now() + ONE_RUN_MS;
      while (!stored() && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      // The run may be writing trial files as the folder goes: a removal racing a write (ENOTEMPTY) is tried again
      // until the folder is gone, which it is at the latest once the run has stopped writing.
      const removeBy = Date.now() + ONE_RUN_MS / 2;
      for (;;) {
        try {
          rmSync(join(dir, 'runs'), { recursive: true, force: true });
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || Date.now() > removeBy) throw e;
          await new Promise((done) => setTimeout(done, 10));
        }
      }
      const r = await child;
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(/skillprobe: cannot write \S*runs\S*: /);
      expect(r.exitCode).toBe(70);
    },
    ONE_RUN_MS,
  );
});
