import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workspacePrefix } from '../src/workspace/owner.js';
import { sweepStaleWorkspaces } from '../src/workspace/reap.js';
import { cleanup } from './helpers.js';

/** The sweep at the start of every run, in this process: stand-in workspaces and `sleep`s for agents, no agent CLI. */
describe('the sweep at the start of a run: what a dead run left, and nothing else', () => {
  const base = mkdtempSync(join(tmpdir(), 'sp-sweep-'));
  afterAll(() => cleanup(base));

  /** A workspace in `base` as a run of process `pid` makes it, with the marker it writes (none: killed before). */
  function workspaceOf(pid: number, marker: object | undefined): string {
    const dir = mkdtempSync(join(base, workspacePrefix(pid)));
    mkdirSync(join(dir, 'ws'));
    if (marker) writeFileSync(join(dir, 'owner.json'), JSON.stringify({ pid, host: hostname(), ...marker }));
    return dir;
  }

  it("removes the workspaces of processes that are gone, with their agents; never a live owner's, a kept one, an unmarked one, or a process that is not the agent", async () => {
    const gone = Number((await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout);
    const live = execa('sleep', ['30'], { reject: false });
    const stale = workspaceOf(gone, {});
    const agent = execa('sleep', ['30'], { cwd: join(stale, 'ws'), detached: true, reject: false });
    writeFileSync(join(stale, 'owner.json'), JSON.stringify({ pid: gone, host: hostname(), group: agent.pid }));
    // Working in a stale workspace without being its agent (a shell, a test): never killed.
    const bystander = execa('sleep', ['30'], { cwd: join(stale, 'ws'), detached: true, reject: false });
    // An agent started the moment its harness died, before its group was recorded: only a trial's agent has its HOME.
    const early = workspaceOf(gone, {});
    mkdirSync(join(early, 'home'));
    const unrecorded = execa('sleep', ['30'], {
      cwd: join(early, 'ws'),
      env: { HOME: join(early, 'home') },
      detached: true,
      reject: false,
    });
    // The same, whose leader has exited since (a wrapper that started a child and quit): its child, alone in the
    // group, holds the HOME.
    const leaderless = workspaceOf(gone, {});
    mkdirSync(join(leaderless, 'home'));
    const leaver = await execa('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], {
      cwd: join(leaderless, 'ws'),
      env: { HOME: join(leaderless, 'home') },
      detached: true,
    });
    const orphan = Number(leaver.stdout);
    // A recorded group id that now belongs to someone else (working elsewhere): never killed.
    const stranger = execa('sleep', ['30'], { detached: true, reject: false });
    const reused = workspaceOf(gone, { group: stranger.pid });
    // Named like a workspace, but without skillprobe's owner record: not skillprobe's to remove.
    const unmarked = workspaceOf(gone, undefined);
    const kept = workspaceOf(gone, { kept: true });
    const alive = workspaceOf(live.pid!, {});
    try {
      expect(await sweepStaleWorkspaces(base)).toBe(4);
      expect(readdirSync(base).sort()).toEqual([basename(kept), basename(alive), basename(unmarked)].sort());
      expect([stale, early, leaderless, reused].some(existsSync)).toBe(false);
      expect((await agent).signal).toBe('SIGTERM');
      expect((await unrecorded).signal).toBe('SIGTERM');
      // Gone: it was no child of this process, so nothing reports its signal.
      expect(() => process.kill(orphan, 0)).toThrow();
      for (const p of [stranger, bystander]) expect(() => process.kill(p.pid!, 0)).not.toThrow(); // still running
    } finally {
      for (const p of [live, agent, stranger, bystander, unrecorded]) p.kill('SIGKILL');
      try {
        process.kill(orphan, 'SIGKILL');
      } catch {
        /* swept */
      }
      await Promise.all([live, agent, stranger, bystander, unrecorded]);
    }
  });
});
