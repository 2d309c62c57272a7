import type { Case } from '../load/cases.js';
import type { TrialScheduler } from '../trials/schedule.js';
import type { Progress } from './progress.js';
import { runTrial, type TrialContext, type TrialRecord } from './trial.js';

export interface SuiteRun {
  records: TrialRecord[];
  /** Trials that never started because the run was interrupted. */
  notStarted: number;
}

/**
 * Pulls trials from the scheduler and keeps up to `concurrency` of them running. `judge` says whether a finished
 * trial passed (undefined when it carries no evidence), which sequential schedulers need.
 */
export async function runSuite(
  ctx: TrialContext,
  cases: Case[],
  scheduler: TrialScheduler,
  progress: Progress,
  judge: (r: TrialRecord) => boolean | undefined,
): Promise<SuiteRun> {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const records: TrialRecord[] = [];
  const running = new Set<Promise<void>>();
  let failures = 0;
  progress.start(scheduler.plannedTotal());

  const start = () => {
    const ref = scheduler.next();
    if (!ref) return false;
    const p = runTrial(ctx, byId.get(ref.caseId)!, ref).then((r) => {
      records.push(r);
      const passed = judge(r);
      if (passed === false || r.status !== 'ok') failures++;
      scheduler.finished(ref, passed);
      progress.setTotal(Math.max(scheduler.plannedTotal(), records.length));
      progress.trialDone(r, records.length, failures);
    });
    const tracked = p.finally(() => running.delete(tracked));
    running.add(tracked);
    return true;
  };

  try {
    for (;;) {
      while (!ctx.signal.aborted && running.size < ctx.config.concurrency && start()) {
        /* fill the pool */
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
  } finally {
    // Let in-flight trials finish writing (they were killed on abort) before anything else is torn down.
    await Promise.allSettled(running);
    progress.stop();
  }
  const notStarted = ctx.signal.aborted && !scheduler.exhausted() ? Math.max(0, scheduler.plannedTotal() - records.length) : 0;
  return { records, notStarted };
}
