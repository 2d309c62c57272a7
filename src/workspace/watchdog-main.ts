/**
 * The watchdog process (started by watchdog.ts): `watchdog-main.js <harness pid> <workspace base>`. Its stdin is a
 * pipe from the harness, which closes when the harness exits for any reason, SIGKILL included: the workspaces it
 * owned are then reaped, their agent process groups killed, SIGTERM then SIGKILL, and the folders removed. A harness
 * that cleaned up itself kills this process first (its stand-down). Nothing here knows which agent CLI ran.
 */
const [pid, base] = process.argv.slice(2);
// Read only to hear the pipe close.
process.stdin.resume();
process.stdin.on('error', () => {});
process.stdin.once('close', async () => {
  // Loaded only now: waiting costs no more than a bare Node process.
  if (pid && base) await (await import('./reap.js')).reapWorkspacesOf(base, Number(pid));
  process.exit(0);
});
