import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/cli/command.js';
import { exitCodeFor, type Ending } from '../src/cli/exit.js';
import { optionFor, toggle, valued } from '../src/cli/flags.js';
import { text } from '../src/cli/parsers.js';
import { COMMANDS } from '../src/cli/registry.js';
import { RUN_FLAGS } from '../src/cli/run-flags.js';
import { TRIAL_FLAGS } from '../src/cli/trial-flags.js';
import { EXIT } from '../src/run/exit-codes.js';
import { Captured, projectsRemovedAfterAll, runInProcess } from './helpers.js';

function ioCapturing(): CliIo & { stderr: Captured } {
  return { stdout: new Captured(), stderr: new Captured(), env: {}, cwd: '/' };
}

describe('exitCodeFor: the one rule every command exits by', () => {
  const said: string[] = [];
  const gateOff = { say: (t: string) => said.push(t), whose: "verdicts'" };
  const rows: [name: string, ending: Ending, code: number, stderr: RegExp | undefined][] = [
    ['a pass', { verdicts: [EXIT.pass] }, EXIT.pass, undefined],
    ['the worst verdict of several agents (FAIL over ERROR)', { verdicts: [EXIT.error, EXIT.fail, EXIT.pass] }, EXIT.fail, undefined],
    ['ERROR over INCONCLUSIVE', { verdicts: [EXIT.inconclusive, EXIT.error] }, EXIT.error, undefined],
    ['an interrupted run, whatever its verdicts', { verdicts: [EXIT.pass], statuses: ['interrupted'] }, EXIT.interrupted, undefined],
    ['a cost-capped run', { verdicts: [EXIT.fail], statuses: ['completed', 'cost_capped'] }, EXIT.costCapped, undefined],
    ['a failed run', { verdicts: [EXIT.pass], statuses: ['failed'] }, EXIT.internal, undefined],
    [
      'a run stopped on its first trials’ isolation errors is an ERROR',
      { verdicts: [EXIT.pass], statuses: ['isolation_stopped'] },
      EXIT.error,
      undefined,
    ],
    ['a completed run keeps its verdicts', { verdicts: [EXIT.fail], statuses: ['completed'] }, EXIT.fail, undefined],
    ['gate off: a FAIL exits 0', { verdicts: [EXIT.fail], gateOff }, EXIT.pass, undefined],
    ['gate off does not hide a stopped run', { verdicts: [EXIT.fail], statuses: ['interrupted'], gateOff }, EXIT.interrupted, undefined],
    [
      'a failed reporter turns a pass into a harness fault',
      { verdicts: [EXIT.pass], failedReporters: ['junit'] },
      EXIT.internal,
      /junit failed; the verdicts' exit code would be 0/,
    ],
    ['a failed reporter leaves a FAIL a FAIL', { verdicts: [EXIT.fail], failedReporters: ['junit'] }, EXIT.fail, undefined],
    [
      'gate off with a failed reporter is a harness fault',
      { verdicts: [EXIT.fail], failedReporters: ['html'], gateOff },
      EXIT.internal,
      /html failed/,
    ],
  ];
  it.each(rows)('%s', (_name, ending, code, stderr) => {
    const io = ioCapturing();
    expect(exitCodeFor(ending, io)).toBe(code);
    if (stderr) expect(io.stderr.text).toMatch(stderr);
    else expect(io.stderr.text).toBe('');
  });

  it('gate off says what the code would have been, once', () => {
    said.length = 0;
    exitCodeFor({ verdicts: [EXIT.inconclusive], gateOff }, ioCapturing());
    expect(said).toEqual(["gate off (--no-gate): the verdicts' exit code would be 3\n"]);
  });
});

describe('flags as data', () => {
  it('a flag listed under the name commander stores it as becomes its option', () => {
    expect(optionFor('maxTurns', valued('--max-turns <n>', 'turns', text('--max-turns'))).attributeName()).toBe('maxTurns');
    expect(optionFor('gate', toggle('--no-gate', 'off')).negate).toBe(true);
  });

  it('a flag listed under another name is refused when the program is built', () => {
    expect(() => optionFor('turns', valued('--max-turns <n>', 'turns', text('--max-turns')))).toThrow(
      /listed as turns, but commander stores it as maxTurns/,
    );
  });

  it('the registry lists every command once', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([
      'run',
      'grade',
      'rejudge',
      'report',
      'compare',
      'merge',
      'history',
      'view',
      'plan',
      'tune',
      'mutate',
      'init',
      'import',
      'lint',
      'sim',
      'doctor',
    ]);
  });
});

describe('main in this process: exit codes without spawning anything', () => {
  const project = projectsRemovedAfterAll();
  it.each([
    [['--version'], EXIT.pass, /^0\.1\.0$/, ''],
    [['run', '--trials', 'three'], EXIT.usage, /^$/, '--trials must be a whole number'],
    [['run', '--resume', 'x', '--baseline', 'y'], EXIT.usage, /^$/, '--resume: a resumed canary keeps the canary it started with'],
    // A top-up has a maximum: nothing is read, recorded or spawned past it.
    [['run', '--resume', 'x', '--add-trials', '1000000000'], EXIT.usage, /^$/, '--add-trials must be a whole number from 1 to 1000'],
    [['run', '--for-baseline', '--trials', '5'], EXIT.usage, /^$/, '--trials: --for-baseline sets the trials per case'],
    [['run', '--stop-at-first-regression'], EXIT.usage, /^$/, '--stop-at-first-regression: only means something with --baseline'],
    // --keep-going is the default now; older canary scripts that pass it still parse, and it still needs a canary.
    [['run', '--keep-going'], EXIT.usage, /^$/, '--keep-going: only means something with --baseline'],
    [
      ['run', '--baseline', 'b', '--keep-going', '--stop-at-first-regression'],
      EXIT.usage,
      /^$/,
      '--keep-going: runs every case to its end, which --stop-at-first-regression cuts short',
    ],
    [['plan', '--from', '0.9'], EXIT.usage, /^$/, '--from: only means something with --compare'],
    [['compare', 'only-one'], EXIT.usage, /^$/, "missing required argument 'candidate'"],
    [['report', 'no-such-run'], EXIT.usage, /^$/, 'no-such-run'],
    [['rnu'], EXIT.usage, /^$/, "unknown command 'rnu'"],
    [['import'], EXIT.usage, /^$/, "missing required argument 'file'"],
  ])('%j exits %i', async (args, code, stdout, stderr) => {
    const r = await runInProcess(args, { cwd: project() });
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.stdout).toMatch(stdout);
    expect(r.stderr).toContain(stderr);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('plan prints the suite and exits 0', async () => {
    const r = await runInProcess(['plan'], { cwd: project() });
    expect(r.exitCode).toBe(EXIT.pass);
    expect(r.stdout).toMatch(/pos-alpha/);
  });
});

describe('--help', () => {
  it('opens with the commands of a first hour', async () => {
    const r = await runInProcess(['--help'], { cwd: '/' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^getting started: `skillprobe init` writes a starter suite for your skills, `skillprobe lint`/,
    );
    expect(r.stdout).toMatch(/\nUsage: skillprobe/);
  });
});

describe('the trial flags, defined once and shared by run, tune and rejudge', () => {
  it.each(['run', 'tune', 'rejudge'])('%s --help lists every one of them', async (command) => {
    const r = await runInProcess([command, '--help'], { cwd: '/' });
    expect(r.exitCode).toBe(0);
    // `run` widens one of them (`--context` takes lab,field there): the one it lists is its own, under the same key.
    const own: Record<string, { spec: string }> = command === 'run' ? RUN_FLAGS : {};
    for (const [key, flag] of Object.entries(TRIAL_FLAGS)) expect(r.stdout).toContain((own[key] ?? flag).spec);
  });

  it.each([
    [['rejudge', 'run-dir', '--max-cost', '0'], '--max-cost must be a positive number, got "0"'],
    [['tune', 'alpha', '-j', '0'], '--concurrency must be a whole number ≥ 1 or auto, got "0"'],
    [['run', '--timeout', 'soon'], '--timeout must be a positive number, got "soon"'],
    [['rejudge', 'run-dir', '--draw-seed', '-1'], '--draw-seed must be a whole number ≥ 0, got "-1"'],
    [['tune', 'alpha', '--workdir', ''], '--workdir is empty'],
    [['rejudge', 'run-dir', '--sim', ' '], '--sim is empty'],
  ])('%j keeps its message on every command', async (args, message) => {
    const r = await runInProcess(args, { cwd: '/' });
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toContain(message);
  });
});
