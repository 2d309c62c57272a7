import { execa } from 'execa';
import fc from 'fast-check';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import type { Results, RunManifest, TrialMeta } from '../src/run/schema.js';
import { baseProject, CLI, cleanup, makeProject, runInProcess, testEnv } from './helpers.js';

/**
 * The fault matrix: the real CLI against the simulator, a fault landing mid-run. Every row checks that no finished
 * transcript is lost, that no agent process and no workspace is left (once the run has exited; after a kill -9 of
 * skillprobe and its watchdog, once the next run has started: the next start sweeps), and that `skillprobe grade`
 * still reads the run folder. `runFolders` keeps each interrupted row's folder for the resume check at the end.
 * The sweep itself, case by case, is tested in process (workspace-sweep.test.ts).
 */

// Surviving a fault is the harness's own doing, whatever the CLI: these runs go through the real CLI that starts
// cheapest (Codex: about a third of Claude Code's CPU a trial). Each CLI's own faults (HTTP errors, stalls, the turn
// limit) are its row in agent-conformance.e2e.test.ts.
const PINNED = codex.resolveBinary();
const root = mkdtempSync(join(tmpdir(), 'sp-faults-'));
const project = makeProject({
  ...baseProject(),
  // Stalls until the deadline: an agent that is surely running when the fault lands.
  'cases/slow.yaml': '- id: slow\n  prompt: "take your time and ponder"\n  expect: { skill: none }\n',
  'sim/steady.yaml': [
    'seed: 1',
    'rules:',
    '  - { case: pos-alpha, do: [{ skill: alpha }] }',
    '  - { case: neg-weather, do: [{ answer: "sunny" }] }',
    '  - { case: slow, do: [{ stall: true }] }',
    '',
  ].join('\n'),
  'sim/failing.yaml': [
    'seed: 1',
    'rules:',
    '  - { case: pos-alpha, do: [{ http: 500 }] }',
    '  - { case: neg-weather, do: [{ stall: true }] }',
    '  - { case: slow, do: [{ http: 529 }] }',
    '',
  ].join('\n'),
  'skillprobe.config.yaml': 'agent: codex\n',
  // No retries: a failing simulator fails each trial once, quickly.
  'no-retries.config.yaml': 'agent: codex\nretries: { cli: 0, infra: 0 }\n',
});

/**
 * The flags of the rows whose folders are resumed at the end, with `more`: two trials a case, the stalled case's
 * running until the 15 s deadline. Every resume is compared with one uninterrupted run of these flags (the deadline
 * only says when the stalled case's trials end, which are missing data either way; a wrapper script as the agent
 * binary execs the pinned CLI). A quick trial must never meet the deadline on a busy machine: 6 s did with twelve CLIs
 * starting at once, 10 s at a load of 22 (its trials became missing data).
 */
const resumable = (...more: string[]) => [
  '-c',
  'no-retries.config.yaml',
  '--sim',
  'sim/steady.yaml',
  '--trials',
  '2',
  '--timeout',
  '15',
  ...more,
];

/** Every row's run folders, by row, with the flags each was started with (so it can be resumed). */
/** The steady profile on the two cases the rows share (one fires a skill, one should not), `trials` each. */
const twoCases = (trials: number) => ['--sim', 'sim/steady.yaml', '--grep', '^(pos-alpha|neg-weather)$', '--trials', String(trials)];

const runFolders = new Map<string, { dir: string; args: string[] }>();

afterAll(() => {
  // Whatever a failed row left running in its workspaces (agents this file started, by their ids).
  for (const pid of processesIn(root, 'cwd')) process.kill(pid, 'SIGKILL');
  cleanup(root, project);
});

/** A stand-in agent binary: a shell script, executable, in the test's folder. */
function agentScript(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * Live processes working in `dir` (agents and their descendants), or also naming it in their arguments (a
 * watchdog), read from /proc; this one aside.
 */
function processesIn(dir: string, by: 'cwd' | 'cwd or args' = 'cwd or args'): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const named = by === 'cwd or args' && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir);
      if (cwd === dir || cwd.startsWith(dir + sep) || named) out.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

/** A process's command line, spaces between its arguments; '' once it is gone. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

const left = (workdir: string) => ({ processes: processesIn(workdir), workspaces: readdirSync(workdir) });

const spawnCli = (args: string[], timeoutMs = 120_000) =>
  execa('node', [CLI, ...args], { cwd: project, env: testEnv(), extendEnv: false, reject: false, stdin: 'ignore', timeout: timeoutMs });

/** One row of the matrix, one run: its own workspace root and transcripts folder. */
class Row {
  readonly workdir: string;
  readonly transcripts: string;
  private args: string[] = [];
  constructor(readonly name: string) {
    this.workdir = join(root, `work-${name}`);
    this.transcripts = join(project, 'runs', name);
    mkdirSync(this.workdir);
  }

  /** The run folder the row's run wrote, if it got that far. */
  runDir(): string | undefined {
    const id = existsSync(this.transcripts) ? readdirSync(this.transcripts)[0] : undefined;
    return id === undefined ? undefined : join(this.transcripts, id);
  }

  /** A trial of the stalled case is streaming into the run's folder: an agent surely running when a fault lands. */
  stalling(): boolean {
    const arm = join(this.runDir() ?? root, 'trials', 'slow', 'skill');
    return existsSync(arm) && readdirSync(arm).some((f) => f.endsWith('.jsonl.part'));
  }

  start(args: string[], timeoutMs?: number): Harness {
    this.args = args;
    return new Harness(
      spawnCli(
        ['run', '--arms', 'skill', '--concurrency', '2', '--transcripts', this.transcripts, '--workdir', this.workdir, ...args],
        timeoutMs,
      ),
    );
  }

  keep(runDir: string | undefined): void {
    if (runDir) runFolders.set(this.name, { dir: runDir, args: this.args });
  }
}

/** skillprobe running; its non-TTY progress lines say which trials finished (each is printed once stored). */
class Harness {
  private err = '';
  constructor(readonly child: ReturnType<typeof spawnCli>) {
    child.stderr?.on('data', (d: Buffer) => (this.err += d.toString('utf8')));
  }

  /** "case/arm/n" of every trial reported finished. */
  finished(): string[] {
    return [...this.err.matchAll(/\] (\S+)\/(skill|ablation)#(\d+): /g)].map((m) => `${m[1]}/${m[2]}/${m[3]}`);
  }

  async waitFor(ok: () => boolean, what: string, ms = 45_000): Promise<void> {
    if (!(await until(ok, ms))) throw new Error(`gave up waiting for ${what}; stderr so far:\n${this.err}`);
  }
}

/** Every trial reported finished has its transcript and its meta. */
function expectStored(runDir: string | undefined, finished: string[]): void {
  if (!runDir) {
    expect(finished).toEqual([]);
    return;
  }
  for (const t of finished) {
    const [caseId, arm, n] = t.split('/');
    for (const ext of ['jsonl', 'meta.json'])
      expect(existsSync(join(runDir, 'trials', caseId!, arm!, `${n}.${ext}`)), `${t}: ${ext}`).toBe(true);
  }
}

/**
 * The next start (a short run on the same workspace root) sweeps whatever the fault left: nothing remains. In this
 * process: the sweep is the start's, whichever process starts.
 */
async function expectNothingLeftAfterNextStart(row: Row): Promise<string> {
  const r = await runInProcess(
    [
      'run',
      '--sim',
      'sim/steady.yaml',
      '--grep',
      '^neg-weather$',
      '--trials',
      '1',
      '--arms',
      'skill',
      '--transcripts',
      join(project, 'runs-next', row.name),
      '--workdir',
      row.workdir,
    ],
    {
      cwd: project,
    },
  );
  expect([0, 3], r.stderr).toContain(r.exitCode);
  // Its own watchdog leaves a moment after it.
  await until(() => processesIn(row.workdir).length === 0, 5000);
  expect(left(row.workdir)).toEqual({ processes: [], workspaces: [] });
  return r.stderr;
}

/**
 * `skillprobe grade` reads the folder: a verdict, or 4 for what is missing; never a usage error or a crash. In this
 * process: the folder is the claim, and grading spawns nothing.
 */
async function expectGradable(runDir: string | undefined): Promise<void> {
  // Killed before it wrote run.json (a few milliseconds after making the folder), a folder is no run to grade.
  if (!runDir || !existsSync(join(runDir, 'run.json'))) return;
  const r = await runInProcess(['grade', runDir], { cwd: project });
  expect([0, 1, 3, 4], r.stderr).toContain(r.exitCode);
  expect(r.stderr).not.toMatch(/internal error/);
}

/** Once the run has exited by itself: no agent and no workspace left (its watchdog leaves a moment after it). */
async function expectNothingLeft(row: Row): Promise<void> {
  await until(() => processesIn(row.workdir).length === 0 && readdirSync(row.workdir).length === 0, 5000);
  expect(left(row.workdir)).toEqual({ processes: [], workspaces: [] });
}

/** What every row whose run exited by itself checks once its fault is over: nothing left, gradable; kept for resuming. */
async function afterFault(row: Row, runDir: string, resume = true): Promise<void> {
  if (resume) row.keep(runDir);
  await expectNothingLeft(row);
  await expectGradable(runDir);
}

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

describe('faults: every fault survived, nothing lost, nothing left behind', () => {
  it('kill -9 of skillprobe at 4 seeded points: its watchdog reaps every agent and workspace within seconds', async () => {
    // Points after the run began (run.json written, the watchdog started): how long the CLI takes to get there varies
    // with the machine's load, and a kill before it leaves nothing to reap or resume. One seeded point in each second
    // of the first four: the kill lands at every stage of the run (agents starting, quick trials storing, stalled).
    const points = [0, 1, 2, 3].map(
      (k) => fc.sample(fc.integer({ min: 500 + 1000 * k, max: 1500 + 1000 * k }), { seed: 8 + k, numRuns: 1 })[0]!,
    );
    // The four runs at once, each its own row (workspace root, transcripts): their waits overlap.
    await Promise.all(
      points.map(async (at, i) => {
        const row = new Row(`kill9-${i}`);
        const h = row.start(resumable());
        const began = () => row.runDir() !== undefined && existsSync(join(row.runDir()!, 'run.json'));
        expect(await until(began, 30_000), `run ${i} wrote its run.json`).toBe(true);
        await sleep(at);
        h.child.kill('SIGKILL');
        await h.child;
        const killedAt = Date.now();
        const finished = h.finished();
        // A SIGKILLed process cleans nothing: all of this is the watchdog's doing.
        await until(() => processesIn(row.workdir).length === 0 && readdirSync(row.workdir).length === 0, 8000);
        expect(left(row.workdir), `killed at ${at} ms`).toEqual({ processes: [], workspaces: [] });
        expect(Date.now() - killedAt, `killed at ${at} ms: reaped within seconds`).toBeLessThan(5000);
        expectStored(row.runDir(), finished);
        row.keep(row.runDir());
        await expectGradable(row.runDir());
      }),
    );
  }, 150_000);

  it('kill -9 of skillprobe and its watchdog: the next start kills the agents still running and removes their workspaces', async () => {
    const row = new Row('kill9-both');
    // A descendant that ignores its parent's death, as agents' tools can: only a process-group kill ends it.
    const agent = agentScript('lingering-agent.sh', `sleep 300 >/dev/null 2>&1 &\nexec '${PINNED}' "$@"`);
    const h = row.start(resumable('--grep', '^slow$', '--agent-binary', agent));
    const pid = h.child.pid!;
    // Naming the workspace root but working elsewhere: skillprobe itself and its watchdog.
    const watchdogs = () => processesIn(row.workdir).filter((p) => p !== pid && !processesIn(row.workdir, 'cwd').includes(p));
    // Two trials, each started its lingering descendant (the CLI itself may be one process or several).
    const lingering = () => processesIn(row.workdir, 'cwd').filter((p) => commandOf(p) === 'sleep 300').length;
    await h.waitFor(() => watchdogs().length === 1 && lingering() >= 2, 'two agents running');
    process.kill(watchdogs()[0]!, 'SIGKILL');
    process.kill(pid, 'SIGKILL');
    await h.child;
    await sleep(1000);
    expect(processesIn(row.workdir, 'cwd').length).toBeGreaterThan(0); // nobody left to clean up
    expect(readdirSync(row.workdir).length).toBeGreaterThan(0);

    const next = await expectNothingLeftAfterNextStart(row);
    expect(next).toMatch(/swept [1-9]\d* workspaces? left in /);
    row.keep(row.runDir());
    await expectGradable(row.runDir());
  }, 60_000);

  // Every stop signal (Ctrl-C, kill, a closed terminal) takes the same path: stop-signals.test.ts.
  it('SIGHUP stops a run like Ctrl-C: finished transcripts kept, running trials killed (never "did not trigger"), run.json interrupted, exit 130', async () => {
    const row = new Row('sighup');
    const h = row.start(resumable());
    await h.waitFor(() => h.finished().length >= 2 && row.stalling(), 'stored trials and a stalled agent');
    const finishedBefore = h.finished();
    h.child.kill('SIGHUP');
    const r = await h.child;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/stopping: killing running trials/);
    const runDir = row.runDir()!;
    expect(readJson<RunManifest>(join(runDir, 'run.json')).status).toBe('interrupted');
    expectStored(runDir, h.finished());
    const outcomes = readJson<Results>(join(runDir, 'results.json')).outcomes;
    // Those stored before the signal graded as they ran; those it stopped (stalled, or still starting) killed: recorded
    // as such, their partial transcripts kept, excluded from scoring.
    const before = outcomes.filter((o) => finishedBefore.includes(`${o.caseId}/${o.arm}/${o.n}`));
    expect(before.length).toBeGreaterThanOrEqual(2);
    // pos-alpha's trials stop once its skill loaded (settled), neg-weather's run to their answer.
    for (const o of before) expect(o).toMatchObject({ status: o.caseId === 'pos-alpha' ? 'settled' : 'ok', passed: true });
    const stalled = outcomes.filter((o) => !finishedBefore.includes(`${o.caseId}/${o.arm}/${o.n}`));
    expect(stalled.filter((o) => o.caseId === 'slow').length).toBeGreaterThanOrEqual(1);
    expect(stalled.length).toBeGreaterThanOrEqual(1);
    for (const o of stalled) {
      expect(o).toMatchObject({ status: 'killed', passed: null });
      expect(existsSync(join(runDir, 'trials', o.caseId, 'skill', `${o.n}.jsonl`))).toBe(true);
    }
    await afterFault(row, runDir);
  }, 60_000);

  it('Ctrl-C twice: a forced exit within seconds that still kills the agents, removes the workspaces and marks run.json interrupted', async () => {
    const row = new Row('sigint2');
    // Slow to stop (it outlasts SIGTERM until the kill grace ends), which is when a user presses Ctrl-C again.
    const agent = agentScript('stubborn-agent.sh', `trap 'sleep 30' TERM\n'${PINNED}' "$@"`);
    const h = row.start(resumable('--agent-binary', agent));
    await h.waitFor(() => h.finished().length >= 2 && processesIn(row.workdir, 'cwd').length > 0, 'a stored trial and a stalled agent');
    const finishedBefore = h.finished();
    h.child.kill('SIGINT');
    await sleep(300);
    h.child.kill('SIGINT');
    const forcedAt = Date.now();
    const r = await h.child;
    expect(Date.now() - forcedAt).toBeLessThan(3000);
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/forced stop/);
    const runDir = row.runDir()!;
    const forced = readJson<RunManifest>(join(runDir, 'run.json'));
    expect(forced.status).toBe('interrupted');
    // The trials stored before the forced stop are counted, not left at 0.
    expect(forced.trials.finished).toBeGreaterThanOrEqual(finishedBefore.length);
    expect(forced.trials.finished).toBeGreaterThan(0);
    // Removed before the exit; only a workspace still being made when it came is the watchdog's.
    await until(() => readdirSync(row.workdir).length === 0 && processesIn(row.workdir).length === 0, 3000);
    expect(left(row.workdir)).toEqual({ processes: [], workspaces: [] });
    expectStored(runDir, finishedBefore);
    await afterFault(row, runDir);
  }, 60_000);

  it('Ctrl-C twice after the last trial (grading, writing results): run.json is final, results.json is written or its command named', async () => {
    const row = new Row('sigint-last');
    const h = row.start(['-c', 'no-retries.config.yaml', ...twoCases(2)]);
    await h.waitFor(() => h.finished().length === 4, 'every trial stored');
    h.child.kill('SIGINT');
    await sleep(50);
    h.child.kill('SIGINT');
    const r = await h.child;
    const runDir = row.runDir()!;
    expect(readJson<RunManifest>(join(runDir, 'run.json')).status).toMatch(/^(completed|interrupted)$/);
    // Written, or named as left to write; only once both files are final may a signal end the process its own way.
    if (!existsSync(join(runDir, 'results.json'))) expect(r.stderr).toMatch(/`skillprobe grade .*` writes it from the stored trials/);
    if (r.signal) expect(existsSync(join(runDir, 'results.json')), r.stderr).toBe(true);
    else expect([0, 1, 3, 130]).toContain(r.exitCode);
    expect(r.stderr).not.toMatch(/internal error/);
    // Every trial ran: nothing for the resume check below.
    await afterFault(row, runDir, false);
  }, 60_000);

  /** Stops the run's writes into one arm folder once its first trial is stored; exit 70 within seconds, naming it. */
  async function expectStopsOnWriteFault(
    row: Row,
    fault: (armDir: string, runDir: string) => unknown,
    undo: (armDir: string, runDir: string) => unknown,
    message: RegExp,
  ): Promise<void> {
    const h = row.start(resumable());
    await h.waitFor(() => h.finished().includes('neg-weather/skill/1') && row.stalling(), 'the first stored trial of neg-weather');
    const runDir = row.runDir()!;
    const armDir = join(runDir, 'trials', 'neg-weather', 'skill');
    const finishedBefore = h.finished();
    await fault(armDir, runDir);
    const faultAt = Date.now();
    try {
      const r = await h.child;
      // Not the trials' deadline: the stalled trials running at the fault were killed when the first write failed (their
      // metas: the deadline never fired), which no load on the machine changes; the clock only bounds it.
      const slow = join(runDir, 'trials', 'slow', 'skill');
      const runningAtFault = readdirSync(slow)
        .filter((f) => f.endsWith('.meta.json'))
        .map((f) => readJson<TrialMeta>(join(slow, f)))
        .filter((m) => Date.parse(m.startedAt) + m.wallMs > faultAt);
      expect(runningAtFault.length).toBeGreaterThanOrEqual(1);
      for (const m of runningAtFault) expect(m).toMatchObject({ timedOut: false, interrupted: true });
      expect(Date.now() - faultAt).toBeLessThan(15_000);
      expect(r.exitCode, r.stderr).toBe(70);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(readJson<RunManifest>(join(runDir, 'run.json')).status).toBe('failed');
      expectStored(runDir, finishedBefore);
    } finally {
      await undo(armDir, runDir);
    }
    await afterFault(row, runDir);
  }

  /**
   * Makes folders read-only, or back: chmod, or as root (whom chmod does not stop) the immutable attribute, where the
   * file system and capabilities allow it; undefined when neither can stop a write here.
   */
  async function readOnlyFolders(): Promise<((dirs: string[], on: boolean) => Promise<unknown>) | undefined> {
    const asRoot = process.getuid?.() === 0;
    if (asRoot && (await execa('chattr', ['+i', root], { reject: false })).exitCode !== 0) return undefined;
    if (asRoot) await execa('chattr', ['-i', root]);
    return (dirs, on) => Promise.all(dirs.map((d) => (asRoot ? execa('chattr', [on ? '+i' : '-i', d]) : chmodSync(d, on ? 0o555 : 0o755))));
  }
  const NO_READ_ONLY = 'running as root, where chmod does not stop writes, and `chattr +i` is unavailable here';
  const READ_ONLY_ERROR = /skillprobe: cannot write .*neg-weather\/skill\/\d+\.jsonl.*(EACCES|EPERM)/;

  it('the transcripts folder turning read-only mid-run: exit 70 within seconds, stored trials kept', async (ctx) => {
    const lock = await readOnlyFolders();
    if (!lock) return ctx.skip(NO_READ_ONLY);
    await expectStopsOnWriteFault(
      new Row('read-only'),
      (arm) => lock([arm], true),
      (arm) => lock([arm], false),
      READ_ONLY_ERROR,
    );
  }, 60_000);

  it('the whole run folder turning read-only mid-run: run.json still says failed (rewritten in place)', async (ctx) => {
    const lock = await readOnlyFolders();
    if (!lock) return ctx.skip(NO_READ_ONLY);
    // No new entry can be made in the run folder (an atomic write's temp file), nor in the arm folder.
    await expectStopsOnWriteFault(
      new Row('read-only-run'),
      (arm, run) => lock([arm, run], true),
      (arm, run) => lock([arm, run], false),
      READ_ONLY_ERROR,
    );
  }, 60_000);

  it('the disk filling up mid-run: exit 70 within seconds naming ENOSPC, stored trials kept', async () => {
    const row = new Row('disk-full');
    // The trial still to come streams into /dev/full, which fails every write with ENOSPC, as a full disk does.
    const fill = (dir: string) => {
      const part = join(dir, '2.jsonl.part');
      if (!existsSync(part) && !existsSync(join(dir, '2.jsonl'))) symlinkSync('/dev/full', part);
    };
    await expectStopsOnWriteFault(row, fill, () => {}, /skillprobe: cannot write .*neg-weather\/skill\/\d+\.jsonl\.part: ENOSPC/);
  }, 60_000);

  it('a failing simulator (HTTP errors, a stalled stream): every trial recorded, the run reports what ran', async () => {
    const row = new Row('sim-failing');
    const h = row.start(['-c', 'no-retries.config.yaml', '--sim', 'sim/failing.yaml', '--trials', '1', '--timeout', '4']);
    const r = await h.child;
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/run \S+ completed: 3 trials/);
    const runDir = row.runDir()!;
    expectStored(runDir, h.finished());
    expect(h.finished()).toHaveLength(3);
    await afterFault(row, runDir);
  }, 60_000);

  it('the agent binary vanishing mid-run: later trials are agent errors and the run reports what ran', async () => {
    const row = new Row('binary-gone');
    const agent = agentScript('vanishing-agent.sh', `exec '${PINNED}' "$@"`);
    const h = row.start([...twoCases(3), '--agent-binary', agent]);
    await h.waitFor(() => h.finished().length >= 1, 'the first stored trial');
    unlinkSync(agent);
    const r = await h.child;
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/run \S+ completed: 6 trials/);
    const runDir = row.runDir()!;
    expectStored(runDir, h.finished());
    const outcomes = readJson<Results>(join(runDir, 'results.json')).outcomes;
    const gone = outcomes.filter((o) => o.status === 'agent_error');
    // How many were already running when the file went depends on timing; the ones after it cannot start.
    expect(gone.length).toBeGreaterThanOrEqual(1);
    for (const o of gone) expect(o.passed).toBeNull();
    // A trial starting after the file went cannot spawn; one whose shell was reading the script then fails inside it.
    const spawnErrors = gone
      .map((o) => readJson<TrialMeta>(join(runDir, 'trials', o.caseId, o.arm, `${o.n}.meta.json`)).spawnError)
      .filter((e) => e !== undefined);
    expect(spawnErrors.length).toBeGreaterThanOrEqual(1);
    for (const e of spawnErrors) expect(e).toMatch(/ENOENT/);
    await afterFault(row, runDir);
  }, 60_000);

  it('a trial printing more than --max-output-mb: stored up to the cap, recorded as output too large, the run goes on', async () => {
    const row = new Row('oversized');
    const agent = agentScript('noisy-agent.sh', `case "$*" in *weather*) exec yes '{"type":"noise"}' ;; esac\nexec '${PINNED}' "$@"`);
    const h = row.start([...twoCases(2), '--max-output-mb', '1', '--agent-binary', agent]);
    const r = await h.child;
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/run \S+ completed: 4 trials/);
    const runDir = row.runDir()!;
    const outcomes = readJson<Results>(join(runDir, 'results.json')).outcomes;
    for (const o of outcomes) {
      const base = join(runDir, 'trials', o.caseId, o.arm, String(o.n));
      if (o.caseId === 'neg-weather') {
        expect(o.status).toBe('output_too_large');
        expect(statSync(`${base}.jsonl`).size).toBe(1024 * 1024);
        expect(readJson<TrialMeta>(`${base}.meta.json`).outputTruncated).toBe(true);
      } else expect(o.status).toBe('settled');
    }
    await afterFault(row, runDir);
  }, 60_000);
});

describe('a transcript longer than any JavaScript string', () => {
  // Writing, storing (fsync) and reading 600 MB twice: 150 s of wall time at a load of 20 on two cores.
  const HUGE_MS = 240_000;
  it(
    'a trial printing 600 MB (past the ~512 MB a string can hold) under --max-output-mb 700: stored whole, graded, the run goes on',
    async () => {
      const row = new Row('huge');
      // About 1 MB a line, 600 lines (one line printed once, then copied by one cat: a shell loop printing it costs 5 s of
      // CPU, a cat per copy 1 s), then the real CLI's run: a transcript the size of the one that crashed the run.
      const agent = agentScript(
        'huge-agent.sh',
        `case "$*" in *weather*) line="$(mktemp)"; printf '{"type":"noise","pad":"%s"}\\n' "$(head -c 1048000 /dev/zero | tr '\\0' x)" > "$line"; i=0; copies=; while [ $i -lt 600 ]; do copies="$copies $line"; i=$((i+1)); done; cat $copies; rm -f "$line" ;; esac\nexec '${PINNED}' "$@"`,
      );
      const h = row.start([...twoCases(1), '--max-output-mb', '700', '--agent-binary', agent], HUGE_MS);
      const r = await h.child;
      expect(r.stderr).not.toMatch(/Invalid string length|internal error/);
      expect(r.stdout).toMatch(/run \S+ completed: 2 trials/);
      const runDir = row.runDir()!;
      const outcomes = readJson<Results>(join(runDir, 'results.json')).outcomes;
      const huge = outcomes.find((o) => o.caseId === 'neg-weather')!;
      expect(statSync(join(runDir, 'trials', 'neg-weather', 'skill', '1.jsonl')).size).toBeGreaterThan(600 * 1048000);
      // The noise before the CLI's own stream is one counted event; the trial is graded on what the CLI printed.
      expect(huge).toMatchObject({ status: 'ok', passed: true });
      expect(outcomes.find((o) => o.caseId === 'pos-alpha')).toMatchObject({ status: 'settled', passed: true });
      // In this process, as every regrade here: reading the file is the claim.
      const regraded = await runInProcess(['grade', runDir], { cwd: project });
      expect(regraded.stderr).not.toMatch(/Invalid string length|internal error/);
      expect(regraded.exitCode).toBe(r.exitCode);
      await until(() => processesIn(row.workdir).length === 0, 5000);
      expect(left(row.workdir)).toEqual({ processes: [], workspaces: [] });
      rmSync(runDir, { recursive: true }); // 600 MB
    },
    3 * HUGE_MS,
  );
});

describe('--resume after each fault reaches the verdicts of the uninterrupted run', () => {
  const verdictsOf = (stdout: string) => (JSON.parse(stdout) as Results).verdicts.map((v) => [v.caseId, v.verdict, v.scored, v.passes]);
  // Concurrency may differ on a resume. Six starts every trial of a row at once (2 a case, 3 cases): its quick
  // trials take a few seconds of CPU, then it only waits out its stalled trials' deadline. In this process: what a
  // resume reaches is the claim, not the process (the faults above were to real processes).
  const run = (args: string[], transcripts: string, workdir: string) =>
    runInProcess(['run', '--arms', 'skill', '--concurrency', '6', '--transcripts', transcripts, '--workdir', workdir, '--json', ...args], {
      cwd: project,
    });

  /**
   * Starts the runs one every `gapMs`: each run's quick trials have the cores to themselves (a quick trial must never
   * meet its deadline), while the runs before it only wait on stalled streams. Their results, in the order given.
   */
  async function staggered<T>(starts: (() => Promise<T>)[], gapMs: number): Promise<T[]> {
    const results: Promise<T>[] = [];
    for (const [i, start] of starts.entries()) {
      if (i > 0) await sleep(gapMs);
      results.push(start());
    }
    return Promise.all(results);
  }

  it('every run folder a fault interrupted, resumed with the flags it started with', async () => {
    const workdir = mkdtempSync(join(root, 'work-resume-'));
    // Rows killed before run.json existed have no run to resume (and nothing was stored). Completed: nothing to do.
    // Of the kill -9 points, the earliest and the latest: each waits out the stalled case's deadline, and more say
    // nothing new.
    const interrupted = [...runFolders]
      .filter(([, { dir }]) => existsSync(join(dir, 'run.json')) && readJson<RunManifest>(join(dir, 'run.json')).status !== 'completed')
      .filter(([row]) => !['kill9-1', 'kill9-2'].includes(row))
      .map(([row, k]) => ({ row, ...k, cases: readJson<RunManifest>(join(k.dir, 'run.json')).cases.defs.map((c) => c.id) }));
    // The double kill, SIGHUP, double Ctrl-C, read-only (arm and run folder) and disk full, and the kill -9 points (each
    // lands after run.json was written, before the stalled case's deadline ends the run).
    const killed = interrupted.filter((k) => /^kill9-\d$/.test(k.row));
    expect(interrupted.length - killed.length).toBe(6);
    expect(killed.map((k) => k.row).sort()).toEqual(['kill9-0', 'kill9-3']);
    // One uninterrupted run of every case, with the flags every row shares: a row's verdicts are its cases' verdicts there.
    const runs = [
      () => run(resumable(), join(project, 'runs-baseline'), workdir),
      ...interrupted.map(
        ({ args, dir }) =>
          () =>
            run([...args, '--resume', dir], join(project, 'runs-unused'), workdir),
      ),
    ];
    // Mostly waiting on stalled streams: a run's four quick trials are over before the next but one starts.
    const [whole, ...resumes] = await staggered(runs, 2000);
    expect(whole!.stderr).not.toMatch(/internal error/);
    const baseline = verdictsOf(whole!.stdout);
    interrupted.forEach(({ row, dir, cases }, i) => {
      const r = resumes[i]!;
      expect(r.stderr, `${row}: ${dir}`).not.toMatch(/internal error|input error/);
      const expected = baseline.filter(([caseId]) => cases.includes(caseId as string));
      expect(expected.map(([caseId]) => caseId).sort(), `${row}: every case it ran has a baseline`).toEqual([...cases].sort());
      expect(verdictsOf(r.stdout), `${row}: ${dir}`).toEqual(expected);
      expect(readJson<RunManifest>(join(dir, 'run.json')).status).toBe('completed');
    });
    expect(existsSync(join(project, 'runs-unused'))).toBe(false);
    await until(() => processesIn(workdir).length === 0, 5000);
    expect(left(workdir)).toEqual({ processes: [], workspaces: [] });
  }, 600_000);
});
