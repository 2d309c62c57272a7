import { execa } from 'execa';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeCommand } from '../src/cli/resume-command.js';
import { shellWord } from '../src/util/shell-words.js';
import type { RunManifest } from '../src/run/schema.js';
import { baseProject, CLI, cleanup, makeProject, processesUnder, testEnv } from './helpers.js';

describe('resumeCommand: the command line typed, with --resume in place of what a resume must not repeat', () => {
  it.each([
    [['run', '--sim', 'sim.yaml', '--grep', 'a|b'], "skillprobe run --sim sim.yaml --grep 'a|b' --resume runs/r1"],
    [['run', '--resume', 'old', '--sim=s.yaml', '-n', '3'], 'skillprobe run --sim=s.yaml -n 3 --resume runs/r1'],
    [['run', '--resume=old', '--add-trials', '4', '--force', '--baseline', 'b'], 'skillprobe run --resume runs/r1'],
    [['run', '--grep', "it's"], `skillprobe run --grep 'it'\\''s' --resume runs/r1`],
  ])('%j', (argv, expected) => {
    expect(resumeCommand(argv, 'runs/r1')).toBe(expected);
  });

  it('gives a replaced flag its new value, once', () => {
    expect(resumeCommand(['run', '--max-cost', '2', '--sim', 's'], 'r', new Map([['--max-cost', '<more>']]))).toBe(
      'skillprobe run --sim s --resume r --max-cost <more>',
    );
    expect(shellWord('a b')).toBe("'a b'");
  });
});

describe('a run npm started, stopped by a SIGTERM to npm, then resumed with the command it printed', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('stops like Ctrl-C (trials kept, nothing left running) and the printed command, run verbatim, finishes it', async () => {
    const project = makeProject({
      ...baseProject(),
      'sim.yaml':
        'seed: 1\nrules:\n  - { case: pos-alpha, do: [{ skill: alpha }] }\n  - { case: neg-weather, do: [{ answer: "sunny" }] }\n',
      // Stopping and resuming is the harness's own: through the real CLI that starts cheapest (Codex).
      'skillprobe.config.yaml': 'agent: codex\n',
    });
    const workdir = mkdtempSync(join(tmpdir(), 'sp-npm-work-'));
    const bin = mkdtempSync(join(tmpdir(), 'sp-npm-bin-'));
    dirs.push(project, workdir, bin);
    const args = ['run', '--sim', 'sim.yaml', '--grep', 'pos-alpha|neg-weather', '--trials', '4', '--arms', 'skill', '--concurrency', '2'];
    // As npm runs a package's bin: under `sh -c`, which dies of a SIGTERM without passing it on.
    const npm = execa('sh', ['-c', `node ${CLI} "$@"; exit $?`, 'sh', ...args, '--transcripts', 'runs', '--workdir', workdir], {
      cwd: project,
      env: { ...testEnv(), npm_command: 'exec' },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const runs = join(project, 'runs');
    const runDir = () => join(runs, existsSync(runs) ? (readdirSync(runs)[0] ?? 'none') : 'none');
    const stored = () =>
      ['pos-alpha', 'neg-weather'].flatMap((c) => {
        const arm = join(runDir(), 'trials', c, 'skill');
        return existsSync(arm) ? readdirSync(arm).filter((f) => f.endsWith('.meta.json')) : [];
      });
    const deadline = Date.now() + 60_000;
    while (stored().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    npm.kill('SIGTERM');
    // The pipes close when the CLI itself is gone: it stopped, rather than running on in the background.
    const r = await npm;
    const manifest = JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('interrupted');
    expect(manifest.trials.finished).toBeLessThan(8);
    expect(processesUnder(workdir)).toEqual([]);
    expect(readdirSync(workdir)).toEqual([]);

    const printed = /interrupted: `(skillprobe [^`]+)` runs the missing trials/.exec(r.stdout)?.[1];
    expect(printed).toBe(
      `skillprobe run --sim sim.yaml --grep 'pos-alpha|neg-weather' --trials 4 --arms skill --concurrency 2 --transcripts runs --workdir ${workdir} --resume runs/${readdirSync(runs)[0]}`,
    );
    // Run verbatim, by a shell, with `skillprobe` on the PATH as an install puts it there.
    writeFileSync(join(bin, 'skillprobe'), `#!/bin/sh\nexec node ${CLI} "$@"\n`);
    chmodSync(join(bin, 'skillprobe'), 0o755);
    const env = testEnv();
    const resumed = await execa('sh', ['-c', printed!], {
      cwd: project,
      env: { ...env, PATH: `${bin}:${env.PATH}` },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 120_000,
    });
    expect(resumed.stderr).not.toMatch(/input problem|skillprobe: /);
    // The verdicts' code: four passes a case cannot tell its rate from the threshold (INCONCLUSIVE), never an error.
    expect(resumed.exitCode).toBe(3);
    const after = JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8')) as RunManifest;
    expect([after.status, after.trials.finished, after.resumedAt?.length]).toEqual(['completed', 8, 1]);
    expect(readdirSync(runs)).toHaveLength(1);
  }, 240_000);
});
