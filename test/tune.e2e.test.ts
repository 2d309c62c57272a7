import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunManifest } from '../src/run/schema.js';
import { tuneRecordSchema, type TuneRecord } from '../src/run/tune-schema.js';
import { CLI, cleanup, processesIn, projectsRemovedAfterAll, runInProcess, testEnv, until } from './helpers.js';
import { MISSING_CLASS, tuneProject } from './tune-fixture.js';

/**
 * `skillprobe tune` end to end, where the process is the claim: a pinned CLI against the simulator's description
 * router (the router reads the descriptions the CLI listed, so a rewrite changes triggering as it would with a real
 * model, and the proposer stand-in answers the CLI's proposer request), `--write` on the user's SKILL.md, and a tune
 * stopped by its cost cap, Ctrl-C and kill -9 and resumed. Every decision of the loop (drops, stop rules, the
 * holdout's sequential design, the cap, replay on resume) is tested in process in test/tune-machine.test.ts. The loop is
 * the harness's own whatever the CLI, so it runs through the one that starts cheapest (Codex: a third of Claude Code's
 * CPU a trial); that each CLI offers a proposer's request no tool is trial-roles.test.ts (the proposer's flags are the
 * judge's) with sim-judge.e2e.test.ts (the judge's requests through each real CLI hold none).
 */
const record = (project: string): { dir: string; record: TuneRecord } => {
  const dir = readdirSync(join(project, 'transcripts')).find((d) => d.startsWith('tune-'))!;
  return {
    dir: join(project, 'transcripts', dir),
    record: tuneRecordSchema.parse(JSON.parse(readFileSync(join(project, 'transcripts', dir, 'tune.json'), 'utf8'))),
  };
};

// One draw seed for every tune here: a stopped and resumed tune must reach a separate uninterrupted tune's answer.
const TUNE = ['tune', 'csv-report', '--sim', 'sim.yaml', '--draw-seed', '1', '--iterations', '2', '--holdout-trials', '3'];

/** The uninterrupted tune: what a tune stopped and resumed must reach. */
let uninterrupted: TuneRecord | undefined;

/** The tune example with a description that misses a class of requests, tuned through Codex, one trial a case. */
const improvableProject = () => tuneProject(MISSING_CLASS, 'agent: codex\n', 1);

describe('tune through Codex', () => {
  const improvable = projectsRemovedAfterAll(improvableProject);

  it('a description that misses a class of requests is tuned to a significantly better holdout recall, siblings and negatives no worse', async () => {
    const project = improvable();
    // In this process: the stopped tunes below are spawned, as a user starts one.
    const r = await runInProcess([...TUNE, '--write'], { cwd: project });
    expect(r.stderr).toContain('SIMULATOR');
    expect(r.exitCode).toBe(0);
    const { record: t } = record(project);
    uninterrupted = t;
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
    // The tune folder reports again without running anything.
    const again = await runInProcess(['report', relative(project, record(project).dir), '--reporter', 'markdown'], { cwd: project });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^## skillprobe tune `csv-report` — IMPROVED/);
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

/** A project of its own for one stopped tune, its workspace root, and what a test reads of the tune while it runs. */
function stoppableTune(dir: string, roots: string[]) {
  const workdir = mkdtempSync(join(tmpdir(), 'sp-tune-ws-'));
  roots.push(workdir);
  const env = testEnv();
  const tuneDir = () => readdirSync(join(dir, 'transcripts')).find((d) => d.startsWith('tune-'));
  return {
    workdir,
    start: (args: string[]) =>
      execa('node', [CLI, ...args, '--workdir', workdir], {
        cwd: dir,
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 300_000,
      }),
    /** The same, to its end in this process (no signal stops it). */
    finish: (args: string[]) => runInProcess([...args, '--workdir', workdir], { cwd: dir, env }),
    /** The tune folder, relative to the project. */
    folder: () => join('transcripts', tuneDir()!),
    /** How many cases of one of the tune's runs have a trial begun. */
    trialsIn: (run: string) => {
      const t = existsSync(join(dir, 'transcripts')) ? tuneDir() : undefined;
      const trials = t && join(dir, 'transcripts', t, run, 'trials');
      return trials && existsSync(trials) ? readdirSync(trials).length : 0;
    },
    /** No agent, watchdog or workspace left. */
    clean: () => until(() => processesIn(workdir).length === 0 && readdirSync(workdir).length === 0, 10_000),
  };
}

describe('tune: Ctrl-C and kill -9 mid-tune lose nothing, and --resume reaches the same answer', () => {
  const project = projectsRemovedAfterAll(improvableProject);
  const roots: string[] = [];
  afterAll(() => cleanup(...roots));

  it('Ctrl-C during the first candidate, kill -9 during the holdout, then --resume: the uninterrupted answer, no process or workspace left', async () => {
    const dir = project();
    const { workdir, start, finish, folder, trialsIn, clean } = stoppableTune(dir, roots);

    const first = start(TUNE);
    await until(() => trialsIn('iterations/1/tune') >= 1, 120_000);
    first.kill('SIGINT');
    const interrupted = await first;
    expect(interrupted.exitCode, interrupted.stderr).toBe(130);
    expect(record(dir).record.status).toBe('interrupted');
    await clean();

    const second = start(['tune', '--resume', folder(), '--sim', 'sim.yaml']);
    await until(() => trialsIn('holdout/1-2/original') >= 1, 120_000);
    second.kill('SIGKILL');
    await second;
    // A SIGKILLed tune cleans nothing: its agents and workspaces are the watchdog's to reap.
    await clean();

    const last = await finish(['tune', '--resume', folder(), '--sim', 'sim.yaml']);
    expect(last.exitCode, last.stderr).toBe(0);
    const resumed = record(dir).record;
    expect(resumed.status).toBe('completed');
    expect(uninterrupted, 'the uninterrupted tune ran first in this file').toBeDefined();
    expect(answer(resumed)).toEqual(answer(uninterrupted!));
    expect(processesIn(workdir)).toEqual([]);
    expect(readdirSync(workdir)).toEqual([]);
  }, 600_000);

  // Codex reports no cost, so the cap is Claude Code's: its first run stops it within a few trials.
  const priced = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS, '', 1));

  it('--max-cost stops it (exit 5, no verdict), a higher cap resumes it until Ctrl-C (exit 130), no process or workspace left', async () => {
    const dir = priced();
    const { start, finish, folder, trialsIn, clean } = stoppableTune(dir, roots);

    const capped = await finish([...TUNE, '--max-cost', '0.01']);
    expect(capped.exitCode, capped.stderr).toBe(5);
    const stoppedByCap = record(dir).record;
    expect(stoppedByCap.status).toBe('cost_capped');
    expect(stoppedByCap.costUsd).toBeGreaterThanOrEqual(0.01);
    expect(stoppedByCap.verdict).toBeUndefined();
    await clean();

    // Past the cap: the capped run goes on with cases it never began.
    const begun = trialsIn('iterations/0/tune');
    const resumed = start(['tune', '--resume', folder(), '--sim', 'sim.yaml', '--max-cost', '100']);
    await until(() => trialsIn('iterations/0/tune') > begun, 120_000);
    resumed.kill('SIGINT');
    const interrupted = await resumed;
    expect(interrupted.exitCode, interrupted.stderr).toBe(130);
    expect(record(dir).record.status).toBe('interrupted');
    await clean();
  }, 300_000);
});
