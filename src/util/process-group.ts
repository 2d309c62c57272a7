/** Process groups by id (an agent runs as the leader of its own group: its pid is the group's id). */

export function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    /* ESRCH: the group is already gone */
  }
}

/** Whether any process of the group is still there (EPERM: it is, owned by someone else). */
export function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
