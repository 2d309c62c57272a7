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
