import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runInProcess } from './helpers.js';

describe('a file reporter on a real run', () => {
  it('run with only a file reporter still prints the terminal report and its own lines, and names the file', async () => {
    const dir = makeProject({
      ...baseProject(),
      'cases/main.yaml': '- id: c\n  prompt: "please create an alpha record"\n  expect: { skill: alpha }\n',
      'skillprobe.config.yaml': 'decision:\n  mode: fixed\n',
      'sim.yaml': 'seed: 3\nrules:\n  - case: c\n    do:\n      - { p: 1, skill: alpha, args: "create" }\n',
    });
    try {
      const junit = join(dir, 'junit.xml');
      const args = ['run', '--sim', 'sim.yaml', '--arms', 'skill', '--trials', '2', '--transcripts', 'runs', `--reporter=junit=${junit}`];
      const r = await runInProcess(args, { cwd: dir });
      expect(r.exitCode, r.stderr).not.toBe(2);
      expect(readFileSync(junit, 'utf8')).toContain('<testsuites name="skillprobe (SIMULATED)"');
      expect(r.stdout).toMatch(
        new RegExp(`^skillprobe run [^]*\\nVERDICTS · [^]*\\nwrote ${junit} \\(junit\\)\\nrun \\S+ completed: 2 trials\\n`),
      );
    } finally {
      cleanup(dir);
    }
  }, 120_000);
});
