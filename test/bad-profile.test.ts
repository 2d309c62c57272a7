import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runCli, spyBinary, testEnv } from './helpers.js';

/** Profiles the schema accepts but whose rules point at nothing in the suite: `run` must refuse them up front. */
const BAD = [
  {
    name: 'a rule for a case that is not in the suite',
    profile: 'seed: 1\nrules:\n  - case: pos-alfa\n    do:\n      - { p: 1, skill: alpha }\n',
    where: /sim\.yaml:3:11:/,
    says: /rule 1 matches case "pos-alfa", which is not in the suite/,
  },
  {
    name: 'a behaviour naming no family member',
    profile: 'seed: 1\nrules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: alpha-gamma }\n',
    where: /sim\.yaml:5:24:/,
    says: /`skill: alpha-gamma` names no skill in the skills folder/,
  },
  {
    name: 'a default read of no family member',
    profile: 'seed: 1\ndefault:\n  - { p: 1, read: beta }\n',
    where: /sim\.yaml:3:19:/,
    says: /default behaviour 1: `read: beta`/,
  },
  {
    name: 'a prompt rule with a lookahead (the simulator matches prompts in linear time)',
    profile: 'seed: 1\nrules:\n  - prompt: "(?=alpha)alpha"\n    do:\n      - { p: 1, skill: alpha }\n',
    where: /sim\.yaml:3:13:/,
    says: /uses syntax the linear-time engine does not support/,
  },
];

describe('run --sim refuses a profile that points at nothing: exit 2, file:line:col, no trial spawned', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each(BAD)(
    '$name',
    async (bad) => {
      const dir = makeProject({ ...baseProject(), 'sim.yaml': bad.profile });
      dirs.push(dir);
      const spy = spyBinary(dir);
      const r = await runCli(['run', '--agent-binary', spy.path, '--transcripts', 'runs', '--sim', 'sim.yaml'], {
        cwd: dir,
        env: testEnv(),
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(bad.where);
      expect(r.stderr).toMatch(bad.says);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace
      expect(existsSync(spy.marker)).toBe(false);
      expect(existsSync(join(dir, 'runs'))).toBe(false);
    },
    120_000,
  );

  it('a profile whose references all exist passes loading and spawns the agent', async () => {
    const dir = makeProject({
      ...baseProject(),
      'sim.yaml': 'seed: 1\nrules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: alpha }\n',
    });
    dirs.push(dir);
    const spy = spyBinary(dir);
    const r = await runCli(
      ['run', '--agent-binary', spy.path, '--transcripts', 'runs', '--sim', 'sim.yaml', '--trials', '1', '--arms', 'skill'],
      { cwd: dir, env: testEnv() },
    );
    expect(r.exitCode).not.toBe(2);
    expect(existsSync(spy.marker)).toBe(true);
  }, 120_000);
});
