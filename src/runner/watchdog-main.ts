/**
 * The watchdog process (started by watchdog.ts): `watchdog-main.js <harness pid> <workspace base>`. Its stdin is a
 * pipe from the harness, which closes when the harness exits for any reason, SIGKILL included. Unless the harness
 * stood down first (it cleaned up itself), the workspaces it owned are reaped: their agent process groups killed,
 * SIGTERM then SIGKILL, and the folders removed. Nothing here knows which agent CLI ran.
 */
import { STAND_DOWN } from './watchdog.js';

const [pid, base] = process.argv.slice(2);
let heard = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (s: string) => {
  heard += s;
});
process.stdin.on('error', () => {});
process.stdin.once('close', async () => {
  // Loaded only now: waiting costs no more than a bare Node process.
  if (!heard.includes(STAND_DOWN) && pid && base) await (await import('../workspace/reap.js')).reapWorkspacesOf(base, Number(pid));
  process.exit(0);
});
