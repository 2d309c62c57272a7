import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterFor } from '../src/agents/registry.js';
import type { AgentCheck } from '../src/commands/doctor.js';
import { EXIT } from '../src/run/exit-codes.js';
import { cleanup, makeProject, runCli, testEnv } from './helpers.js';

/**
 * `skillprobe doctor --probe` on a version its conformance record never saw: the installed Claude Code behind a
 * wrapper that says it is another version (what a user's newer CLI looks like to doctor), and a binary that says a
 * version and then fails every trial. The live check runs against the simulator and leaves no temp folder.
 */
const project = makeProject({});
const tmp = join(project, 'tmp');
mkdirSync(tmp);
afterAll(() => cleanup(project));

/** A stand-in binary in the project: it says `version`, and otherwise runs `rest`. */
function wrapper(name: string, version: string, rest: string): string {
  const path = join(project, name);
  writeFileSync(path, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${version}"; exit 0; fi\n${rest}\n`);
  chmodSync(path, 0o755);
  return path;
}

const doctor = (binary: string) =>
  runCli(['doctor', '--agent', 'claude-code', '--agent-binary', binary, '--probe', '--json'], {
    cwd: project,
    env: testEnv({ TMPDIR: tmp }),
    timeoutMs: 180_000,
  });
const probed = (stdout: string) =>
  (JSON.parse(stdout) as { agents: AgentCheck[] }).agents[0]!.found.find((f) => f.source === '--agent-binary')!;

describe('skillprobe doctor --probe', () => {
  it('an unrecorded version that drives like the pinned one passes the live check', async () => {
    const real = adapterFor('claude-code').resolveBinary();
    const r = await doctor(wrapper('claude-next', '9.9.9 (Claude Code)', `exec '${real}' "$@"`));
    expect(r.exitCode, r.stderr).toBe(EXIT.pass);
    expect(probed(r.stdout)).toMatchObject({ version: '9.9.9', conformance: { kind: 'unrecorded' }, probe: { passed: true, differs: [] } });
    expect(readdirSync(tmp)).toEqual([]);
  }, 200_000);

  it('one that fails its trials fails, each scenario saying how', async () => {
    const r = await doctor(wrapper('claude-broken', '9.9.8 (Claude Code)', 'echo nonsense; exit 1'));
    expect(r.exitCode, r.stderr).toBe(EXIT.fail);
    const { probe } = probed(r.stdout);
    expect(probe?.passed).toBe(false);
    expect(probe?.differs.map((d) => d.split(':')[0])).toEqual(['fires', 'quiet', 'sibling', 'reads']);
    expect(probe?.differs[0]).toMatch(/^fires: the trial ended agent_error/);
    expect(readdirSync(tmp)).toEqual([]);
  }, 200_000);
});
