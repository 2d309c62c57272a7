/**
 * Where a run's known stopping rule ended a case's skill arm, read from its run folder: the rule (the case's
 * design, a canary's boundaries against its base, a fixed count, then any trials topped up after it) and the end
 * it reached. What every exact test of a stored run starts from.
 */
import type { Interval, RunManifest, StoredCanary } from '../run/schema.js';
import { confidenceSequence } from '../stats/confidence-sequence.js';
import { stagewiseEstimate } from '../stats/stagewise.js';
import { caseDesign } from '../stats/case-design.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { decideSequential, type SequentialDesign } from '../stats/sequential-design.js';
import { fixedTrialsDesign } from '../stats/stopped-binomial.js';
import type { StoppedSample } from '../stats/stopped-two-sample.js';
import type { RunToCompare } from './comparison.js';

type Boundaries = StoredCanary['cases'][number]['design'];

/** Stored boundaries as a design to walk (the rates only name what it tells apart). */
export const boundariesDesign = (b: Boundaries, p0 = 0.5, p1 = 0.5): SequentialDesign => ({ p0, p1, ...b });

/** Trials topped up after every case's design stopped it. */
const addedTrials = (m: Pick<RunManifest, 'topUps'>) => (m.topUps ?? []).reduce((sum, n) => sum + n, 0);

/** The canary a `run --baseline` ran a case under, if it did. */
export const canaryOf = (m: Pick<RunManifest, 'canary'>, caseId: string) => m.canary?.cases.find((c) => c.caseId === caseId);

/** True when a canary run stopped every case at its first regression: the other cases were cut wherever they were. */
function canaryCutShort(r: RunToCompare): boolean {
  const canary = r.manifest.canary;
  if (!canary?.stopAtFirstRegression) return false;
  return canary.cases.some((c) => {
    const sequence = r.results.outcomes
      .filter((o) => o.caseId === c.caseId && o.arm === 'skill' && o.passed !== null)
      .sort((a, b) => a.n - b.n);
    return (
      decideSequential(
        sequence.map((o) => o.passed === true),
        boundariesDesign(c.design),
      ).state === 'reject'
    );
  });
}

/**
 * A fixed run at its scored trials; a sequential one at the scored trial its rule decided on, or at the rule's last
 * stage (trials that finished after it were started before it, and are left out), then the next trials topped up.
 * Undefined, so the case keeps the anytime-valid tests, when the run did not complete (an interruption or a cost cap
 * cuts every case wherever it was, and the rule's null would not hold for the cases that happened to stop), when a
 * canary run stopped at its first regression, or when a top-up has not run in full.
 */
export function stoppedSample(r: RunToCompare, caseId: string, sequence: boolean[]): StoppedSample | undefined {
  if (sequence.length === 0 || r.manifest.status !== 'completed') return undefined;
  const passes = (s: readonly boolean[]) => s.filter(Boolean).length;
  if (!decisionMode(r.results.run.decision.mode).sequential)
    return { design: fixedTrialsDesign(sequence.length), trials: sequence.length, passes: passes(sequence) };
  const def = r.manifest.cases.defs.find((d) => d.id === caseId);
  if (!def || canaryCutShort(r)) return undefined;
  const canary = canaryOf(r.manifest, caseId);
  const design = canary ? boundariesDesign(canary.design) : caseDesign(def);
  const d = decideSequential(sequence, design);
  if (d.state === 'continue' && d.trials < design.maxTrials) return undefined;
  const added = addedTrials(r.manifest);
  if (added === 0) return { design, trials: d.trials, passes: d.passes };
  if (sequence.length < d.trials + added) return undefined;
  return { design, added, trials: d.trials + added, passes: d.passes + passes(sequence.slice(d.trials, d.trials + added)) };
}

/** Each run's share of a difference's error: the level of its own interval, two-sided, for a difference at `confidence`. */
export const sideLevel = (confidence: number) => 1 - (1 - confidence) / 2;

/**
 * One run's interval on a case's rate at two-sided `level`, and its estimate: exact and median-unbiased under the
 * stagewise ordering of the rule that stopped it; the confidence sequence (valid however the run stopped) when no
 * known rule stopped it, or trials were topped up after it (they have no stagewise ordering).
 */
export function rateInterval(
  stopped: StoppedSample | undefined,
  counted: { successes: number; n: number },
  level: number,
): Interval & { rate: number } {
  if (stopped && !stopped.added) {
    const e = stagewiseEstimate(stopped.design, stopped.trials, stopped.passes, level);
    return { rate: e.rate, lo: e.lower, hi: e.upper };
  }
  return {
    rate: counted.n === 0 ? Number.NaN : counted.successes / counted.n,
    ...confidenceSequence(counted.successes, counted.n, 1 - level),
  };
}
