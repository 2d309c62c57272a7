import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, makeProject, runCli, testEnv } from './helpers.js';

/** A Claude Code stand-in whose every trial lists no skill at all: the family missing, as a broken setup shows it. */
const NO_SKILLS_AGENT = [
  '#!/bin/sh',
  `echo '{"type":"system","subtype":"init","cwd":".","session_id":"s","tools":["Read","Glob","Grep","Skill"],"mcp_servers":[],"model":"m","slash_commands":[],"skills":[]}'`,
  `echo '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"ok","session_id":"s","total_cost_usd":0}'`,
  '',
].join('\n');

describe('a run whose first trials all fail the isolation check', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('stops after the first wave, says why, and exits 4 with the trials it ran kept', async () => {
    const project = makeProject({
      ...baseProject(),
      'agent.sh': NO_SKILLS_AGENT,
      'sim.yaml':
        'seed: 1\nrules:\n  - { case: pos-alpha, do: [{ skill: alpha }] }\n  - { case: neg-weather, do: [{ answer: "sunny" }] }\n',
    });
    dirs.push(project);
    chmodSync(join(project, 'agent.sh'), 0o755);
    const args = ['run', '--sim', 'sim.yaml', '--agent-binary', './agent.sh', '--arms', 'skill', '--trials', '20', '--concurrency', '2'];
    const r = await runCli([...args, '--transcripts', 'runs'], { cwd: project, env: testEnv() });
    expect(r.stdout).toMatch(
      /stopped early: the run's first trials all failed the isolation check \(skill arm: alpha, alpha-beta not loaded/,
    );
    expect(r.exitCode).toBe(4);
    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('isolation_stopped');
    // The first wave is three trials here (two at once, at least three); one more may have been in flight.
    expect(manifest.trials.finished).toBeGreaterThanOrEqual(3);
    expect(manifest.trials.finished).toBeLessThanOrEqual(4);
    expect(manifest.trials.notStarted).toBe(40 - manifest.trials.finished);
  }, 120_000);
});
