import { setTimeout as sleep } from 'node:timers/promises';

/** Processes and process groups by id (an agent runs as the leader of its own group: its pid is the group's id). */

export function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    /* ESRCH: the group is already gone */
  }
}

/** Whether a process with this pid exists on this machine (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of the group is still there. */
export const groupAlive = (group: number): boolean => processAlive(-group);

/** Ends whole process groups: SIGTERM, then SIGKILL to any of them still there after `graceMs`. */
export async function endGroups(groups: readonly number[], graceMs: number): Promise<void> {
  for (const g of groups) killGroup(g, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (groups.some(groupAlive) && Date.now() < until) await sleep(100);
  for (const g of groups) killGroup(g, 'SIGKILL');
}
