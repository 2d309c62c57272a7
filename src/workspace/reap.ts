import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { groupAlive, killGroup, processAlive } from '../util/process-group.js';
import { listWorkspaces, workspacePrefix, type OwnedWorkspace } from './owner.js';

/** How long reaped agents get to exit on SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * The process groups still running something inside these workspaces. Where /proc shows processes' working folders,
 * that is any process working in one (an agent started the moment its harness was killed has no recorded group
 * yet), and a recorded id that now belongs to an unrelated group (a sweep can come days later) is never taken;
 * elsewhere a recorded group still alive is trusted by its id.
 */
function groupsStillIn(list: OwnedWorkspace[]): number[] {
  if (list.length === 0) return [];
  if (!existsSync('/proc/self/stat')) return list.flatMap((w) => (w.owner.group === undefined ? [] : [w.owner.group])).filter(groupAlive);
  const roots = list.map((w) => w.root + sep);
  const found = new Set<number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cwd = `${readlinkSync(`/proc/${pid}/cwd`)}${sep}`;
      if (!roots.some((r) => cwd.startsWith(r))) continue;
      // "pid (comm) state ppid pgrp …", where comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      found.add(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]));
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return [...found];
}

/**
 * Kills the agents still running in these workspaces (SIGTERM, then SIGKILL after a grace period) and removes them.
 * Returns how many were removed (another user's, say, may refuse).
 */
async function reapWorkspaces(list: OwnedWorkspace[]): Promise<number> {
  const groups = groupsStillIn(list);
  for (const g of groups) killGroup(g, 'SIGTERM');
  const until = Date.now() + KILL_GRACE_MS;
  while (groups.some(groupAlive) && Date.now() < until) await sleep(100);
  for (const g of groups) killGroup(g, 'SIGKILL');
  const removed = await Promise.all(list.map((w) => rm(w.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).then(() => true, () => false)));
  return removed.filter(Boolean).length;
}

const reapable = (w: OwnedWorkspace) => w.owner.kept !== true && w.owner.host === hostname();

/** What the process `pid` left in `base`: its watchdog's job once it is gone. Returns how many workspaces went. */
export function reapWorkspacesOf(base: string, pid: number): Promise<number> {
  return reapWorkspaces(listWorkspaces(base, workspacePrefix(pid)).filter((w) => reapable(w) && w.owner.pid === pid));
}

/** What runs that are gone left in `base` (their watchdog killed too, or never started). Returns how many went. */
export function sweepStaleWorkspaces(base: string): Promise<number> {
  return reapWorkspaces(listWorkspaces(base).filter((w) => reapable(w) && w.owner.pid !== process.pid && !processAlive(w.owner.pid)));
}
