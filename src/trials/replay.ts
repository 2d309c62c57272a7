import { trialKey, type TrialRef } from '../run/schema.js';
import type { TrialScheduler } from './schedule.js';

/** A scheduler wrapped to change what it hands out; everything else is the wrapped one's. */
abstract class WrappedScheduler implements TrialScheduler {
  constructor(protected readonly inner: TrialScheduler) {}

  abstract next(): TrialRef | undefined;

  finished(ref: TrialRef, passed: boolean | undefined): void {
    this.inner.finished(ref, passed);
  }

  exhausted(): boolean {
    return this.inner.exhausted();
  }

  plannedTotal(): number {
    return this.inner.plannedTotal();
  }

  expectedTotal(): number {
    return this.inner.expectedTotal();
  }

  casesDecided(): { decided: number; cases: number } {
    return this.inner.casesDecided();
  }
}

/**
 * Feeds a scheduler the trials an interrupted run already stored, in the order the scheduler asks for them,
 * and hands out only the rest: a resumed run takes the same decisions as an uninterrupted one with the same
 * trial outcomes. `stored` maps a trial key to its result (undefined: no evidence).
 */
export class ReplayingScheduler extends WrappedScheduler {
  readonly replayed: TrialRef[] = [];

  constructor(
    inner: TrialScheduler,
    private readonly stored: ReadonlyMap<string, boolean | undefined>,
  ) {
    super(inner);
  }

  next(): TrialRef | undefined {
    for (;;) {
      const ref = this.inner.next();
      if (!ref || !this.stored.has(trialKey(ref))) return ref;
      this.inner.finished(ref, this.stored.get(trialKey(ref)));
      this.replayed.push(ref);
    }
  }
}

/** Stops handing out trials once the trials' reported costs reach `maxUsd`; running trials finish. */
export class CostCappedScheduler extends WrappedScheduler {
  constructor(
    inner: TrialScheduler,
    private readonly maxUsd: number,
    private spentUsd = 0,
  ) {
    super(inner);
  }

  /** The cap was reached: what is left unscheduled stays so. */
  get capped(): boolean {
    return this.spentUsd >= this.maxUsd;
  }

  get spent(): number {
    return this.spentUsd;
  }

  spend(usd: number | undefined): void {
    this.spentUsd += usd ?? 0;
  }

  next(): TrialRef | undefined {
    return this.capped ? undefined : this.inner.next();
  }

  override exhausted(): boolean {
    return this.capped || this.inner.exhausted();
  }
}

/**
 * Stops handing out trials when the run's first trials all failed the isolation check; running trials finish. An
 * isolation error is no chance event: it says the CLI listed the family wrongly in an arm (a skill missing, one from
 * outside it shown), which holds for every trial of that arm alike, so no later trial could be scored either. The
 * first trials are the first `firstTrials` this process finishes: the first wave (the trials that start together,
 * already spent when the first ends), and at least three, so one trial's fault never stops a run of one at a time.
 */
export class IsolationStopScheduler extends WrappedScheduler {
  private seen = 0;
  private readonly details = new Map<string, number>();
  /** Why the run stopped, once it has: each isolation problem the first trials named, with how many named it. */
  stoppedBecause?: string;

  constructor(
    inner: TrialScheduler,
    private readonly firstTrials: number,
  ) {
    super(inner);
  }

  /** A trial this process ran ended with `status` (its detail naming what the isolation check found). */
  trialEnded(status: string, detail: string | undefined): void {
    if (this.seen >= this.firstTrials) return;
    this.seen++;
    // One trial the check passed (or that failed for another reason) shows the family can be run: watch no more.
    if (status !== 'isolation_error') {
      this.seen = this.firstTrials;
      return;
    }
    const said = detail ?? 'no detail';
    this.details.set(said, (this.details.get(said) ?? 0) + 1);
    if (this.seen === this.firstTrials)
      this.stoppedBecause = [...this.details].map(([what, n]) => (n === this.seen ? what : `${what} (${n} of ${this.seen})`)).join('; ');
  }

  next(): TrialRef | undefined {
    return this.stoppedBecause === undefined ? this.inner.next() : undefined;
  }

  override exhausted(): boolean {
    return this.stoppedBecause !== undefined || this.inner.exhausted();
  }
}
