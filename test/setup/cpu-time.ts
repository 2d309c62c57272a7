import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** CPU time the test file cost: its worker's, and that of every process it started (and their descendants). */
    cpuMs?: number;
  }
}

/** Milliseconds of CPU that this process's reaped descendants used, from /proc (in clock ticks of 10 ms). */
function descendantsCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // cutime and cstime, the 16th and 17th fields; the ones after the command's name start at the 3rd.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// Wall time on a shared machine says how loaded it was; CPU time says what the file costs. Taken from here (this setup
// file loads before the test file), so a worker that ran another file first does not count that one.
const start = { own: ownCpuMs(), descendants: descendantsCpuMs() };

afterAll((file) => {
  file.meta.cpuMs = ownCpuMs() - start.own + descendantsCpuMs() - start.descendants;
});
