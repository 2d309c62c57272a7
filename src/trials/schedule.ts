import { NO_SKILL } from '../load/skills.js';
import type { Arm, Config } from '../run/config-schema.js';
import { caseDesign } from '../stats/case-design.js';
import { decideSequential, expectedRemainingTrials, type SequentialDesign } from '../stats/sequential-design.js';
import type { GradableCase, TrialRef } from '../run/schema.js';

/** What the runner asks for its next trial. The sequential scheduler slots in beside the fixed one. */
export interface TrialScheduler {
  /** The next trial to start, or undefined when none can start until a running one finishes. */
  next(): TrialRef | undefined;
  /** A trial finished; `passed` is undefined for trials that carry no evidence (infra or isolation errors). */
  finished(ref: TrialRef, passed: boolean | undefined): void;
  /** True when nothing more will ever be scheduled. */
  exhausted(): boolean;
  /** Planned total: an upper bound for sequential schedulers. */
  plannedTotal(): number;
  /** Trials this run is expected to take, all arms: exact for fixed designs, the exact expectation from the current state for sequential ones. */
  expectedTotal(): number;
  /** Cases that are over: decided (or out of trials) with none of their trials still running. */
  casesDecided(): { decided: number; cases: number };
}

/**
 * The arms a case runs in. Without the skill only plan checks can be scored, so with `ablation: scored` the
 * ablation arm runs only for positive cases that have them: no trial is paid for that nothing reads.
 */
export function armsFor(c: Pick<GradableCase, 'expect' | 'plan'>, arms: readonly Arm[], ablation: Config['ablation']): Arm[] {
  const scored = c.expect !== NO_SKILL && c.plan !== undefined;
  return arms.filter((a) => a === 'skill' || ablation === 'always' || scored);
}

/** Every case × arm × n, in an order that interleaves cases so an early stop still covers the suite. */
export class FixedScheduler implements TrialScheduler {
  private readonly queue: TrialRef[] = [];
  private readonly total: number;
  /** Trials still to finish, per case. */
  private readonly open = new Map<string, number>();

  constructor(cases: GradableCase[], arms: readonly Arm[], trials: number, ablation: Config['ablation']) {
    for (let n = 1; n <= trials; n++) {
      for (const c of cases) for (const arm of armsFor(c, arms, ablation)) this.queue.push({ caseId: c.id, arm, n });
    }
    for (const ref of this.queue) this.open.set(ref.caseId, (this.open.get(ref.caseId) ?? 0) + 1);
    this.total = this.queue.length;
  }

  next(): TrialRef | undefined {
    return this.queue.shift();
  }

  finished(ref: TrialRef): void {
    this.open.set(ref.caseId, (this.open.get(ref.caseId) ?? 1) - 1);
  }

  expectedTotal(): number {
    return this.total;
  }

  casesDecided(): { decided: number; cases: number } {
    return { decided: [...this.open.values()].filter((left) => left === 0).length, cases: this.open.size };
  }

  exhausted(): boolean {
    return this.queue.length === 0;
  }

  plannedTotal(): number {
    return this.total;
  }
}

interface SequentialCase {
  id: string;
  withAblation: boolean;
  design: SequentialDesign;
  /** Scored trials to run after the design stopped the case (`--add-trials`). */
  added: number;
  /** Scored trials at which the design stopped it, once it has. */
  stoppedAt?: number;
  /** Next skill-arm trial number to schedule. */
  next: number;
  inFlight: number;
  /** Skill-arm results by trial number: true/false, or null for trials that carry no evidence. */
  results: Map<number, boolean | null>;
  done: boolean;
}

/** How a sequential run departs from each case's own design. */
export interface SequentialOptions {
  /** Boundaries that stop these cases instead of their own designs (a canary against a stored base). */
  designs?: ReadonlyMap<string, SequentialDesign>;
  /** Stop scheduling every case once one of the `designs` cases reaches its reject boundary. */
  stopAtFirstReject?: boolean;
  /** Scored trials each case runs after its design stopped it (a top-up of a finished run). */
  added?: number;
}

/**
 * A sequential design per case (the optimal one, or Wald's): trials are scheduled only for undecided cases, and
 * each case stops at its boundary, then runs `added` more trials if asked to.
 * The test consumes skill-arm results in trial-number order (the contiguous prefix that has finished), so the
 * decision does not depend on which trial happened to finish first. The ablation arm runs trial n beside the
 * skill arm's trial n, so pairs stay intact.
 */
export class SequentialScheduler implements TrialScheduler {
  private readonly cases: SequentialCase[];
  private readonly companions: TrialRef[] = [];
  /** Cases whose reject boundary stops the whole run. */
  private readonly stoppingIds: ReadonlySet<string>;

  constructor(
    cases: Pick<GradableCase, 'id' | 'decision' | 'design' | 'expect' | 'plan'>[],
    arms: readonly Arm[],
    ablation: Config['ablation'],
    options: SequentialOptions = {},
  ) {
    this.stoppingIds = new Set(options.stopAtFirstReject ? options.designs?.keys() : []);
    this.cases = cases.map((c) => ({
      id: c.id,
      withAblation: armsFor(c, arms, ablation).includes('ablation'),
      design: options.designs?.get(c.id) ?? caseDesign(c),
      added: options.added ?? 0,
      next: 1,
      inFlight: 0,
      results: new Map(),
      done: false,
    }));
  }

  private scored(c: SequentialCase): boolean[] {
    const seq: boolean[] = [];
    for (let n = 1; c.results.has(n); n++) {
      const r = c.results.get(n);
      if (r !== null && r !== undefined) seq.push(r);
    }
    return seq;
  }

  /** Scored trials the case may take: its design's maximum, or where the design stopped it plus the top-up. */
  private budget(c: SequentialCase): number {
    return c.stoppedAt === undefined ? c.design.maxTrials : c.stoppedAt + c.added;
  }

  private canSchedule(c: SequentialCase): boolean {
    if (c.done) return false;
    const scored = [...c.results.values()].filter((r) => r !== null).length;
    // Replace trials that carried no evidence, but never beyond twice the budget.
    return scored + c.inFlight < this.budget(c) && c.next <= 2 * (c.design.maxTrials + c.added);
  }

  next(): TrialRef | undefined {
    while (this.companions.length) {
      const ref = this.companions.shift()!;
      if (!this.cases.find((c) => c.id === ref.caseId)!.done) return ref;
    }
    const open = this.cases.filter((c) => this.canSchedule(c));
    if (open.length === 0) return undefined;
    const c = open.reduce((a, b) => (b.inFlight < a.inFlight || (b.inFlight === a.inFlight && b.next < a.next) ? b : a));
    const ref: TrialRef = { caseId: c.id, arm: 'skill', n: c.next++ };
    c.inFlight++;
    if (c.withAblation) this.companions.push({ caseId: c.id, arm: 'ablation', n: ref.n });
    return ref;
  }

  finished(ref: TrialRef, passed: boolean | undefined): void {
    if (ref.arm !== 'skill') return;
    const c = this.cases.find((x) => x.id === ref.caseId);
    if (!c) return;
    c.inFlight--;
    c.results.set(ref.n, passed ?? null);
    const values = [...c.results.values()];
    const excluded = values.filter((r) => r === null).length;
    const allNoEvidence = excluded >= c.design.minTrials && values.every((r) => r === null);
    if (allNoEvidence) c.done = true;
    if (c.done || c.stoppedAt !== undefined) return;
    const d = decideSequential(this.scored(c), c.design);
    if (d.state === 'continue' && d.trials < c.design.maxTrials) return;
    if (c.added > 0) c.stoppedAt = d.trials;
    else c.done = true;
    if (d.state === 'reject' && this.stoppingIds.has(c.id)) for (const other of this.cases) other.done = true;
  }

  exhausted(): boolean {
    return this.companions.length === 0 && this.cases.every((c) => !this.canSchedule(c));
  }

  plannedTotal(): number {
    return this.cases.reduce(
      (sum, c) => sum + (c.done ? c.next - 1 : Math.max(c.next - 1, c.design.maxTrials + c.added)) * (c.withAblation ? 2 : 1),
      0,
    );
  }

  expectedTotal(): number {
    return this.cases.reduce((sum, c) => {
      const scored = [...c.results.values()].filter((r): r is boolean => r !== null && r !== undefined);
      const from = { trials: scored.length, passes: scored.filter(Boolean).length };
      const remaining = c.stoppedAt !== undefined ? this.budget(c) - from.trials : expectedRemainingTrials(c.design, from) + c.added;
      const expected = c.done || !this.canSchedule(c) ? 0 : c.results.size + remaining;
      return sum + Math.max(c.next - 1, Math.round(expected)) * (c.withAblation ? 2 : 1);
    }, 0);
  }

  casesDecided(): { decided: number; cases: number } {
    return { decided: this.cases.filter((c) => (c.done || !this.canSchedule(c)) && c.inFlight === 0).length, cases: this.cases.length };
  }
}
