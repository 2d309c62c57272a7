import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterFor } from '../src/agents/registry.js';
import type { Results, TrialMeta } from '../src/run/schema.js';
import { baseProject, CLI, cleanup, makeProject, runInProcess, testEnv, until } from './helpers.js';

/**
 * Trials stopped once their outcome is settled, through each real CLI: the firing trial and the false trigger stop at
 * the skill's load status (Claude Code by its own hook, writing its result line; Codex and Gemini killed by the harness),
 * the plain answer runs to its end; nothing is left running or on disk; `grade` of the folder gives the same outcomes.
 * Then Ctrl-C and kill -9 while trials settle (Codex, the cheapest CLI to start): nothing lost, nothing left, and
 * `--resume` reaches the uninterrupted run's verdicts. skillprobe runs in this process, but where a signal stops it.
 */
const RULES = [
  'rules:',
  '  - { case: pos-alpha, do: [{ skill: alpha, args: "create" }] }',
  '  - { case: neg-weather, do: [{ answer: "sunny" }] }',
  '  - { case: neg-trap, do: [{ skill: alpha, args: "list" }] }',
  '',
];
const project = makeProject({
  ...baseProject(),
  'cases/trap.yaml': '- id: neg-trap\n  prompt: "tell me about the alphabet"\n  expect: { skill: none }\n',
  'sim/settle.yaml': ['seed: 1', ...RULES].join('\n'),
  // A request takes a while: a fault lands while trials are in flight, around their settling.
  'sim/slow.yaml': ['seed: 1', 'provider: { latency: { medianMs: 700 } }', ...RULES].join('\n'),
});
afterAll(() => {
  // Whatever a failed row left running in its workspaces (agents this file started, by their ids).
  for (const pid of processesIn(join(project, 'work'))) process.kill(pid, 'SIGKILL');
  cleanup(project);
});

const results = (dir: string) => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
const onlyRun = (transcripts: string) => join(transcripts, readdirSync(transcripts)[0]!);
const outcomes = (dir: string) =>
  results(dir)
    .outcomes.map((o) => ({ trial: `${o.caseId}/${o.n}`, status: o.status, passed: o.passed, fired: o.fired }))
    .sort((a, b) => a.trial.localeCompare(b.trial));

/** Live processes working in `dir` (the agents a run started there). */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readlinkSync(`/proc/${e}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A process as a failed assertion names it: its id, command line and parent. */
const described = (pid: number): string => {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1];
    return `${pid} (parent ${ppid}): ${cmd}`;
  } catch {
    return `${pid} (gone)`;
  }
};

const runArgs = (agent: string, sim: string, name: string) => [
  'run',
  '--sim',
  sim,
  '--agent',
  agent,
  '--trials',
  '2',
  '--arms',
  'skill',
  '--draw-seed',
  '1',
  '--concurrency',
  '2',
  '--transcripts',
  join(project, 'runs', name),
  '--workdir',
  workdir(name),
];
const workdir = (name: string) => {
  const dir = join(project, 'work', name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe.each(['claude-code', 'codex', 'gemini'])('%s: a trial stops once its outcome is settled', (agent) => {
  it('the firing and the false trigger stop at the load status, the answer runs on; nothing left; grade agrees', async () => {
    const r = await runInProcess(runArgs(agent, 'sim/settle.yaml', agent), { cwd: project });
    expect(r.exitCode, r.stderr).toBe(1);
    const dir = onlyRun(join(project, 'runs', agent));
    const got = outcomes(dir);
    for (const n of [1, 2]) {
      expect(got).toContainEqual({ trial: `pos-alpha/${n}`, status: 'settled', passed: true, fired: 'expected' });
      expect(got).toContainEqual({ trial: `neg-trap/${n}`, status: 'settled', passed: false, fired: 'sibling' });
      expect(got).toContainEqual({ trial: `neg-weather/${n}`, status: 'ok', passed: true, fired: 'none' });
    }
    expect(r.stdout).toMatch(/SETTLED · 4 of 6 trials stopped once their outcome was settled/);
    // The stored transcript ends at the load status: the model was never asked for the plan.
    const adapter = adapterFor(agent, 'test');
    const base = join(dir, 'trials', 'pos-alpha', 'skill', '1');
    const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as TrialMeta;
    const t = adapter.parse(readFileSync(`${base}.jsonl`, 'utf8'), meta);
    const loaded = t.events.findIndex((e) => e.kind === 'skill_load' || e.kind === 'tool_result');
    expect(loaded).toBeGreaterThan(0);
    expect(t.events.slice(loaded).filter((e) => (e.kind === 'text' || e.kind === 'tool_call') && e.source === 'assistant')).toEqual([]);
    expect(meta.settled).toBe(true);
    // Claude Code stops itself and says what it used; the others are killed at once.
    if (agent === 'claude-code') expect(t.events.at(-1)).toMatchObject({ kind: 'result', usage: expect.any(Object) });
    else expect(meta.signal).toBe('SIGKILL');
    expect(processesIn(workdir(agent)).map(described)).toEqual([]);
    expect(readdirSync(workdir(agent))).toEqual([]);
    const graded = await runInProcess(['grade', dir], { cwd: project });
    expect(graded.exitCode, graded.stderr).toBe(1);
    expect(outcomes(dir)).toEqual(got);
  }, 300_000);
});

describe('faults while trials settle (Codex)', () => {
  const start = (name: string, extra: string[] = []) =>
    execa('node', [CLI, ...runArgs('codex', 'sim/slow.yaml', name), ...extra], {
      cwd: project,
      env: testEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 240_000,
    });
  /** Waits until the first trial of run `name` is stored, a second one in flight. */
  async function firstStored(name: string): Promise<string> {
    for (let i = 0; i < 600; i++) {
      const t = join(project, 'runs', name);
      const dir = existsSync(t) && readdirSync(t)[0] ? onlyRun(t) : undefined;
      const trials = dir && join(dir, 'trials');
      const stored =
        trials && existsSync(trials) ? readdirSync(trials, { recursive: true }).filter((f) => String(f).endsWith('.meta.json')) : [];
      if (dir && stored.length >= 1) return dir;
      await sleep(100);
    }
    throw new Error(`no trial of ${name} was stored`);
  }

  // The uninterrupted run: Codex's above, on the profile without the latency (which says when a fault lands, not
  // what a trial does), its every outcome checked there.
  const reference = () => outcomes(onlyRun(join(project, 'runs', 'codex')));

  it.each([
    { fault: 'Ctrl-C', signal: 'SIGINT' as const, exit: 130 },
    { fault: 'kill -9', signal: 'SIGKILL' as const, exit: undefined },
  ])(
    '$fault around the settling moment: nothing left, and --resume reaches the same outcomes',
    async ({ fault, signal, exit }) => {
      const name = fault === 'Ctrl-C' ? 'ctrl-c' : 'kill9';
      const child = start(name);
      const dir = await firstStored(name);
      child.kill(signal);
      const cut = await child;
      if (exit !== undefined) expect(cut.exitCode, cut.stderr).toBe(exit);
      else expect(cut.signal).toBe('SIGKILL');
      // A resume starts by taking down what the killed run left (its watchdog does it at once after Ctrl-C).
      const resumed = await runInProcess([...runArgs('codex', 'sim/slow.yaml', name), '--resume', dir], { cwd: project });
      expect(resumed.exitCode, resumed.stderr).toBe(1);
      expect(outcomes(dir)).toEqual(reference());
      // A CLI the run killed may take a moment to be gone from /proc on a loaded machine (a fresh clone at load 10-15
      // saw two just after the resume returned, another one still there 5 s on at load 8); one still there after 15 s
      // is an orphan, named with its command line.
      await until(() => processesIn(workdir(name)).length === 0, 15_000).catch(() => undefined);
      expect(processesIn(workdir(name)).map(described)).toEqual([]);
      expect(readdirSync(workdir(name))).toEqual([]);
    },
    300_000,
  );
});
