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
  return Object.fromEntries(
    AGENTS.map((id) => [
      id,
      resultsOf(
        join(
          run,
          readdirSync(run).find((d) => d.endsWith(`-${id}`))!,
        ),
      ),
    ]),
  );
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
    // The rule has one behaviour (no draw): one trial an agent shows its plan.
    const args = ['run', '--sim', 'sim.yaml', '--agent', AGENTS.join(','), '--trials', '1', '--arms', 'skill'];
    args.push('--transcripts', 'runs', '--workdir', workdir);
    const r = await runCli(args, { cwd: project, timeoutMs: 400_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(join(project, 'runs'));
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

describe('the demo through every agent', () => {
  const out = mkdtempSync(join(tmpdir(), 'sp-demo-agents-'));
  let byAgent: Record<string, Results>;

  beforeAll(async () => {
    // One trial of every case, skill arm: the simulator draws per trial, so each trial must come out the same on
    // every CLI, which says more than the verdicts would, at a fraction of the demo's trials.
    const args = [
      'run',
      '--sim',
      'sim/demo.profile.yaml',
      // One draw seed for every agent's run: each trial must come out the same on every CLI.
      '--draw-seed',
      '1',
      '--agent',
      AGENTS.join(','),
      '--arms',
      'skill',
      '--trials',
      '1',
      '--concurrency',
      '3',
      '--no-gate',
    ];
    args.push('--transcripts', out);
    const r = await runCli(args, { cwd: ROOT, timeoutMs: 600_000 });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    byAgent = resultsByAgent(out);
  }, 660_000);

  afterAll(() => cleanup(out));

  it('Codex and Gemini grade every trial as Claude Code does, plan-check cases included', () => {
    const trials = (id: string) =>
      byAgent[id]!.outcomes.map((o) => ({ trial: `${o.caseId}#${o.n}`, passed: o.passed, fired: o.fired, planPass: o.plan?.pass })).sort(
        (a, b) => a.trial.localeCompare(b.trial),
      );
    const planChecked = byAgent['claude-code']!.outcomes.filter((o) => o.plan !== undefined).map((o) => o.caseId);
    expect(new Set(planChecked).size).toBeGreaterThanOrEqual(5);
    expect(trials('claude-code')).toHaveLength(11);
    expect(trials('claude-code').some((t) => t.passed === true) && trials('claude-code').some((t) => t.planPass === false)).toBe(true);
    expect(trials('codex')).toEqual(trials('claude-code'));
    expect(trials('gemini')).toEqual(trials('claude-code'));
  });
});
