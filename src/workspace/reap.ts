import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { sep } from 'node:path';
import { endGroups, groupAlive, processAlive } from '../util/process-group.js';
import { listWorkspaces, workspacePrefix, type OwnedWorkspace } from './owner.js';

/** How long reaped agents get to exit on SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2000;

interface ProcessFacts {
  pid: number;
  group: number;
  cwd?: string;
  home?: string;
}

/** A process's group, working folder and HOME, from /proc; undefined once it is gone. */
function processFacts(pid: number): ProcessFacts | undefined {
  const read = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch {
      return undefined; // gone meanwhile, or not ours to read
    }
  };
  // "pid (comm) state ppid pgrp …", where comm may hold spaces and parentheses.
  const stat = read(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === undefined) return undefined;
  const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  const cwd = read(() => readlinkSync(`/proc/${pid}/cwd`));
  const home = read(() =>
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((v) => v.startsWith('HOME='))
      ?.slice(5),
  );
  return { pid, group, cwd, home };
}

const inFolder = (path: string | undefined, root: string) => path !== undefined && `${path}${sep}`.startsWith(root + sep);

/**
 * The agent process groups of these workspaces that still run something, and nothing else: never a group merely
 * found working there (a shell or a test may stand in the folder). Where /proc shows processes, a group is an
 * agent's when the workspace records it and a member still works in the workspace or lives in its HOME (an id since
 * taken by an unrelated group, a sweep can come days later, is never killed), or when any member's HOME is the
 * workspace's (an agent started the moment its harness was killed, before its group was recorded, whose leader may
 * have exited since, leaving a descendant: only the harness gives a process that HOME). Elsewhere a recorded group
 * still alive is trusted by its id.
 */
function agentGroupsIn(list: OwnedWorkspace[]): number[] {
  if (list.length === 0) return [];
  if (!existsSync('/proc/self/stat')) return list.flatMap((w) => (w.owner.group === undefined ? [] : [w.owner.group])).filter(groupAlive);
  const procs = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .flatMap((p) => processFacts(Number(p)) ?? []);
  const groups = new Set<number>();
  for (const w of list) {
    const recorded = w.owner.group;
    for (const p of procs) {
      const ours = p.group === recorded ? inFolder(p.cwd, w.root) || inFolder(p.home, w.root) : inFolder(p.home, w.root);
      if (ours) groups.add(p.group);
    }
  }
  return [...groups];
}

/**
 * Kills the agents still running in these workspaces (SIGTERM, then SIGKILL after a grace period) and removes them.
 * Returns how many were removed (another user's, say, may refuse).
 */
async function reapWorkspaces(list: OwnedWorkspace[]): Promise<number> {
  const groups = agentGroupsIn(list);
  await endGroups(groups, KILL_GRACE_MS);
  const removed = await Promise.all(
    list.map((w) =>
      rm(w.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).then(
        () => true,
        () => false,
      ),
    ),
  );
  return removed.filter(Boolean).length;
}

const reapable = (w: OwnedWorkspace) => w.owner.kept !== true && w.owner.host === hostname();

/** What the process `pid` left in `base`: its watchdog's job once it is gone. Returns how many workspaces went. */
export function reapWorkspacesOf(base: string, pid: number): Promise<number> {
  return reapWorkspaces(listWorkspaces(base, workspacePrefix(pid), true).filter((w) => reapable(w) && w.owner.pid === pid));
}

/** What runs that are gone left in `base` (their watchdog killed too, or never started). Returns how many went. */
export function sweepStaleWorkspaces(base: string): Promise<number> {
  return reapWorkspaces(listWorkspaces(base).filter((w) => reapable(w) && w.owner.pid !== process.pid && !processAlive(w.owner.pid)));
}
