import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../src/run/schema.js';
import { cleanup, makeProject, runCli, skillMd } from './helpers.js';
import { leftBehind, resultsByAgent } from './e2e-scenarios.js';

/**
 * Plan checks through all three real CLIs against the simulator: a profile rule's args are the plan each simulated
 * agent writes after loading the skill, so the agents agree wherever the simulator decides. That every demo trial,
 * plan checks included, comes out the same through each CLI is demo.e2e.test.ts's (beside the Codex demo run it reads).
 */
const AGENTS = ['claude-code', 'codex', 'gemini'];

describe('plan checks through every agent: a skill without $ARGUMENTS', () => {
  // What a skill written for every CLI looks like: its commands spelled out, no Claude Code placeholder.
  const BODY = [
    'Plan one call and show it in a bash block:',
    '',
    '```bash',
    'tracker login',
    'tracker create-issue --project KEY --summary "…"',
    'tracker search --query "…"',
    '```',
    '',
  ].join('\n');
  const PROFILE = `
name: plans
seed: 11
rules:
  - { case: files-bug, do: [{ skill: tracker, args: "create-issue --project OPS --summary 'Login fails'" }] }
`;
  const CASES = `- id: files-bug
  prompt: "File a bug in OPS: the login fails."
  expect: { skill: tracker }
  plan: { verb: create-issue, matches: ["--project OPS"] }
`;
  let project: string;
  let workdir: string;
  let byAgent: Record<string, Results>;

  beforeAll(async () => {
    project = makeProject({
      'skills/tracker/SKILL.md': skillMd('tracker', 'File and find issues in the tracker.', BODY),
      'cases/main.yaml': CASES,
      'sim.yaml': PROFILE,
      'skillprobe.config.yaml': 'commands:\n  tracker: tracker\n',
    });
    workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    // The rule has one behaviour (no draw): one trial an agent shows its plan.
    const args = ['run', '--sim', 'sim.yaml', '--agent', AGENTS.join(','), '--trials', '1', '--arms', 'skill'];
    args.push('--transcripts', 'runs', '--workdir', workdir);
    const r = await runCli(args, { cwd: project, timeoutMs: 400_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(join(project, 'runs'), AGENTS);
  }, 420_000);

  afterAll(() => cleanup(project, workdir));

  it.each(AGENTS)('%s plans the rule’s args after the skill’s command, and every plan check passes', (id) => {
    const outcomes = byAgent[id]!.outcomes;
    expect(outcomes).toHaveLength(1);
    for (const o of outcomes) {
      expect(o).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
      expect(o.plan?.plans).toEqual(['tracker create-issue --project OPS --summary "Login fails"']);
    }
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});
