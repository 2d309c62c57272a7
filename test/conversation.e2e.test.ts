import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/run/exit-codes.js';
import type { RunManifest } from '../src/run/schema.js';
import { baseProject, CLI, cleanup, makeProject, processesUnder, ROOT, runCli, testEnv } from './helpers.js';
import { resultsOf } from './e2e-scenarios.js';

/**
 * examples/conversation through a real pinned CLI against the simulator: a skill that rightly asks which environment
 * first passes when the case declares the user's reply, fails when it does not, and its ablation comparison is below
 * the no-skill arm only without the reply. The verdicts are the harness's whatever the CLI, so the run goes through the
 * one that starts cheapest (Codex, a third of Claude Code's CPU a trial); that each CLI takes the follow-up is its
 * conformance row (agent-conformance.e2e.test.ts).
 */
describe('examples/conversation (Codex, simulator)', () => {
  const transcripts = mkdtempSync(join(tmpdir(), 'sp-conversation-'));
  afterAll(() => cleanup(transcripts));

  it('passes with a follow-up declared, fails without one, and is no longer below the no-skill arm with it', async () => {
    const run = await runCli(['run', '--sim', 'sim.yaml', '--agent', 'codex', '--draw-seed', '3', '--transcripts', transcripts], {
      cwd: join(ROOT, 'examples', 'conversation'),
      timeoutMs: 300_000,
    });
    expect(run.exitCode, run.stderr).toBe(EXIT.fail);
    const results = resultsOf(join(transcripts, readdirSync(transcripts)[0]!));
    expect(results.verdicts.map((v) => [v.caseId, v.verdict])).toEqual([
      ['ship-with-reply', 'PASS'],
      ['ship-no-reply', 'FAIL'],
    ]);
    const skillRow = (id: string) => results.summary.cases.find((c) => c.caseId === id && c.arm === 'skill')!;
    // With the reply, the skill fires on turn 2 in every trial; without it, the model's question ends every trial.
    expect(skillRow('ship-with-reply').firingTurns).toMatchObject({ counts: [0, 6] });
    expect(skillRow('ship-no-reply')).toMatchObject({ fired: { none: 6 }, flags: { clarifying: 6 } });
    expect(skillRow('ship-no-reply').firingTurns).toBeUndefined();
    const ablation = (id: string) => results.summary.ablation.find((a) => a.caseId === id)!;
    expect(ablation('ship-no-reply').difference.hi).toBeLessThan(0);
    expect(ablation('ship-with-reply').difference.diff).toBeGreaterThanOrEqual(0);
    expect(ablation('ship-with-reply').difference.lo).toBeLessThan(0);
    expect(run.stdout).toMatch(/FIRING TURN · skill arm[\s\S]*ship-with-reply +6 +\.00 \[0\.00, 0\.52\] +1\.00 \[0\.48, 1\.00\]/);
  });
});

/**
 * Where each CLI's follow-up turn has started in a trial's partial transcript: Claude Code printed its second init
 * (it echoes the follow-up only once the model answers); for Codex the harness marked turn 2 before its resumed process.
 */
const TURN_TWO_STARTED = {
  'claude-code': { config: '', started: (raw: string) => raw.split('"subtype":"init"').length > 2 },
  codex: { config: 'agent: codex\n', started: (raw: string) => raw.includes('"type":"skillprobe.user_turn","turn":2') },
};

/**
 * A conversation stopped while its follow-up turn streams (the model asked, the reply went in, the model's answer to
 * it stalls), by Ctrl-C and by kill -9 of skillprobe: no agent and no workspace left (after a kill -9, its watchdog's
 * doing), and `--resume` finishes the run, the interrupted trial run again (stalled again: missing data, never a miss).
 * Claude Code takes the follow-up on the same process's stdin; Codex in a resumed process of its own. The four rows
 * mostly wait (for turn 2, then for the stalled trial's deadline), so they run at once.
 */
const projectFor = (config: string) =>
  makeProject({
    ...baseProject(),
    'cases/main.yaml': [
      '- id: asks',
      '  prompt: "please handle an alpha record"',
      '  followUps: ["the demo one"]',
      '  expect: { skill: alpha }',
      '- id: stalls',
      '  prompt: "please handle the other alpha record"',
      '  followUps: ["the demo one"]',
      '  expect: { skill: alpha }',
      '',
    ].join('\n'),
    'sim.yaml': [
      'seed: 1',
      'rules:',
      '  - { case: asks, do: [{ skill: alpha, onTurn: 2 }] }',
      '  - { case: stalls, do: [{ stall: true, onTurn: 2, ask: "Which record?" }] }',
      '',
    ].join('\n'),
    // One attempt: the stalled trial is missing data either way, and a retry would wait out its deadline again.
    'skillprobe.config.yaml': `${config}retries: { infra: 0 }\n`,
  });

describe('a conversation interrupted mid-way (simulator)', () => {
  const projects = Object.fromEntries(Object.entries(TURN_TWO_STARTED).map(([agent, { config }]) => [agent, projectFor(config)]));
  const dirs = Object.values(projects);
  afterAll(() => cleanup(...dirs));
  const args = ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--trials', '1', '--timeout', '8', '--concurrency', '2'];
  const rows = Object.entries(TURN_TWO_STARTED).flatMap(([agent, turnTwo]) =>
    (['SIGINT', 'SIGKILL'] as const).map((signal) => [agent, signal, turnTwo] as const),
  );

  it.concurrent.each(rows)(
    '%s: %s while the follow-up turn streams: nothing left behind, and --resume finishes',
    async (agent, signal, turnTwo) => {
      const project = projects[agent]!;
      const workdir = mkdtempSync(join(tmpdir(), 'sp-conv-work-'));
      dirs.push(workdir);
      const runs = join(project, `runs-${agent}-${signal}`);
      const child = execa('node', [CLI, ...args, '--transcripts', runs, '--workdir', workdir], {
        cwd: project,
        env: testEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 120_000,
      });
      const runDir = () => join(runs, existsSync(runs) ? (readdirSync(runs)[0] ?? 'none') : 'none');
      const partial = () => join(runDir(), 'trials', 'stalls', 'skill', '1.jsonl.part');
      const inTurnTwo = () => existsSync(partial()) && turnTwo.started(readFileSync(partial(), 'utf8'));
      const deadline = Date.now() + 30_000;
      while (!inTurnTwo() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(inTurnTwo()).toBe(true);
      child.kill(signal);
      const stopped = await child;
      expect(stopped.exitCode ?? stopped.signal).toBe(signal === 'SIGINT' ? 130 : 'SIGKILL');
      const gone = Date.now() + 10_000;
      while ((processesUnder(workdir).length || readdirSync(workdir).length) && Date.now() < gone)
        await new Promise((r) => setTimeout(r, 100));
      expect({ processes: processesUnder(workdir), workspaces: readdirSync(workdir) }).toEqual({ processes: [], workspaces: [] });

      const resumed = await runCli([...args, '--transcripts', runs, '--workdir', workdir, '--resume', runDir()], {
        cwd: project,
        timeoutMs: 120_000,
      });
      expect(resumed.stderr).not.toMatch(/input problem|skillprobe: /);
      const manifest = JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8')) as RunManifest;
      expect([manifest.status, manifest.trials.finished]).toEqual(['completed', 2]);
      const outcomes = resultsOf(runDir()).outcomes;
      expect(outcomes.find((o) => o.caseId === 'asks')).toMatchObject({ passed: true, firedTurn: 2 });
      expect(outcomes.find((o) => o.caseId === 'stalls')).toMatchObject({ status: 'infra_error', passed: null });
      expect({ processes: processesUnder(workdir), workspaces: readdirSync(workdir) }).toEqual({ processes: [], workspaces: [] });
    },
    120_000,
  );
});
