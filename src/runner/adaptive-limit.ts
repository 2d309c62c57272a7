/**
 * How many trials may run at once against a real model: a controller fed by what the trials saw of the provider
 * (HTTP 429, 529 and 5xx, finished trials and their wall times). Pure: time comes in the signals (`at`, ms from any
 * origin), nothing is read from the clock or the machine.
 *
 * The shape is additive-increase, multiplicative-decrease (the way TCP shares a link it cannot see): the provider's
 * rate limit is unknown and per credential, a 429 is the only reliable sign of where it lies, and a gentle climb with
 * a firm cut keeps the pool just under it, where it wastes the least time on retries.
 */

export type LimitSignal =
  /** A trial finished with evidence; `at` is when it finished, `wallMs` how long it ran. */
  | { kind: 'ok'; at: number; wallMs: number }
  /** The trial's CLI saw HTTP 429 (during the trial or at its end). */
  | { kind: 'rate_limited'; at: number; retryAfterMs?: number }
  /** HTTP 529, 503 or another 5xx: the provider is busy for everyone, not this credential over its limit. */
  | { kind: 'overloaded'; at: number; retryAfterMs?: number };

/** A change of the limit; `why` is said in words for progress, e.g. "HTTP 429: cut to 9 (×0.8)". */
export interface LimitChange {
  at: number;
  from: number;
  to: number;
  why: string;
}

export interface AdaptiveLimitOptions {
  start: number;
  min: number;
  /** The machine limit (`machineLimit`), or a user's cap below it. */
  max: number;
}

/** The cut on a 429. */
export const CUT = 0.8;
/** The growth per window of successes, as a share of the limit (at least one trial). */
export const GROWTH = 0.05;
/** The share of the pool that must be running for a success to count toward growth. */
export const USED = 0.8;
/** The trial duration assumed before any trial finished: a real model's trial takes 5–30 s. */
export const DEFAULT_TRIAL_MS = 10_000;
/** Finished trials whose wall times set the typical duration: recent ones, so a change of pace shows soon. */
const RECENT = 31;

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export class AdaptiveLimit {
  private limit: number;
  private readonly initial: number;
  private readonly min: number;
  private max: number;
  private after = 0;
  /** When the last cut was made; the 429 episode it opened is still open while `episodeOpen`. */
  private cutAt = Number.NEGATIVE_INFINITY;
  private episodeOpen = false;
  private last429 = Number.NEGATIVE_INFINITY;
  /** Growth waits until then (after a 429 or a 5xx). */
  private holdUntil = Number.NEGATIVE_INFINITY;
  /** Successes toward the next growth step, counted while the pool was well used and the provider quiet. */
  private successes = 0;
  /** The limit the last 429 cut came from: where the provider's limit was last seen. */
  private ceiling: number | undefined;
  private readonly recent: number[] = [];
  private readonly changes: LimitChange[] = [];
  /** Every change made, in order. */
  readonly trace: readonly LimitChange[] = this.changes;

  constructor(o: AdaptiveLimitOptions) {
    this.min = Math.max(1, Math.floor(o.min));
    this.max = Math.max(this.min, Math.floor(o.max));
    this.limit = Math.min(this.max, Math.max(this.min, Math.floor(o.start)));
    this.initial = this.limit;
  }

  /** How many trials may run now. */
  current(): number {
    return this.limit;
  }

  /** The time before which no new trial should start (a Retry-After shared by everyone on the credential), or 0. */
  startsAfter(): number {
    return this.after;
  }

  /**
   * The limit's time average over the `windowMs` before `now`: what the pool really held while the limit swung
   * around the provider's (a cut, the climb back). The ETA's pace; the current limit alone is off by the swing.
   * `windowMs` should be no longer than the run has lasted: before its first change the limit counts as `start`.
   */
  meanLimit(now: number, windowMs: number): number {
    const from = now - windowMs;
    let [level, since, area] = [this.initial, Number.NEGATIVE_INFINITY, 0];
    for (const c of this.changes) {
      if (c.at > now) break;
      area += level * Math.max(0, c.at - Math.max(since, from));
      [level, since] = [c.to, Math.max(c.at, from)];
    }
    area += level * Math.max(0, now - Math.max(since, from));
    return windowMs > 0 ? area / windowMs : level;
  }

  /**
   * The limit the rest of the run is expected to hold, for the ETA: while it is still climbing toward a provider
   * limit it has not met (no 429 yet), the current one, since the past average understates what comes; once it
   * swings around a limit it met, the time average over the window.
   */
  paceLimit(now: number, windowMs: number): number {
    return this.ceiling === undefined ? this.limit : this.meanLimit(now, windowMs);
  }

  /** The typical trial's wall time: the median of recent ones (a few slow trials do not move it). */
  typicalTrialMs(): number {
    return this.recent.length ? median(this.recent) : DEFAULT_TRIAL_MS;
  }

  /**
   * Feeds one signal; returns the change it made, if any. `inFlight` counts the trials running when the signal
   * arrived, the one it comes from included.
   */
  observe(s: LimitSignal, inFlight: number): LimitChange | undefined {
    // A Retry-After speaks for the credential, not the trial: every trial sharing it would be refused until then.
    if (s.kind !== 'ok' && s.retryAfterMs !== undefined && s.retryAfterMs > 0) this.after = Math.max(this.after, s.at + s.retryAfterMs);
    const typical = this.typicalTrialMs();
    if (s.kind === 'overloaded') {
      // 529/5xx is the provider's load, shared by all its users: cutting ours would not relieve it and would not come
      // back by itself. Hold growth for two trials' time, so the pool does not climb into the burst.
      this.holdUntil = Math.max(this.holdUntil, s.at + 2 * typical, this.after);
      this.successes = 0;
      return undefined;
    }
    if (s.kind === 'rate_limited') {
      this.last429 = s.at;
      // No growth for half a typical trial (and not before the Retry-After): by then the pool has drained to the cut
      // level and a success says the new level works, not that the old one finished.
      this.holdUntil = Math.max(this.holdUntil, s.at + typical / 2, this.after);
      this.successes = 0;
      // The trials that were running when the limit was cut still run at the old level and will see 429s of their
      // own; those say nothing new. The episode ends when a trial started after the cut finishes (the new level has
      // been tried) or, failing that, one typical trial duration after the cut.
      if (this.episodeOpen && s.at < this.cutAt + typical) return undefined;
      const to = Math.max(this.min, Math.floor(this.limit * CUT));
      this.cutAt = s.at;
      this.episodeOpen = true;
      this.ceiling = this.limit;
      if (to === this.limit) return undefined;
      return this.change(s.at, to, `HTTP 429: cut to ${to} (×${CUT})`);
    }
    // A finished trial.
    this.recent.push(s.wallMs);
    if (this.recent.length > RECENT) this.recent.shift();
    if (this.episodeOpen && s.at - s.wallMs >= this.cutAt) this.episodeOpen = false;
    // Grow only on evidence that the limit binds (the pool was well used) and that the provider has room (no 429
    // and no 5xx for a while).
    if (inFlight < USED * this.limit || s.at < this.holdUntil || this.limit >= this.max) return undefined;
    const window = this.window();
    if (++this.successes < window) return undefined;
    this.successes = 0;
    const step = Math.max(1, Math.floor(GROWTH * this.limit));
    const to = Math.min(this.max, this.limit + step);
    const quiet = Number.isFinite(this.last429) ? `no 429 for ${seconds(s.at - this.last429)}` : 'no 429 yet';
    return this.change(
      s.at,
      to,
      `grew to ${to} (+${step}: ${window} ${window === 1 ? 'trial' : 'trials'} finished with the pool ≥ ${USED * 100}% used, ${quiet})`,
    );
  }

  /**
   * The successes a growth step waits for. Before any 429 nothing is known of the provider's limit: a step a success
   * (the pool doubles every trial duration, as TCP's slow start does). After one, the limit it was cut from is where
   * the provider's limit lay: the pool climbs back quickly to one below it, waits there two trial durations' worth of
   * successes (the time a probe costs in 429s is repaid by the time spent just under it), then probes one step a
   * round (one success per trial the pool holds: about one trial duration at full use).
   */
  private window(): number {
    if (this.ceiling === undefined) return 1;
    if (this.limit < this.ceiling - 1) return Math.ceil(this.limit / 4);
    if (this.limit < this.ceiling) return 3 * this.limit;
    return this.limit;
  }

  /**
   * A new ceiling, once the machine limit is measured (the CPU a trial needs is known only after the first trials):
   * the limit follows it down at once, and may grow up to it. Returns the change it made, if any.
   */
  setMax(max: number, at: number): LimitChange | undefined {
    this.max = Math.max(this.min, Math.floor(max));
    if (this.limit <= this.max) return undefined;
    return this.change(at, this.max, `machine limit: cut to ${this.max}`);
  }

  private change(at: number, to: number, why: string): LimitChange {
    const c = { at, from: this.limit, to, why };
    this.limit = to;
    this.changes.push(c);
    return c;
  }
}

/** The most trials at once when nothing bounds them: process tables, file descriptors and the log stay readable. */
export const HARD_CAP = 64;
/** The share of free memory the trials may take: the rest is the harness's, the page cache's and the grader's. */
export const MEMORY_SHARE = 0.8;

/**
 * The most trials this machine can run at once, from its cores and free memory and the CPU a trial of this agent
 * needs: `cpuShare` is the measured CPU seconds a trial uses per second of its wall time (0.9 for a CPU-bound
 * simulator trial, 0.05 for a real model's wait-bound one). cores / cpuShare trials saturate the CPU; rounding up
 * keeps every core busy (one trial too many costs a few percent of sharing, an idle core costs its whole share).
 */
export function machineLimit(m: { cores: number; freeMemBytes: number; trialMemBytes: number; cpuShare: number }): number {
  const cores = Math.max(1, m.cores);
  // The epsilon keeps 2 / 1.0000001 from rounding up to a third trial.
  const byCpu = m.cpuShare > 0 ? Math.ceil(cores / m.cpuShare - 1e-6) : HARD_CAP;
  const byMemory = m.trialMemBytes > 0 ? Math.floor((MEMORY_SHARE * Math.max(0, m.freeMemBytes)) / m.trialMemBytes) : HARD_CAP;
  return Math.max(1, Math.min(HARD_CAP, byCpu, byMemory));
}
