import { setTimeout as sleep } from 'node:timers/promises';
import type { Case } from '../load/cases.js';
import type { InitEvent } from '../transcript/types.js';
import type { TrialScheduler } from '../trials/schedule.js';
import { costProjection, etaSeconds } from './eta.js';
import { fixedPace, type Pace } from './pace.js';
import type { Progress, ProgressState } from './progress.js';
import { runTrial, type TrialContext, type TrialRecord } from './trial.js';
import { trialCostUsd } from '../grade/outcome.js';

export interface SuiteRun {
  /** Trials run here. Their transcripts are dropped once graded, so a run holds those of its running trials only. */
  finished: number;
  /** The first init event a trial's transcript held (the CLI's version and model), if any did. */
  init?: InitEvent;
  /** Trials that never started because the run was interrupted. */
  notStarted: number;
}

/** A finished trial as the runner needs it graded: whether it passed (null: no evidence) and why, in words. */
export interface TrialJudgement {
  passed: boolean | null;
  verdict: string;
}

/**
 * Starts trials (`start`, false when the scheduler has none to start now) while fewer than the pace's limit run and
 * no Retry-After holds them, and waits for a trial to finish or the hold to pass; returns once nothing runs and
 * nothing more will start. Once `signal` is aborted nothing starts and the hold no longer counts: it waits only for the
 * running trials (being killed). The wait always goes through the event loop, so a signal, a child's exit and a
 * second Ctrl-C are handled during a hold; an aborted timer resolves at once, and racing it would spin.
 */
export async function fillPool(o: {
  pace: Pick<Pace, 'current' | 'startsAfter'>;
  signal: AbortSignal;
  running: ReadonlySet<Promise<void>>;
  start: () => boolean;
  exhausted: () => boolean;
}): Promise<void> {
  for (;;) {
    const wait = o.signal.aborted ? 0 : o.pace.startsAfter() - Date.now();
    while (wait <= 0 && !o.signal.aborted && o.running.size < o.pace.current() && o.start()) {
      /* fill the pool */
    }
    if (o.running.size === 0 && (wait <= 0 || o.exhausted())) return;
    // A Retry-After holds every start until it passes: a timer wakes the pool then, as a finished trial would.
    const timer = wait > 0 ? sleep(wait, undefined, { signal: o.signal }).catch(() => undefined) : undefined;
    await Promise.race([...o.running, ...(timer ? [timer] : [])]);
  }
}

/**
 * Pulls trials from the scheduler and keeps up to `concurrency` of them running. `judge` grades a finished trial,
 * which sequential schedulers need and progress shows. A trial that fails (its transcript cannot be stored: disk
 * full, folder gone read-only) stops the run at once: the trials still running are killed rather than left to run
 * out their deadlines, they store what they can, and the first error is rethrown.
 */
export async function runSuite(
  ctx: TrialContext,
  cases: Case[],
  scheduler: TrialScheduler,
  progress: Progress,
  judge: (r: TrialRecord) => TrialJudgement,
  /** Trials counted as done without running here (a resumed run's stored ones, replayed by the scheduler). */
  replayed: () => number = () => 0,
  /** How many trials run at once: the config's number, or adaptive (`concurrency: auto`). */
  pace: Pace = fixedPace(typeof ctx.config.concurrency === 'number' ? ctx.config.concurrency : 2),
): Promise<SuiteRun> {
  const byId = new Map(cases.map((c) => [c.id, c]));
  let finished = 0;
  let init: InitEvent | undefined;
  const running = new Set<Promise<void>>();
  let failures = 0;
  const failed = new AbortController();
  const trialCtx: TrialContext = {
    ...ctx,
    signal: AbortSignal.any([ctx.signal, failed.signal]),
    onProviderSignal: (s) => {
      for (const change of pace.providerSaid(s, running.size)) progress.note(`concurrency ${change.from} → ${change.to}: ${change.why}`);
    },
  };
  let firstError: { error: unknown } | undefined;
  const started = Date.now();
  const wallTimes: number[] = [];
  let spentUsd: number | undefined;
  const state = (): ProgressState => {
    const done = finished + replayed();
    const remainingTrials = Math.max(0, scheduler.expectedTotal() - done);
    const eta = etaSeconds({
      finishedWallMs: wallTimes,
      remainingTrials,
      limit: pace.meanLimit(),
      elapsedMs: Date.now() - started,
      finished,
    });
    const cost = spentUsd === undefined ? undefined : costProjection({ spentUsd, finished, remainingTrials });
    return {
      done,
      expectedTotal: scheduler.expectedTotal(),
      plannedTotal: scheduler.plannedTotal(),
      ...scheduler.casesDecided(),
      failures,
      limit: pace.current(),
      ...(eta !== undefined ? { etaSeconds: eta } : {}),
      ...(cost ? { cost } : {}),
    };
  };
  progress.start(state());

  const start = () => {
    const ref = scheduler.next();
    if (!ref) return false;
    const p = runTrial(trialCtx, byId.get(ref.caseId)!, ref).then((r) => {
      // Counted in flight while its evidence is read: the limit grows only when the pool is used.
      for (const change of pace.trialDone(r, running.size)) progress.note(`concurrency ${change.from} → ${change.to}: ${change.why}`);
      finished++;
      if (!init) {
        const first = r.transcript.events.find((e) => e.kind === 'init');
        if (first?.kind === 'init') init = first;
      }
      wallTimes.push(r.meta.wallMs);
      const cost = trialCostUsd(r.transcript);
      if (cost !== undefined) spentUsd = (spentUsd ?? 0) + cost;
      const { passed, verdict } = judge(r);
      if (passed === false && ref.arm === 'skill') failures++;
      scheduler.finished(ref, passed ?? undefined);
      progress.trialDone(ref, verdict, r.meta.wallMs, state());
    });
    const tracked = p
      .catch((error: unknown) => {
        firstError ??= { error };
        failed.abort();
      })
      .finally(() => running.delete(tracked));
    running.add(tracked);
    return true;
  };

  try {
    await fillPool({ pace, signal: trialCtx.signal, running, start, exhausted: () => scheduler.exhausted() });
  } finally {
    // Let in-flight trials finish writing (they were killed on abort) before anything else is torn down.
    await Promise.allSettled(running);
    progress.stop();
  }
  if (firstError) throw firstError.error;
  const notStarted = ctx.signal.aborted && !scheduler.exhausted() ? Math.max(0, scheduler.plannedTotal() - finished) : 0;
  return { finished, ...(init ? { init } : {}), notStarted };
}
