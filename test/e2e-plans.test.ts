import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../src/run/schema.js';
import { cleanup, makeProject, ROOT, runCli, skillMd } from './helpers.js';
import { leftBehind, resultsOf } from './e2e-scenarios.js';

/**
 * Plan checks through all three real CLIs against the simulator: a profile rule's args are the plan each simulated
 * agent writes after loading the skill, so the agents agree wherever the simulator decides.
 */
const AGENTS = ['claude-code', 'codex', 'gemini'];

/** Each agent's results in a run of several agents, by agent id. */
function resultsByAgent(transcripts: string): Record<string, Results> {
  const run = join(transcripts, readdirSync(transcripts)[0]!);
  return Object.fromEntries(AGENTS.map((id) => [id, resultsOf(join(run, readdirSync(run).find((d) => d.endsWith(`-${id}`))!))]));
}

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
    const args = ['run', '--sim', 'sim.yaml', '--agent', AGENTS.join(','), '--trials', '3', '--arms', 'skill'];
    args.push('--transcripts', 'runs', '--workdir', workdir);
    const r = await runCli(args, { cwd: project, timeoutMs: 400_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(join(project, 'runs'));
  }, 420_000);

  afterAll(() => cleanup(project, workdir));

  it.each(AGENTS)('%s plans the rule’s args after the skill’s command, and every plan check passes', (id) => {
    const outcomes = byAgent[id]!.outcomes;
    expect(outcomes).toHaveLength(3);
    for (const o of outcomes) {
      expect(o).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
      expect(o.plan?.plans).toEqual(['tracker create-issue --project OPS --summary "Login fails"']);
    }
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});

describe('the demo through every agent', () => {
  const out = mkdtempSync(join(tmpdir(), 'sp-demo-agents-'));
  let byAgent: Record<string, Results>;

  beforeAll(async () => {
    // Verdicts are decided on the skill arm alone, so the ablation arm is left out to save a third of the trials.
    const args = ['run', '--sim', 'sim/demo.profile.yaml', '--agent', AGENTS.join(','), '--arms', 'skill', '--no-gate'];
    args.push('--transcripts', out);
    const r = await runCli(args, { cwd: ROOT, timeoutMs: 1_500_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(out);
  }, 1_560_000);

  afterAll(() => cleanup(out));

  it('Codex and Gemini reach Claude Code’s verdict on every case, plan-check cases included', () => {
    const verdicts = (id: string) => byAgent[id]!.verdicts.map((v) => [v.caseId, v.verdict]);
    const planChecked = byAgent['claude-code']!.outcomes.filter((o) => o.plan !== undefined).map((o) => o.caseId);
    expect(new Set(planChecked).size).toBeGreaterThanOrEqual(5);
    expect(verdicts('claude-code').map(([, v]) => v)).toContain('PASS');
    expect(verdicts('codex')).toEqual(verdicts('claude-code'));
    expect(verdicts('gemini')).toEqual(verdicts('claude-code'));
  });
});
