import { describe, expect, it } from 'vitest';
import { projectsRemovedAfterAll, runInProcess } from './helpers.js';

/** Exit codes that need no trial, in this process; the ones a run decides are in exit-codes.e2e.test.ts. */
describe('exit codes of a command line that names no command', () => {
  const project = projectsRemovedAfterAll();

  it.each([
    ['NOSUCHCOMMAND', '--help'],
    ['rnu', '--help'],
    ['nope', ''],
  ])('an unknown command (%s %s) is a usage mistake, exit 2, even with --help', async (...args) => {
    const r = await runInProcess(args.filter(Boolean), { cwd: project() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`error: unknown command '${args[0]}'`));
    if (args[0] === 'rnu') expect(r.stderr).toMatch(/Did you mean run\?/);
    expect(r.stdout).toBe('');
  });
});
