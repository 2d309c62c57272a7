import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, cleanup, CLI, makeProject, ROOT, testEnv } from './helpers.js';
import { leftBehind } from './e2e-scenarios.js';

/**
 * The built CLI under the active LTS releases beside the Node running the tests: the registry's Node builds, which
 * `npm ci` installs under `scripts/node-builds/` (devDependencies; linux-x64 only, an optional dependency elsewhere).
 * The short run drives the Gemini CLI, a JavaScript bundle the harness starts with its own Node: that Node runs both.
 */
const BUILDS = [22, 24].map((major) => ({
  major,
  node: join(ROOT, 'scripts', 'node-builds', String(major), 'node_modules', `node-${major}`, 'bin', 'node'),
}));

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

describe.each(BUILDS)('skillprobe under Node $major', ({ major, node }) => {
  const run = (args: string[], cwd: string) =>
    execa(node, [CLI, ...args], { cwd, env: testEnv(), extendEnv: false, reject: false, stdin: 'ignore', timeout: 180_000 });

  it('is that Node, from the registry’s build', async () => {
    expect(existsSync(node), `${node}: run npm ci`).toBe(true);
    expect((await execa(node, ['--version'])).stdout).toMatch(new RegExp(`^v${major}\\.`));
  });

  it('runs the built CLI: its version, doctor, and a short run of the Gemini CLI against the simulator', async () => {
    const project = makeProject({
      ...baseProject(),
      'skillprobe.config.yaml': 'agent: gemini\nmodel: gemini-2.5-flash\n',
      'sim.yaml': [
        `name: node-${major}`,
        'seed: 1',
        'rules:',
        '  - { case: pos-alpha, do: [{ skill: alpha, args: "create --name demo" }] }',
        '  - { case: neg-weather, do: [{ answer: "Sunny." }] }',
        '',
      ].join('\n'),
    });
    const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
    dirs.push(project, workdir);
    const version = await run(['--version'], project);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const doctor = await run(['doctor', '--agent', 'gemini'], project);
    expect(doctor.exitCode, doctor.stderr).toBe(0);

    const r = await run(
      ['run', '--sim', 'sim.yaml', '--trials', '1', '--arms', 'skill', '--no-gate', '--transcripts', 'runs', '--workdir', workdir],
      project,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('completed');
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    expect(results.outcomes.map((o) => [o.caseId, o.status, o.fired]).sort()).toEqual([
      ['neg-weather', 'ok', 'none'],
      // The skill's load status settles the positive: its trial stops there.
      ['pos-alpha', 'settled', 'expected'],
    ]);
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  }, 200_000);
});
