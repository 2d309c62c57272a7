import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem } from 'node:os';
import { AdaptiveLimit, machineLimit, type LimitChange, type LimitSignal } from './adaptive-limit.js';
import type { ProviderSignal } from '../agents/types.js';
import type { TrialRecord } from './trial.js';

/**
 * How many trials may run now and when the next may start: a fixed number (`concurrency: N`), or adaptive to what
 * the provider answers and what the machine can run (`concurrency: auto`).
 */
export interface Pace {
  readonly mode: 'fixed' | 'auto';
  current(): number;
  /** Epoch ms before which no trial should start (a Retry-After shared by every trial on the credential). */
  startsAfter(): number;
  /** A finished trial's evidence; `inFlight` counts it. Returns the changes of the limit it made. */
  trialDone(r: TrialRecord, inFlight: number): LimitChange[];
  /** What a running trial's CLI just said of the provider (a 429 it is retrying). */
  providerSaid(s: ProviderSignal, inFlight: number): LimitChange[];
  /** The limit the rest of the run is expected to hold (`AdaptiveLimit.paceLimit`), for the ETA. */
  meanLimit(): number;
  readonly trace: readonly LimitChange[];
}

export function fixedPace(n: number): Pace {
  return {
    mode: 'fixed',
    current: () => n,
    startsAfter: () => 0,
    trialDone: () => [],
    providerSaid: () => [],
    meanLimit: () => n,
    trace: [],
  };
}

/** What a finished trial says of the provider: a 429 it met, a 529 or 5xx, or a normal finish. */
export function limitSignal(r: TrialRecord, at: number): LimitSignal {
  const errors = r.transcript.events.flatMap((e) => (e.kind === 'error' ? [e] : []));
  if (errors.some((e) => e.errorKind === 'rate_limit' || e.httpStatus === 429)) return { kind: 'rate_limited', at };
  if (errors.some((e) => e.errorKind === 'overloaded' || e.errorKind === 'server_error' || (e.httpStatus ?? 0) >= 500))
    return { kind: 'overloaded', at };
  return { kind: 'ok', at, wallMs: r.meta.wallMs };
}

/**
 * What a trial of this agent takes of the machine: a CLI starting and streaming is CPU-heavy, and each holds its own
 * memory. The memory is a measured peak (a Claude Code trial's node process peaked near 300 MB here), rounded up.
 */
const TRIAL_MEMORY_BYTES = 512 * 1024 * 1024;

/**
 * CPU milliseconds this process's finished children used (every trial's CLI, waited for, with the processes it waited
 * for): Linux's `cutime + cstime` in /proc/self/stat, at its 100 ticks a second. Other load on a shared machine is not
 * counted. Elsewhere, the whole machine's busy time stands in.
 */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
  }
}

/**
 * `concurrency: auto`. It starts at one trial per core, and measures over that first wave, uncontended, how much CPU a
 * trial takes per second of its wall time. The machine's limit is then set from the cores, free memory and that
 * share, and the provider's answers move the limit below it.
 */
export function adaptivePace(now: () => number = Date.now): Pace {
  const cores = availableParallelism();
  const limit = new AdaptiveLimit({
    start: cores,
    min: 1,
    max: machineLimit({ cores, freeMemBytes: freemem(), trialMemBytes: TRIAL_MEMORY_BYTES, cpuShare: 1 / 16 }),
  });
  const firstWave = { busyAt: childrenCpuMs(), wallMs: 0, trials: 0, measured: false };
  const startedAt = now();
  return {
    mode: 'auto',
    current: () => limit.current(),
    startsAfter: () => limit.startsAfter(),
    meanLimit: () => limit.paceLimit(now(), Math.min(now() - startedAt, 120_000)),
    trace: limit.trace,
    providerSaid(s, inFlight) {
      const change = limit.observe(
        { kind: s.kind, at: now(), ...(s.retryAfterMs !== undefined ? { retryAfterMs: s.retryAfterMs } : {}) },
        inFlight,
      );
      return change ? [change] : [];
    },
    trialDone(r, inFlight) {
      const at = now();
      const changes: LimitChange[] = [];
      if (!firstWave.measured) {
        firstWave.wallMs += r.meta.wallMs;
        if (++firstWave.trials >= cores) {
          firstWave.measured = true;
          const cpuShare = Math.max(0.01, (childrenCpuMs() - firstWave.busyAt) / Math.max(1, firstWave.wallMs));
          const capped = limit.setMax(machineLimit({ cores, freeMemBytes: freemem(), trialMemBytes: TRIAL_MEMORY_BYTES, cpuShare }), at);
          if (capped) changes.push(capped);
        }
      }
      const observed = limit.observe(limitSignal(r, at), inFlight);
      return observed ? [...changes, observed] : changes;
    },
  };
}
