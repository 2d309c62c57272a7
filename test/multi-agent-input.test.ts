import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runInProcess, spyBinary } from './helpers.js';

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
    [
      ['--agent', 'codex,gemini', '--model', 'gpt-5.5'],
      '--model',
      'would send gpt-5.5 to each agent not named under `models:` (codex, gemini)',
    ],
    [
      ['--agent', 'claude-code,codex', '--model', 'sonnet'],
      '--model',
      'send sonnet to each agent not named under `models:` (claude-code, codex)',
    ],
    [['--agent', 'codex', '--max-cost', '5'], '--max-cost', 'the Codex CLI reports no cost'],
  ])('%j: exit 2, naming %s', async (flags, where, what) => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n' });
    dirs.push(project);
    const spy = spyBinary(project);
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', ...flags.map((f) => (f === 'SPY' ? spy.path : f))], {
      cwd: project,
    });
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
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--agent', 'claude-code,codex,gemini', '--transcripts', 'runs'], {
      cwd: project,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('skillprobe.config.yaml:1:8: one model for several agents would send sonnet to each agent not named under');
    expect(r.stderr).toContain('`models:` (codex, gemini)');
  });

  it('report on a folder whose agents.json is damaged says so in one line, exit 2', async () => {
    const project = makeProject({ 'runs/r1/agents.json': '{ not json' });
    dirs.push(project);
    const r = await runInProcess(['report', 'runs/r1'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/runs\/r1\/agents\.json: agents\.json .* — report or resume each agent's run folder in it on its own/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a config naming both agent and agents is refused at its line', async () => {
    const project = makeProject({
      ...baseProject(),
      'sim.yaml': 'seed: 1\n',
      'skillprobe.config.yaml': 'agent: codex\nagents: [codex, gemini]\n',
    });
    dirs.push(project);
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--transcripts', 'runs'], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('skillprobe.config.yaml:2');
    expect(r.stderr).toContain('both `agent` and `agents`');
  });
});
