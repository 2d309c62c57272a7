import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunManifest } from '../src/run/schema.js';
import { tuneRecordSchema, type TuneRecord } from '../src/run/tune-schema.js';
import { CLI, cleanup, projectsRemovedAfterAll, runCli, runInProcess, testEnv } from './helpers.js';
import { ALREADY_RIGHT, MISSING_CLASS, tuneProject } from './tune-fixture.js';

/**
 * `skillprobe tune` end to end, through each agent's real pinned CLI against the simulator's description router: the
 * router reads the descriptions the CLI listed, so a rewrite changes triggering as it would with a real model, and
 * the proposer stand-in answers the CLI's proposer request.
 */
const AGENT_CONFIGS: Record<string, string> = {
  'claude-code': '',
  codex: 'agent: codex\nmodel: sim-model\n',
  gemini: 'agent: gemini\nmodel: gemini-2.5-flash\n',
};

const record = (project: string): { dir: string; record: TuneRecord } => {
  const dir = readdirSync(join(project, 'transcripts')).find((d) => d.startsWith('tune-'))!;
  return {
    dir: join(project, 'transcripts', dir),
    record: tuneRecordSchema.parse(JSON.parse(readFileSync(join(project, 'transcripts', dir, 'tune.json'), 'utf8'))),
  };
};

// One draw seed for every tune here: a stopped and resumed tune must reach a separate uninterrupted tune's answer.
const tuneArgs = (iterations: number) => [
  'tune',
  'csv-report',
  '--sim',
  'sim.yaml',
  '--draw-seed',
  '1',
  '--iterations',
  String(iterations),
  '--holdout-trials',
  '3',
];
const TUNE = tuneArgs(2);
/** Gemini CLI takes the most CPU a trial: one iteration there (the loop's second is tested through the others). */
const agentTune = (agent: string) => (agent === 'gemini' ? tuneArgs(1) : TUNE);

/** Each agent's uninterrupted tunes (of the improvable family, and of the one already right): what a tune stopped and resumed must reach. */
const uninterrupted = new Map<string, TuneRecord>();
const uninterruptedRight = new Map<string, TuneRecord>();

describe.each(Object.entries(AGENT_CONFIGS))('tune through %s', (agent, config) => {
  const improvable = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS, config, 1));
  const right = projectsRemovedAfterAll(() => tuneProject(ALREADY_RIGHT, config, 1));

  it('a description that misses a class of requests is tuned to a significantly better holdout recall, siblings and negatives no worse', async () => {
    const project = improvable();
    const r = await runCli([...agentTune(agent), '--write'], { cwd: project, timeoutMs: 600_000 });
    expect(r.stderr).toContain('SIMULATOR');
    expect(r.exitCode).toBe(0);
    const { record: t } = record(project);
    uninterrupted.set(agent, t);
    expect(t.status).toBe('completed');
    expect(t.verdict).toBe('IMPROVED');
    expect(t.holdout!.recall.pValue).toBeLessThan(0.05);
    expect(t.holdout!.recall.diff).toBeGreaterThan(0);
    for (const role of ['siblings', 'negatives'] as const) {
      const c = t.holdout![role];
      expect(c.diff === null || c.diff >= 0 || c.pValue >= 0.05).toBe(true);
    }
    // The holdout was never shown to the proposer.
    const holdoutPrompts = t.splits.holdout.map((id) => id);
    expect(holdoutPrompts).toEqual(expect.arrayContaining(['xl-expenses', 'xl-inventory']));
    expect(t.result).not.toBe(MISSING_CLASS);
    const skill = readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8');
    expect(skill).toContain(`description: ${t.result}`);
    expect(skill.replace(/^description: .*$/m, '')).toBe(
      readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8').replace(/^description: .*$/m, ''),
    );
    expect(r.stdout).toMatch(/IMPROVED/);
    expect(r.stdout).toMatch(/^\+\+\+ /m);
    const { dir: tuneDir } = record(project);
    // Every step draws from its own seed, derived from the tune's: the original and a candidate draw independently.
    const stepSeeds = t.iterations
      .flatMap((it) => [it.tune?.dir, it.select?.dir])
      .filter((d) => d !== undefined)
      .map((d) => (JSON.parse(readFileSync(join(tuneDir, d, 'run.json'), 'utf8')) as RunManifest).simulator!.draws!.seed);
    expect(new Set(stepSeeds).size).toBe(stepSeeds.length);
    expect(t.draws).toEqual({ seed: 1, given: true });
    if (agent === 'claude-code') {
      // The proposer is offered no tool: its CLI's own account of the session lists none.
      const stream = readFileSync(join(tuneDir, 'iterations/1/proposer/trials/propose/ablation/1.jsonl'), 'utf8');
      const init = stream
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type?: string; subtype?: string; tools?: string[] })
        .find((e) => e.type === 'system' && e.subtype === 'init');
      expect(init?.tools).toEqual([]);
    }
    // The tune folder reports again without running anything.
    const again = await runInProcess(['report', relative(project, record(project).dir), '--reporter', 'markdown'], { cwd: project });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^## skillprobe tune `csv-report` — IMPROVED/);
  }, 600_000);

  it('a description already right ends with NO SIGNIFICANT CHANGE and keeps the original', async () => {
    const project = right();
    const r = await runCli([...agentTune(agent), '--write'], { cwd: project, timeoutMs: 600_000 });
    expect(r.exitCode).toBe(0);
    const { record: t } = record(project);
    uninterruptedRight.set(agent, t);
    expect(t.verdict).toBe('NO SIGNIFICANT CHANGE');
    expect(t.result).toBe(ALREADY_RIGHT);
    expect(t.written).toBe(false);
    expect(readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8')).toContain(`description: ${ALREADY_RIGHT}`);
  }, 600_000);
});

/** What a tune decided, without when it ran: a resumed tune must decide exactly the same. */
const answer = (t: TuneRecord) => ({
  splits: t.splits,
  iterations: t.iterations.map((it) => ({
    description: it.description,
    tune: it.tune?.score,
    select: it.select?.score,
    dropped: it.dropped,
  })),
  winner: t.winner,
  holdout: t.holdout && { recall: t.holdout.recall, siblings: t.holdout.siblings, negatives: t.holdout.negatives },
  verdict: t.verdict,
  result: t.result,
  trials: t.trials,
});

/** Live processes working in `dir` or naming it: an agent, a watchdog, skillprobe itself. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      return cwd.startsWith(dir) || readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

async function until(ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms`);
    await sleep(50);
  }
}

describe('tune: Ctrl-C and kill -9 mid-tune lose nothing, and --resume reaches the same answer', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS, AGENT_CONFIGS.codex, 1));
  const roots: string[] = [];
  afterAll(() => cleanup(...roots));

  it('Ctrl-C during the first candidate, kill -9 during the holdout, then --resume: the uninterrupted answer, no process or workspace left', async () => {
    const dir = project();
    const workdir = mkdtempSync(join(tmpdir(), 'sp-tune-ws-'));
    roots.push(workdir);
    const env = testEnv();
    const start = (args: string[]) =>
      execa('node', [CLI, ...args, '--workdir', workdir], {
        cwd: dir,
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 300_000,
      });
    const tuneDir = () => readdirSync(join(dir, 'transcripts')).find((d) => d.startsWith('tune-'));
    const trialsIn = (step: string) => {
      const t = existsSync(join(dir, 'transcripts')) ? tuneDir() : undefined;
      const trials = t && join(dir, 'transcripts', t, step, 'trials');
      return trials && existsSync(trials) ? readdirSync(trials).length : 0;
    };

    const first = start(TUNE);
    await until(() => trialsIn('iterations/1/tune') >= 1, 120_000);
    first.kill('SIGINT');
    const stopped = await first;
    expect(stopped.exitCode, stopped.stderr).toBe(130);
    const folder = join('transcripts', tuneDir()!);
    expect(record(dir).record.status).toBe('interrupted');
    await until(() => processesIn(workdir).length === 0 && readdirSync(workdir).length === 0, 10_000);

    const second = start(['tune', '--resume', folder, '--sim', 'sim.yaml']);
    await until(() => trialsIn('holdout/1-2/original') >= 1, 120_000);
    second.kill('SIGKILL');
    await second;
    // A SIGKILLed tune cleans nothing: its agents and workspaces are the watchdog's to reap.
    await until(() => processesIn(workdir).length === 0 && readdirSync(workdir).length === 0, 10_000);

    const third = await start(['tune', '--resume', folder, '--sim', 'sim.yaml']);
    expect(third.exitCode, third.stderr).toBe(0);
    const resumed = record(dir).record;
    expect(resumed.status).toBe('completed');
    const baseline = uninterrupted.get('codex');
    expect(baseline, 'the uninterrupted codex tune ran first in this file').toBeDefined();
    expect(answer(resumed)).toEqual(answer(baseline!));
    expect(processesIn(workdir)).toEqual([]);
    expect(readdirSync(workdir)).toEqual([]);
  }, 400_000);
});

describe('tune: --max-cost stops a tune where the cap falls, and --resume with a higher cap goes on', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(ALREADY_RIGHT, AGENT_CONFIGS['claude-code'], 1));

  it('exit 5 and a cost-capped tune.json, then the uninterrupted answer', async () => {
    const dir = project();
    const capped = await runCli([...TUNE, '--max-cost', '0.05'], { cwd: dir, timeoutMs: 300_000 });
    expect(capped.exitCode, capped.stderr).toBe(5);
    const stopped = record(dir).record;
    expect(stopped.status).toBe('cost_capped');
    expect(stopped.costUsd).toBeGreaterThanOrEqual(0.05);
    expect(stopped.verdict).toBeUndefined();
    const resumed = await runCli(['tune', '--resume', relative(dir, record(dir).dir), '--sim', 'sim.yaml', '--max-cost', '100'], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const baseline = uninterruptedRight.get('claude-code');
    expect(baseline, 'the uninterrupted claude-code tune ran first in this file').toBeDefined();
    expect(answer(record(dir).record)).toEqual(answer(baseline!));
  }, 400_000);
});
