import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, CLI, cleanup, makeProject, processesUnder, testEnv } from './helpers.js';
import type { Results, RunManifest } from '../src/run/schema.js';

/** Ctrl-C in the middle of a run: finished transcripts kept, running trials killed, nothing left behind. */
describe('interrupting a run', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('keeps every completed transcript, kills the rest, leaves no process or workspace, exits 130', async () => {
    const project = makeProject({
      ...baseProject(),
      'sim.yaml': 'seed: 1\nrules:\n  - { case: pos-alpha, do: [{ stall: true }] }\n  - { case: neg-weather, do: [{ answer: "sunny" }] }\n',
    });
    const workdir = mkdtempSync(join(tmpdir(), 'sp-int-work-'));
    dirs.push(project, workdir);
    const child = execa(
      'node',
      [
        CLI,
        'run',
        '--sim',
        'sim.yaml',
        '--trials',
        '3',
        '--arms',
        'skill',
        '--concurrency',
        '2',
        '--timeout',
        '100',
        '--transcripts',
        'runs',
        '--workdir',
        workdir,
      ],
      {
        cwd: project,
        env: testEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      },
    );
    // Wait until the quick case has finished at least once while the stalled ones hang.
    const deadline = Date.now() + 60_000;
    const finished = () =>
      existsSync(join(project, 'runs'))
        ? readdirSync(join(project, 'runs')).flatMap((r) =>
            existsSync(join(project, 'runs', r, 'trials', 'neg-weather', 'skill'))
              ? readdirSync(join(project, 'runs', r, 'trials', 'neg-weather', 'skill'))
              : [],
          )
        : [];
    while (!finished().some((f) => f.endsWith('.meta.json')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    expect(processesUnder(workdir).length).toBeGreaterThan(0); // a stalled agent is running right now
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toMatch(/stopping: killing running trials/);

    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('interrupted');
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    const quiet = results.outcomes.filter((o) => o.caseId === 'neg-weather');
    expect(quiet.length).toBeGreaterThanOrEqual(1);
    expect(quiet.every((o) => o.status === 'ok' && o.passed === true)).toBe(true);
    // The stalled trials were killed: recorded as killed, excluded, never "did not trigger".
    const stalled = results.outcomes.filter((o) => o.caseId === 'pos-alpha');
    expect(stalled.length).toBeGreaterThanOrEqual(1);
    expect(stalled.every((o) => o.status === 'killed' && o.passed === null)).toBe(true);
    for (const o of stalled) expect(existsSync(join(runDir, 'trials', 'pos-alpha', 'skill', `${o.n}.jsonl`))).toBe(true);

    expect(processesUnder(workdir)).toEqual([]);
    expect(readdirSync(workdir)).toEqual([]);
  }, 120_000);
});
