import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { processAlive } from '../src/util/process-group.js';
import { inWatchedFolder } from '../src/workspace/watched.js';
import { CLI, projectsRemovedAfterAll, testEnv, testNode, until, writeFiles } from './helpers.js';

/**
 * A stand-in agent CLI that hangs: it adds its pid and its child's (a process of its group) to `pids`, then waits.
 * With `version`, it answers `--version` with it first.
 */
function hangingAgent(dir: string, version?: string): { path: string; pids: string } {
  const pids = join(dir, 'pids');
  const path = join(dir, 'hanging-agent.sh');
  const answer = version ? `[ "$1" = --version ] && { echo ${version}; exit 0; }\n` : '';
  writeFileSync(path, `#!/bin/sh\n${answer}sleep 300 &\necho "$$ $!" >> '${pids}'\nwait\n`);
  chmodSync(path, 0o755);
  // A failing test leaves nothing running either.
  onTestFinished(() => {
    for (const pid of pidsIn(pids).filter(processAlive)) process.kill(pid, 'SIGKILL');
  });
  return { path, pids };
}

const pidsIn = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number) : []);

const config = (lines: string[]) => [...lines, 'trials: 1', 'arms: [skill]', 'decision: { mode: fixed }', ''].join('\n');
const SIM = 'name: hang\nrules:\n  - { prompt: ".", do: [{ answer: "ok" }] }\n';

/** Each probe run before or outside trials, as the command that reaches it with a binary that hangs there. */
const PROBES = [
  {
    probe: "the CLI's version (doctor asks a binary found elsewhere)",
    label: 'version-',
    config: config(['agent: codex']),
    args: (bin: string) => ['doctor', '--agent', 'codex', '--agent-binary', bin],
  },
  {
    probe: "Codex's sandbox (a run's machine check)",
    label: 'sandbox-',
    config: config(['agent: codex']),
    args: (bin: string) => ['run', '--sim', 'sim.yaml', '--agent-binary', bin, '--transcripts', 'runs'],
  },
  {
    probe: "the field probe (a field run's machine check)",
    label: 'field-probe-',
    config: config(['agent: claude-code', 'context: field']),
    args: (bin: string) => ['run', '--sim', 'sim.yaml', '--agent-binary', bin, '--transcripts', 'runs'],
  },
  {
    probe: "doctor --probe's live check (its trials hang)",
    label: 'doctor-',
    version: '9.9.9',
    config: config(['agent: claude-code']),
    args: (bin: string) => ['doctor', '--probe', '--agent', 'claude-code', '--agent-binary', bin],
  },
];

/**
 * How each stop ends skillprobe. kill -9 runs none of its code: its watchdog reaps. Ctrl-C during a probe ends it by
 * the signal (no handler is set yet; a shell reads 130), or through doctor's own handler: the watchdog reaps too.
 */
const STOPS = [
  { stop: 'kill -9', signal: 'SIGKILL' as const, ended: { signal: 'SIGKILL' } },
  { stop: 'Ctrl-C', signal: 'SIGINT' as const, ended: undefined },
];

describe.each(STOPS)('$stop during a probe: its CLI and its folder are gone', ({ signal, ended }) => {
  const project = projectsRemovedAfterAll();

  it.each(PROBES)('$probe', async ({ label, version, config, args }) => {
    const dir = project();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    writeFiles(dir, { 'skillprobe.config.yaml': config, 'sim.yaml': SIM });
    const agent = hangingAgent(dir, version);
    const cli = execa(testNode(), [CLI, ...args(agent.path)], {
      cwd: dir,
      env: testEnv({ TMPDIR: tmp }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    await until(() => pidsIn(agent.pids).length >= 2, 20_000);
    // The probe's folder is one the run owns, its pid in the name.
    expect(readdirSync(tmp)).toEqual([expect.stringMatching(new RegExp(`^skillprobe-${cli.pid}-${label}`))]);
    cli.kill(signal);
    const r = await cli;
    if (ended) expect(r).toMatchObject(ended);
    const pids = pidsIn(agent.pids);
    // A watchdog's grace is 2 s.
    await expect.poll(() => pids.filter(processAlive), { timeout: 15_000 }).toEqual([]);
    await expect.poll(() => readdirSync(tmp), { timeout: 5000 }).toEqual([]);
  });
});

describe('a watched folder', () => {
  const project = projectsRemovedAfterAll(() => ({}));

  it.each([
    ['returns', async () => 'done'],
    [
      'throws',
      async () => {
        throw new Error('probe failed');
      },
    ],
  ])('is owned while `use` runs, and removed once it %s', async (_, then) => {
    const base = project();
    let seen: { name: string; owner: unknown } | undefined;
    const ended = inWatchedFolder(base, 'probe-', async (root) => {
      seen = { name: root.slice(base.length + 1), owner: JSON.parse(readFileSync(join(root, 'owner.json'), 'utf8')) };
      return then();
    }).then(
      (v) => v,
      (e: Error) => e.message,
    );
    expect(await ended).toMatch(/^(done|probe failed)$/);
    expect(seen?.name).toMatch(new RegExp(`^skillprobe-${process.pid}-probe-`));
    expect(seen?.owner).toMatchObject({ pid: process.pid });
    expect(readdirSync(base)).toEqual([]);
  });
});
