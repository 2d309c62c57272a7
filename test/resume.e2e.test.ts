import { execa } from 'execa';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, CLI, cleanup, makeProject, runCli, runInProcess, skillMd, testEnv } from './helpers.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));
const env = testEnv();

/** A small sequential suite whose simulated model is imperfect, so cases need several trials to decide (removed after the file). */
function project(): string {
  const dir = makeProject({
    ...baseProject(),
    'cases/main.yaml': [
      '- id: pos-alpha',
      '  prompt: "please create an alpha record"',
      '  expect: { skill: alpha }',
      '- id: pos-beta',
      '  prompt: "list the beta records of project alpha"',
      '  expect: { skill: alpha-beta }',
      '- id: neg-weather',
      '  prompt: "what is the weather like"',
      '  expect: { skill: none }',
      '',
    ].join('\n'),
    'sim.yaml': [
      'seed: 7',
      'rules:',
      '  - case: pos-alpha',
      '    do: [{ p: 0.8, skill: alpha, args: "create" }, { p: 0.2, answer: "done" }]',
      '  - case: pos-beta',
      '    do: [{ p: 0.6, skill: alpha-beta, args: "list" }, { p: 0.4, skill: alpha, args: "list" }]',
      '  - case: neg-weather',
      '    do: [{ answer: "sunny" }]',
      '',
    ].join('\n'),
  });
  dirs.push(dir);
  return dir;
}

// One draw seed for every run here: a resumed run is compared with a separate uninterrupted one, so they must share
// their draws trial for trial (each run's draws are otherwise its own). Resuming is the harness's own logic, so these
// runs go through the real CLI that starts cheapest (Codex: about a third of Claude Code's CPU a trial); resuming
// through Claude Code is the --max-cost test's below. skillprobe runs in this process where its process is not the
// point: a spawned one only where a signal stops it or two of them contend for a run folder.
const RUN = [
  'run',
  '--agent',
  'codex',
  '--sim',
  'sim.yaml',
  '--draw-seed',
  '7',
  '--arms',
  'skill',
  '--concurrency',
  '2',
  '--min-trials',
  '3',
  '--max-trials',
  '8',
  '--threshold',
  '0.9',
];

const runsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const read = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const storedTrials = (runDir: string) =>
  existsSync(join(runDir, 'trials'))
    ? readdirSync(join(runDir, 'trials')).flatMap((c) => {
        // A case folder is made a moment before its arm folder.
        const arm = join(runDir, 'trials', c, 'skill');
        return existsSync(arm) ? readdirSync(arm).filter((f) => /^\d+\.meta\.json$/.test(f)) : [];
      })
    : [];
// Which in-flight trials finish past a decision depends on timing in any run (they are descriptive only); where and
// how each case was decided does not.
const decisions = (r: Results) => r.verdicts.map((v) => [v.caseId, v.verdict, v.decidedAt ?? null, v.llr]);

/** The three-trial run every refusal below starts from, made once: each test takes a copy of its project. */
const SHORT = [...RUN, '--max-trials', '3', '--min-trials', '3'];
let shortProject: Promise<string> | undefined;
async function shortRun(): Promise<{ dir: string; runDir: string }> {
  shortProject ??= (async () => {
    const base = project();
    const r = await runInProcess([...SHORT, '--transcripts', 'runs'], { cwd: base, env });
    expect(r.stderr).not.toMatch(/internal error/);
    return base;
  })();
  const base = await shortProject;
  const dir = mkdtempSync(join(tmpdir(), 'sp-resume-copy-'));
  dirs.push(dir);
  cpSync(base, dir, { recursive: true });
  return { dir, runDir: join(dir, 'runs', runsIn(join(dir, 'runs'))[0]!) };
}
/** Marks a stored run interrupted, as a Ctrl-C would have left it. */
const markInterrupted = (runDir: string) =>
  writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...read<RunManifest>(join(runDir, 'run.json')), status: 'interrupted' }));

describe('run --resume: an interrupted run finishes with the decisions of an uninterrupted one', () => {
  it('after Ctrl-C, --resume runs only the missing trials and reaches the same verdicts', async () => {
    // Two of the cases: neg-weather is decided (PASS at its 7th trial), pos-beta runs to the cap (INCONCLUSIVE at 8).
    const cases = [...RUN, '--grep', 'pos-beta|neg-weather'];
    const dir = project();
    const whole = await runInProcess([...cases, '--transcripts', 'whole', '--json'], { cwd: dir, env });
    expect(whole.stderr).not.toMatch(/internal error/);
    const baseline = JSON.parse(whole.stdout) as Results;
    expect(baseline.verdicts.map((v) => [v.caseId, v.verdict, v.decidedAt ?? null])).toEqual([
      ['pos-beta', 'INCONCLUSIVE', null],
      ['neg-weather', 'PASS', 7],
    ]);

    const child = execa('node', [CLI, ...cases, '--transcripts', 'cut'], {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const deadline = Date.now() + 120_000;
    const runDir = () => join(dir, 'cut', runsIn(join(dir, 'cut'))[0] ?? 'none');
    while (storedTrials(runDir()).length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const cut = await child;
    expect(cut.exitCode).toBe(130);
    expect(cut.stdout).toMatch(/skillprobe run --agent codex --sim sim.yaml .*--transcripts cut --resume \S+ runs the missing trials/);
    const before = storedTrials(runDir()).length;
    expect(before).toBeGreaterThanOrEqual(4);
    expect(before).toBeLessThan(baseline.outcomes.length);
    expect(read<RunManifest>(join(runDir(), 'run.json')).status).toBe('interrupted');

    const resumed = await runInProcess([...cases, '--resume', runDir(), '--json'], { cwd: dir, env });
    expect(resumed.stderr).not.toMatch(/internal error/);
    const results = JSON.parse(resumed.stdout) as Results;
    expect(decisions(results)).toEqual(decisions(baseline));
    expect(resumed.exitCode).toBe(whole.exitCode);
    // One folder: no new run was started, and the manifest says it was resumed.
    expect(runsIn(join(dir, 'cut'))).toHaveLength(1);
    const manifest = read<RunManifest>(join(runDir(), 'run.json'));
    expect(manifest.status).toBe('completed');
    expect(manifest.resumedAt).toHaveLength(1);
    expect(read<Results>(join(runDir(), 'results.json')).verdicts.map((v) => v.verdict)).toEqual(baseline.verdicts.map((v) => v.verdict));
  }, 600_000);

  it('refuses to resume when a skill changed, naming it; --force goes on and records why', async () => {
    const { dir, runDir } = await shortRun();
    writeFileSync(join(dir, 'skills/alpha/SKILL.md'), skillMd('alpha', 'Handle alpha requests; now with a different description.'));
    const refused = await runInProcess([...RUN, '--max-trials', '3', '--min-trials', '3', '--resume', runDir], { cwd: dir, env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/run\.json: changed since this run started: skills \(alpha:/);
    expect(refused.stderr).toMatch(/--force/);
    const changedFlag = await runInProcess([...RUN, '--max-trials', '4', '--min-trials', '3', '--resume', runDir, '--force'], {
      cwd: dir,
      env,
    });
    expect(changedFlag.stderr).not.toMatch(/internal error/);
    const manifest = read<RunManifest>(join(runDir, 'run.json'));
    expect(manifest.forcedChanges?.join(' ')).toMatch(/skills \(alpha/);
    expect(manifest.forcedChanges?.join(' ')).toMatch(/config \(decision\.maxTrials\)/);
  }, 600_000);

  it('refuses a run that is still running, and --force without --resume', async () => {
    const { dir, runDir } = await shortRun();
    const m = read<RunManifest>(join(runDir, 'run.json'));
    // This test's own process stands in for a live writer.
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...m, status: 'running', owner: { ...m.owner!, pid: process.pid } }));
    const r = await runInProcess([...RUN, '--max-trials', '3', '--min-trials', '3', '--resume', runDir], { cwd: dir, env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/still running \(process \d+\)/);
    const f = await runInProcess([...RUN, '--force'], { cwd: dir, env });
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toMatch(/--force: only means something with --resume/);
  }, 300_000);
});

describe('run --resume: one writer per run folder', () => {
  it('two resumes of one folder started together: one goes ahead, the other is refused at once, naming the holder', async () => {
    const { dir, runDir } = await shortRun();
    // Back to an interrupted run with a case's trials still to run, so the resume that goes ahead takes a while.
    rmSync(join(runDir, 'trials', 'pos-alpha'), { recursive: true });
    rmSync(join(runDir, 'results.json'));
    markInterrupted(runDir);
    const resume = () => runCli([...SHORT, '--resume', runDir], { cwd: dir, env, timeoutMs: 240_000 });
    const [a, b] = await Promise.all([resume(), resume()]);
    const [refused, ran] = a.exitCode === 2 ? [a, b] : [b, a];
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /the run folder is in use by skillprobe process \d+ on .*\(run --resume, since .*\) — wait for it to finish/,
    );
    expect(refused.stderr).not.toMatch(/internal error/);
    expect(ran.exitCode, ran.stderr).not.toBe(2);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(read<RunManifest>(join(runDir, 'run.json')).status).toBe('completed');
    expect(read<Results>(join(runDir, 'results.json')).outcomes.length).toBeGreaterThanOrEqual(9);
    expect(existsSync(join(runDir, 'run.lock'))).toBe(false);
  }, 300_000);
});

describe('run --resume: what it must never do', () => {
  it('a transcript whose meta.json is missing is set aside, never overwritten, and its trial runs again', async () => {
    const { dir, runDir } = await shortRun();
    const arm = join(runDir, 'trials', 'pos-alpha', 'skill');
    const before = readFileSync(join(arm, '2.jsonl'));
    rmSync(join(arm, '2.meta.json'));
    markInterrupted(runDir);
    const r = await runInProcess([...SHORT, '--resume', runDir], { cwd: dir, env });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stderr).toMatch(/a transcript without its meta\.json, kept as trials\/pos-alpha\/skill\/2\.s1\.jsonl: its trial runs again/);
    expect(readFileSync(join(arm, '2.s1.jsonl'))).toEqual(before);
    expect(existsSync(join(arm, '2.jsonl')) && existsSync(join(arm, '2.meta.json'))).toBe(true);
    expect(read<Results>(join(runDir, 'results.json')).damaged).toEqual([]);
  }, 300_000);

  it('a simulated run resumed without --sim names the flag, not missing credentials', async () => {
    const { dir, runDir } = await shortRun();
    // Its draw seed goes too: without the simulator there is nothing for it to seed.
    const simFlags = ['--sim', '--draw-seed'];
    const withoutSim = SHORT.filter((a, i) => !simFlags.includes(a) && !simFlags.includes(SHORT[i - 1]!));
    const r = await runInProcess([...withoutSim, '--resume', runDir], { cwd: dir, env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /--sim: run .* ran against the model simulator \(profile sim\.yaml\), and its resume must too — add --sim sim\.yaml/,
    );
    expect(r.stderr).not.toMatch(/credential|API key/i);
  }, 300_000);

  it('an edit of the simulator profile that changes behaviour is refused by name; one that does not (a comment) is not', async () => {
    const { dir, runDir } = await shortRun();
    markInterrupted(runDir);
    const profile = readFileSync(join(dir, 'sim.yaml'), 'utf8');
    writeFileSync(join(dir, 'sim.yaml'), `# a comment changes nothing\n${profile}`);
    const comment = await runInProcess([...SHORT, '--resume', runDir], { cwd: dir, env });
    expect(comment.exitCode, comment.stderr).not.toBe(2);
    markInterrupted(runDir);
    // Two behaviour weights, and nothing else.
    writeFileSync(
      join(dir, 'sim.yaml'),
      profile.replace(
        '{ p: 0.8, skill: alpha, args: "create" }, { p: 0.2, answer: "done" }',
        '{ p: 0.7, skill: alpha, args: "create" }, { p: 0.3, answer: "done" }',
      ),
    );
    const edited = await runInProcess([...SHORT, '--resume', runDir], { cwd: dir, env });
    expect(edited.exitCode).toBe(2);
    expect(edited.stderr).toMatch(
      /changed since this run started: simulator profile \(--sim: its behaviour was edited \([0-9a-f]{8} → [0-9a-f]{8}\)\)/,
    );
  }, 300_000);
});

// Through Claude Code: the one CLI that reports what a trial cost.
describe('run --max-cost: a partial run, stopped at the cap, that --resume can finish', () => {
  it('stops scheduling at the cap with exit 5, then resumes to the end under a higher cap', async () => {
    const dir = project();
    // Three trials planned (one a case), about 0.007 USD each at Claude Code 2.1.332's prices: the cap stops the run
    // after two of them.
    const fixed = ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--concurrency', '1', '--trials', '1', '--transcripts', 'runs'];
    const capped = await runInProcess([...fixed, '--max-cost', '0.01'], { cwd: dir, env });
    expect(capped.stderr).not.toMatch(/internal error/);
    expect(capped.exitCode).toBe(5);
    expect(capped.stdout).toMatch(/stopped at --max-cost 0\.01 USD: a partial run/);
    const runDir = join(dir, 'runs', runsIn(join(dir, 'runs'))[0]!);
    const m = read<RunManifest>(join(runDir, 'run.json'));
    expect(m.status).toBe('cost_capped');
    const results = read<Results>(join(runDir, 'results.json'));
    const spent = results.run.costUsd!;
    expect(spent).toBeGreaterThanOrEqual(0.01);
    // One trial at a time: the cap is passed by at most the one trial that crossed it.
    const perTrial = spent / results.outcomes.length;
    expect(spent - perTrial).toBeLessThan(0.01);
    expect(results.outcomes.length).toBeLessThan(3);
    expect(m.trials.notStarted).toBe(3 - results.outcomes.length);

    const rest = await runInProcess([...fixed, '--max-cost', '100', '--resume', runDir], { cwd: dir, env });
    expect(rest.stderr).not.toMatch(/internal error/);
    expect(rest.exitCode).not.toBe(5);
    const all = read<Results>(join(runDir, 'results.json'));
    expect(all.outcomes).toHaveLength(3);
    expect(read<RunManifest>(join(runDir, 'run.json')).status).toBe('completed');
  }, 600_000);
});

describe('--resume --add-trials: a finished run topped up, as a canary base the base is the bottleneck of', () => {
  it('a sequential run gets that many trials per case after its design stopped it; compare reads the topped-up rule; an unfinished run is refused', async () => {
    const dir = project();
    const first = await runInProcess([...RUN, '--grep', '^pos-alpha$', '--transcripts', 'runs'], { cwd: dir, env });
    expect([0, 1, 3]).toContain(first.exitCode);
    const runDir = join(dir, 'runs', runsIn(join(dir, 'runs'))[0]!);
    const before = read<Results>(join(runDir, 'results.json'));
    const decidedAt = before.verdicts[0]!.decidedAt!;
    const topped = await runInProcess([...RUN, '--grep', '^pos-alpha$', '--transcripts', 'runs', '--resume', runDir, '--add-trials', '3'], {
      cwd: dir,
      env,
    });
    expect(topped.stderr).not.toMatch(/internal error|input error/);
    const manifest = read<RunManifest>(join(runDir, 'run.json'));
    expect(manifest).toMatchObject({ status: 'completed', topUps: [3] });
    const after = read<Results>(join(runDir, 'results.json'));
    // Trials that finished past the decision count among the three: at least decidedAt + 3 in all, and the design's
    // own decision is unchanged.
    expect(after.outcomes.length).toBeGreaterThanOrEqual(decidedAt + 3);
    expect(after.outcomes.length).toBeLessThanOrEqual(Math.max(before.outcomes.length, decidedAt + 3) + 1);
    expect(after.verdicts[0]!.decidedAt).toBe(decidedAt);
    const json = JSON.parse((await runInProcess(['compare', runDir, runDir, '--reporter', 'json'], { cwd: dir, env })).stdout) as {
      cases: { method: string; base: { n: number } }[];
    };
    expect(json.cases[0]).toMatchObject({ method: 'design', base: { n: decidedAt + 3 } });
    // A run that did not finish is refused, naming what to do, before any trial.
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...manifest, status: 'interrupted' }));
    const refused = await runInProcess([...RUN, '--grep', '^pos-alpha$', '--resume', runDir, '--add-trials', '2'], { cwd: dir, env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/the run is interrupted: --add-trials tops up a finished run — finish it first/);
    expect(read<Results>(join(runDir, 'results.json')).outcomes).toHaveLength(after.outcomes.length);
  });
});

describe('run --resume of a canary (`--baseline`): the comparison an uninterrupted canary reports', () => {
  it('reports against the base it was drawn against, with the exit code `compare` gives the same two runs', async () => {
    // The three-trial run as the base; --max-trials caps the canary (three: the claim is the resumed report, whatever
    // the size), and the resume passes it again, as a user repeating the command would.
    const { dir } = await shortRun();
    const baseDir = join('runs', runsIn(join(dir, 'runs'))[0]!);
    const capped = (cap: number) => [...RUN, '--max-trials', String(cap)];
    const canary = await runInProcess([...capped(3), '--baseline', baseDir, '--transcripts', 'canary'], { cwd: dir, env });
    expect(canary.stdout).toMatch(/skillprobe compare · suite/);
    const canaryDir = join(dir, 'canary', runsIn(join(dir, 'canary'))[0]!);
    expect(read<RunManifest>(join(canaryDir, 'run.json')).canary?.maxTrials).toBe(3);
    markInterrupted(canaryDir);
    // Another cap is a change, named; nothing is run.
    const changed = await runInProcess([...capped(4), '--resume', canaryDir], { cwd: dir, env });
    expect(changed.exitCode).toBe(2);
    expect(changed.stderr).toMatch(/changed since this run started: the canary's cap \(--max-trials 3 → 4\)/);
    const resumed = await runInProcess([...capped(3), '--resume', canaryDir], { cwd: dir, env });
    expect(resumed.stderr).not.toMatch(/internal error|input error/);
    expect(resumed.stdout).toMatch(/skillprobe compare · suite/);
    const compared = await runInProcess(['compare', baseDir, canaryDir], { cwd: dir, env });
    expect(resumed.exitCode).toBe(compared.exitCode);
    expect(resumed.exitCode).toBe(canary.exitCode);
  }, 600_000);
});
