import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuns, Results, RunManifest } from '../src/run/schema.js';
import { execa } from 'execa';
import { baseProject, CLI, cleanup, makeProject, runCli, runInProcess, testEnv } from './helpers.js';
import { leftBehind } from './e2e-scenarios.js';

/** One suite through all three real CLIs against the simulator, in one run. */
const PROFILE = `
name: three-agents
seed: 3
rules:
  - { case: pos-alpha, do: [{ skill: alpha, args: "create --name demo" }] }
  - { case: neg-weather, do: [{ answer: "It is sunny." }] }
`;
const AGENTS = ['claude-code', 'codex', 'gemini'];
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

describe('one run, three agents', () => {
  let project: string;
  let workdir: string;
  let dir: string;
  let r: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    project = makeProject({
      ...baseProject(),
      'sim.yaml': PROFILE,
      'skillprobe.config.yaml': 'models:\n  claude-code: claude-sonnet-4-5\n',
    });
    workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    r = await runCli(
      [
        'run',
        '--sim',
        'sim.yaml',
        '--agent',
        AGENTS.join(','),
        // Three trials a case, the fewest a fixed design passes (at a threshold of 0.3: 3 of 3 has p 0.027).
        '--trials',
        '3',
        '--threshold',
        '0.3',
        '--transcripts',
        'runs',
        '--workdir',
        workdir,
      ],
      { cwd: project, timeoutMs: 300_000 },
    );
    dir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
  }, 300_000);

  afterAll(() => cleanup(project, workdir));

  it('runs the suite once per agent, each in a run folder of its own that agents.json names', () => {
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    const record = readJson<AgentRuns>(join(dir, 'agents.json'));
    expect(record.agents.map((a) => [a.id, a.status])).toEqual(AGENTS.map((id) => [id, 'completed']));
    expect(record.endedAt).toBeDefined();
    for (const a of record.agents) {
      const manifest = readJson<RunManifest>(join(dir, a.dir, 'run.json'));
      expect(manifest.agent.id).toBe(a.id);
      expect(manifest.agent.binary).toBe(a.binary);
      expect(manifest.agent.cliVersion).toMatch(/^\d+\.\d+\.\d+/);
      expect(a.cliVersion).toBe(manifest.agent.cliVersion);
      expect(manifest.trials).toMatchObject({ planned: 6, finished: 6 }); // 2 cases × 3 trials, skill arm only (nothing to score without the skill)
      expect(readJson<Results>(join(dir, a.dir, 'results.json')).exitCode).toBe(a.exitCode);
    }
  });

  it('asks each agent for its own model unless the config names one for it', () => {
    const models = Object.fromEntries(readJson<AgentRuns>(join(dir, 'agents.json')).agents.map((a) => [a.id, a.model]));
    expect(models).toEqual({ 'claude-code': 'claude-sonnet-4-5', codex: 'gpt-6.1-sol', gemini: 'gemini-2.5-pro' });
  });

  it('reports every agent, then the agents × cases matrix, and gates on the worst', () => {
    for (const id of AGENTS) expect(r.stdout).toContain(`═══ agent ${id}`);
    expect(r.stdout).toMatch(/AGENTS × CASES · 3 agents/);
    expect(r.stdout).toMatch(/pos-alpha\s+alpha\s+PASS 3\/3 · fires 100%\s+PASS 3\/3 · fires 100%\s+PASS 3\/3 · fires 100%/);
    // The matrix fits 100 columns: a cell may wrap between its words, onto its row's next line.
    expect(r.stdout).toMatch(/neg-weather\s+none\s+PASS 3\/3 · false triggers[^\n]*\n\s+0%/);
    const worst = Math.max(...readJson<AgentRuns>(join(dir, 'agents.json')).agents.map((a) => a.exitCode ?? 99));
    expect(r.exitCode).toBe(worst);
  });

  it('compare takes two agents of the run: the header says the agents differ, and nothing regressed here', async () => {
    const record = readJson<AgentRuns>(join(dir, 'agents.json'));
    const [claude, codex] = record.agents.map((a) => join(dir, a.dir));
    const c = await runInProcess(['compare', claude!, codex!, '--reporter', 'json'], { cwd: project });
    // Three trials a case rule out no change of the margin: nothing regressed, and no green gate (exit 3, UNDECIDED).
    expect(c.exitCode).toBe(3);
    const comparison = JSON.parse(c.stdout) as { crossAgent: boolean; cases: { change: string }[] };
    expect(comparison.crossAgent).toBe(true);
    expect(comparison.cases.map((x) => x.change)).not.toContain('REGRESSED');
  });

  it('report on the run prints every agent and the matrix again, and exits as the run did', async () => {
    const again = await runInProcess(['report', dir], { cwd: project });
    expect(again.exitCode).toBe(r.exitCode);
    expect(again.stdout).toMatch(/AGENTS × CASES · 3 agents/);
    for (const id of AGENTS) expect(again.stdout).toContain(`═══ agent ${id}`);
  });

  it('history lists each agent’s run of it', async () => {
    const h = await runInProcess(['history', '--transcripts', 'runs'], { cwd: project });
    expect(h.exitCode).toBe(0);
    // Each run's id, and under it the agent that ran it.
    for (const id of AGENTS) expect(h.stdout).toMatch(new RegExp(`${basename(dir)}/${basename(dir)}-${id}\\s[^\\n]*\\n {2}${id} `));
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});

describe('a run of several agents killed mid-way is reported and resumed as one run', () => {
  let project: string;
  let workdir: string;
  afterAll(() => cleanup(project, workdir));

  it('kill -9 during the first agent: report shows what exists and names what is missing; --resume finishes every agent', async () => {
    project = makeProject({ ...baseProject(), 'sim.yaml': PROFILE });
    workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    const args = [
      'run',
      '--sim',
      'sim.yaml',
      '--agent',
      'claude-code,codex',
      // Three trials a case: the kill lands after the first agent's second, with its trials and the second agent's to go.
      '--trials',
      '3',
      '--threshold',
      '0.5',
      '--concurrency',
      '1',
      '--transcripts',
      'runs',
      '--workdir',
      workdir,
    ];
    const child = execa('node', [CLI, ...args], { cwd: project, env: testEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
    const runs = join(project, 'runs');
    const outer = () => join(runs, existsSync(runs) ? (readdirSync(runs)[0] ?? 'none') : 'none');
    const firstAgentTrials = () => {
      const trials = join(outer(), `${basename(outer())}-claude-code`, 'trials', 'pos-alpha', 'skill');
      return existsSync(trials) ? readdirSync(trials).filter((f) => f.endsWith('.meta.json')).length : 0;
    };
    const deadline = Date.now() + 120_000;
    while (firstAgentTrials() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await child;
    const dir = outer();
    const record = readJson<AgentRuns>(join(dir, 'agents.json'));
    expect(record.planned).toEqual(['claude-code', 'codex']);
    expect(record.agents.map((a) => [a.id, a.status])).toEqual([['claude-code', 'running']]);

    const partial = await runInProcess(['report', dir], { cwd: project });
    expect(partial.stderr).not.toMatch(/internal error|RangeError|at .*\.js:\d+/);
    expect(partial.stdout).toContain('═══ agent claude-code');
    expect(partial.stdout.replace(/\s+/g, ' ')).toMatch(
      /MISSING · 1 agent of this run with nothing to report agent codex: nothing to report, not started: the run stopped before it \(`skillprobe run --resume .*` runs it\)/,
    );
    const json = JSON.parse((await runInProcess(['report', dir, '--json'], { cwd: project })).stdout) as { missing: { id: string }[] };
    expect(json.missing.map((m) => m.id)).toEqual(['codex']);
    expect(partial.exitCode).toBeGreaterThanOrEqual(1); // missing data (4) or a failing verdict (1), never a clean 0
    expect(partial.exitCode).not.toBe(70);

    // Resumed with the flags it started with (the agents come from the run itself).
    const flags = ['--sim', 'sim.yaml', '--trials', '3', '--threshold', '0.5', '--workdir', workdir];
    // In this process: no Gemini here (a run with Gemini is spawned, so that SKILLPROBE_TEST_NODE reaches its CLI).
    const resumed = await runInProcess(['run', ...flags, '--resume', dir], { cwd: project });
    expect(resumed.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    expect(resumed.stdout).toMatch(/agent claude-code: resuming its run \(1 of 2\)/);
    expect(resumed.stdout).toMatch(/agent codex: running the suite \(2 of 2\)/);
    expect(resumed.stdout).toMatch(/AGENTS × CASES · 2 agents/);
    const done = readJson<AgentRuns>(join(dir, 'agents.json'));
    expect(done.agents.map((a) => [a.id, a.status])).toEqual([
      ['claude-code', 'completed'],
      ['codex', 'completed'],
    ]);
    expect(readdirSync(runs)).toHaveLength(1); // one run, resumed in place
    for (const a of done.agents) expect(readJson<Results>(join(dir, a.dir, 'results.json')).outcomes).toHaveLength(6);
    const whole = await runInProcess(['report', dir], { cwd: project });
    expect(whole.exitCode).toBe(resumed.exitCode);
    expect(whole.stdout).not.toMatch(/nothing to report/);
    // Agents named again must be the run's own.
    const other = await runInProcess(['run', ...flags, '--resume', dir, '--agent', 'gemini'], { cwd: project });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/--agent: the run being resumed is for claude-code, codex, not gemini/);
  }, 600_000);
});
