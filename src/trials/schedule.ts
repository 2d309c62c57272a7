import type { Arm } from '../load/config.js';
import type { Case } from '../load/cases.js';
import type { TrialRef } from '../store/run-store.js';

/** What the runner asks for its next trial. Sequential schedulers (SPRT) slot in beside the fixed one. */
export interface TrialScheduler {
  /** The next trial to start, or undefined when none can start until a running one finishes. */
  next(): TrialRef | undefined;
  /** A trial finished; `usable` is false for trials that carry no evidence (infra or isolation errors). */
  finished(ref: TrialRef, passed: boolean | undefined): void;
  /** True when nothing more will ever be scheduled. */
  exhausted(): boolean;
  /** Planned total, for the progress bar (an upper bound for sequential schedulers). */
  plannedTotal(): number;
}

/** Every case × arm × n, in an order that interleaves cases so an early stop still covers the suite. */
export class FixedScheduler implements TrialScheduler {
  private readonly queue: TrialRef[] = [];

  constructor(cases: Case[], arms: readonly Arm[], trials: number) {
    for (let n = 1; n <= trials; n++) {
      for (const c of cases) for (const arm of arms) this.queue.push({ caseId: c.id, arm, n });
    }
    this.total = this.queue.length;
  }

  private readonly total: number;

  next(): TrialRef | undefined {
    return this.queue.shift();
  }

  finished(): void {}

  exhausted(): boolean {
    return this.queue.length === 0;
  }

  plannedTotal(): number {
    return this.total;
  }
}
