import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuns, Results, RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, makeProject, runCli, spyBinary } from './helpers.js';
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
    project = makeProject({ ...baseProject(), 'sim.yaml': PROFILE, 'skillprobe.config.yaml': 'models:\n  claude-code: claude-sonnet-4-5\n' });
    workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    r = await runCli(['run', '--sim', 'sim.yaml', '--agent', AGENTS.join(','), '--trials', '5', '--threshold', '0.5', '--transcripts', 'runs', '--workdir', workdir], { cwd: project, timeoutMs: 300_000 });
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
      expect(manifest.trials).toMatchObject({ planned: 10, finished: 10 }); // 2 cases × 5 trials, skill arm only (nothing to score without the skill)
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
    expect(r.stdout).toMatch(/pos-alpha\s+alpha\s+PASS 5\/5 · fires 100%\s+PASS 5\/5 · fires 100%\s+PASS 5\/5 · fires 100%/);
    expect(r.stdout).toMatch(/neg-weather\s+none\s+PASS 5\/5 · false triggers 0%/);
    const worst = Math.max(...readJson<AgentRuns>(join(dir, 'agents.json')).agents.map((a) => a.exitCode ?? 99));
    expect(r.exitCode).toBe(worst);
  });

  it('compare takes two agents of the run: the header says the agents differ, and nothing regressed here', async () => {
    const record = readJson<AgentRuns>(join(dir, 'agents.json'));
    const [claude, codex] = record.agents.map((a) => join(dir, a.dir));
    const c = await runCli(['compare', claude!, codex!, '--reporter', 'json'], { cwd: project });
    expect(c.exitCode).toBe(0);
    const comparison = JSON.parse(c.stdout) as { crossAgent: boolean; cases: { change: string }[] };
    expect(comparison.crossAgent).toBe(true);
    expect(comparison.cases.map((x) => x.change)).not.toContain('REGRESSED');
  });

  it('report on the run prints every agent and the matrix again, and exits as the run did', async () => {
    const again = await runCli(['report', dir], { cwd: project });
    expect(again.exitCode).toBe(r.exitCode);
    expect(again.stdout).toMatch(/AGENTS × CASES · 3 agents/);
    for (const id of AGENTS) expect(again.stdout).toContain(`═══ agent ${id}`);
  });

  it('history lists each agent’s run of it', async () => {
    const h = await runCli(['history', '--transcripts', 'runs'], { cwd: project });
    expect(h.exitCode).toBe(0);
    for (const id of AGENTS) expect(h.stdout).toMatch(new RegExp(`${basename(dir)}/${basename(dir)}-${id}\\s+${id}`));
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});

describe('several agents: bad input is refused before anything runs', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each([
    [['--agent', 'codex,nope'], '--agent', 'unknown agent "nope"'],
    [['--agent', 'codex,codex'], '--agent', 'more than once'],
    [['--agent', 'codex,'], '--agent', 'separated by commas'],
    [['--agent', 'codex,gemini', '--shard', '1/2'], '--shard', "one agent's suite"],
    [['--agent', 'codex,gemini', '--resume', 'runs/x'], '--resume', "one agent's run folder"],
    [['--agent', 'codex,gemini', '--last-failed'], '--last-failed', "one agent's newest run"],
    [['--agent', 'codex,gemini', '--agent-binary', 'SPY'], '--agent-binary', 'one CLI binary for several agents'],
    [['--agent', 'codex,gemini', '--model', 'gpt-5.5'], '--model', 'would send gpt-5.5 to each agent not named under `models:` (codex, gemini)'],
    [['--agent', 'claude-code,codex', '--model', 'sonnet'], '--model', 'send sonnet to each agent not named under `models:` (claude-code, codex)'],
    [['--agent', 'codex', '--max-cost', '5'], '--max-cost', 'the Codex CLI reports no cost'],
  ])('%j: exit 2, naming %s', async (flags, where, what) => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n' });
    dirs.push(project);
    const spy = spyBinary(project);
    const r = await runCli(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', ...flags.map((f) => (f === 'SPY' ? spy.path : f))], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(where);
    expect(r.stderr).toContain(what);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(project, 'runs'))).toBe(false);
  });

  it('a model beside per-agent models names only the agents it would still reach, at its line', async () => {
    const config = 'model: sonnet\nmodels:\n  claude-code: sonnet\n';
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': config });
    dirs.push(project);
    const r = await runCli(['run', '--sim', 'sim.yaml', '--agent', 'claude-code,codex,gemini', '--transcripts', 'runs'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('skillprobe.config.yaml:1:8: one model for several agents would send sonnet to each agent not named under');
    expect(r.stderr).toContain('`models:` (codex, gemini)');
  });

  it('report on a folder whose agents.json is damaged says so in one line, exit 2', async () => {
    const project = makeProject({ 'runs/r1/agents.json': '{ not json' });
    dirs.push(project);
    const r = await runCli(['report', 'runs/r1'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/runs\/r1\/agents\.json: agents\.json .* — report each agent's run folder in it on its own/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a config naming both agent and agents is refused at its line', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': 'agent: codex\nagents: [codex, gemini]\n' });
    dirs.push(project);
    const r = await runCli(['run', '--sim', 'sim.yaml', '--transcripts', 'runs'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('skillprobe.config.yaml:2');
    expect(r.stderr).toContain('both `agent` and `agents`');
  });
});
