// bench/concurrency: the adaptive limit (`auto`: AdaptiveLimit fed by the trials' signals, its ceiling the machine
// limit) against every fixed concurrency 1–32, in an in-process discrete-event simulation with a virtual clock: no
// processes, no sleeping, every draw seeded by the trial it belongs to (so every policy sees the same trials).
//
// Latency-bound suite: a real model. A trial is one request, lognormal (median 8 s, p95 20 s); the provider answers
// at most 12 concurrent requests and refuses the rest with HTTP 429 and a Retry-After; the CLI retries a 429 itself
// after the Retry-After, at most twice, then the attempt is an infra error that the harness runs again (never scored).
// CPU-bound suite: the simulator. No latency; a trial needs 0.9 CPU-s a second of its solo wall time on a 2-core
// machine, and the cores are shared equally among the running trials (processor sharing), with a small cost for each
// trial beyond the cores. Both suites are a sequential design's: each case stops at a seeded point between 6 and 20
// trials, so the planned maximum is well above what runs; the ETA is given the expected remaining.
import { AdaptiveLimit, machineLimit } from '../dist/runner/adaptive-limit.js';
import { etaSeconds } from '../dist/runner/eta.js';

const SEED = Number(process.env.CONC_SEED ?? 2026);
const CASES = 60;
const [MIN_TRIALS, MAX_TRIALS] = [6, 20];
const LATENCY = { medianMs: 8000, p95Ms: 20_000 };
const SIGMA = Math.log(LATENCY.p95Ms / LATENCY.medianMs) / 1.6449;
const PROVIDER_CAP = 12;
const RETRY_AFTER_MS = 2000;
const CLI_RETRIES = 2;
const CORES = 2;
const CPU_SHARE = 0.9;
/** A real model's trial: the CLI's own CPU while it starts and streams, per second of the trial's wall time. */
const WAIT_SHARE = 0.05;
const MACHINE = { cores: CORES, freeMemBytes: 16 * 2 ** 30, trialMemBytes: 400 * 2 ** 20 };
/** Each trial beyond the cores costs this share of the CPU (switching, caches). */
const OVERSUBSCRIPTION = 0.02;
const CPU_SOLO = { medianMs: 4000, sigma: 0.3 };
const BURST = { fromMs: 240_000, toMs: 270_000, share: 0.2 };
const FIXED = Array.from({ length: 32 }, (_, i) => i + 1);
/** The window of the limit's time average that the ETA reads (AdaptiveLimit.meanLimit). */
const ETA_LIMIT_WINDOW_MS = 120_000;
const TARGET = { latencyBest: 1.15, latencyFixed2: 0.25, share429: 0.05, cpuBest: 1.1, eta: 0.2 };

/** A uniform draw in [0, 1) from the seed and integer labels (splitmix-style mixing). */
function uniform(...labels) {
  let h = BigInt(SEED) ^ 0x9e3779b97f4a7c15n;
  for (const l of labels) {
    h = (h ^ BigInt(l)) * 0xbf58476d1ce4e5b9n;
    h &= 0xffffffffffffffffn;
    h ^= h >> 31n;
    h = (h * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    h ^= h >> 29n;
  }
  return Number(h >> 11n) / 2 ** 53;
}
const normal = (...labels) => Math.sqrt(-2 * Math.log(1 - uniform(...labels, 1))) * Math.cos(2 * Math.PI * uniform(...labels, 2));

/** The suite: each case's stopping point, seeded; the planned maximum is MAX_TRIALS a case. */
const STOPS = Array.from({ length: CASES }, (_, c) => MIN_TRIALS + Math.floor(uniform(7, c) * (MAX_TRIALS - MIN_TRIALS + 1)));
const TOTAL = STOPS.reduce((a, b) => a + b, 0);
const PLANNED = CASES * MAX_TRIALS;
/** E[k − f | k > f] for k uniform on MIN..MAX: what a case with f finished and no decision is expected to take more. */
const expectedMore = (f) => {
  const lo = Math.max(MIN_TRIALS, f + 1);
  return lo > MAX_TRIALS ? 0 : (lo + MAX_TRIALS) / 2 - f;
};

/** The trials' order (round-robin over undecided cases), their progress, and the sequential design's expected remaining. */
class Suite {
  constructor() {
    this.issued = STOPS.map(() => 0);
    this.finished = STOPS.map(() => 0);
    this.retry = [];
    this.cursor = 0;
    this.done = 0;
  }
  next() {
    if (this.retry.length) return this.retry.shift();
    for (let i = 0; i < CASES; i++) {
      const c = (this.cursor + i) % CASES;
      if (this.issued[c] < STOPS[c]) {
        this.cursor = c + 1;
        return { c, n: this.issued[c]++ };
      }
    }
    return undefined;
  }
  scored(t) {
    this.finished[t.c]++;
    this.done++;
  }
  /** The expected remaining as the scheduler would see it: a case is known decided once its stopping trial finished. */
  expectedRemaining() {
    return STOPS.reduce((s, k, c) => {
      const f = this.finished[c];
      return s + (f >= k ? 0 : Math.max(this.issued[c] - f, expectedMore(f)));
    }, 0);
  }
}

/** A binary heap of events by time (ties by insertion order). */
class Events {
  constructor() {
    this.h = [];
    this.seq = 0;
  }
  push(at, e) {
    const h = this.h;
    h.push({ at, seq: this.seq++, e });
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (less(h[p], h[i])) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }
  pop() {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length) {
      h[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
  get size() {
    return this.h.length;
  }
}
const less = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** Records the ETA (and the naive one) when a quarter and a half of the trials have finished. */
class EtaProbe {
  constructor() {
    this.walls = [];
    this.samples = [];
  }
  /** `limit`: the fixed concurrency, or the adaptive limit (its recent time average is what the pool held). */
  finished(now, wallMs, suite, limit) {
    this.walls.push(wallMs);
    for (const share of [0.25, 0.5]) {
      if (this.samples.some((s) => s.share === share) || suite.done < share * TOTAL) continue;
      const pace = typeof limit === 'number' ? limit : limit.paceLimit(now, Math.min(now, ETA_LIMIT_WINDOW_MS));
      const eta = etaSeconds({
        finishedWallMs: this.walls,
        remainingTrials: suite.expectedRemaining(),
        limit: pace,
        elapsedMs: now,
        finished: suite.done,
      });
      const naive = ((now / suite.done) * (PLANNED - suite.done)) / 1000;
      this.samples.push({ share, at: now, eta, naive, remaining: suite.expectedRemaining() / (TOTAL - suite.done) - 1 });
    }
  }
  errors(endMs) {
    return this.samples.map((s) => {
      const truth = (endMs - s.at) / 1000;
      return {
        share: s.share,
        eta: Math.abs((s.eta ?? Number.NaN) - truth) / truth,
        naive: Math.abs(s.naive - truth) / truth,
        remaining: s.remaining,
      };
    });
  }
}

/** The latency-bound suite under a policy: a fixed concurrency, or 'auto'. `burst`: a window of 529s. */
function latencyRun(policy, burst) {
  const suite = new Suite();
  const events = new Events();
  const eta = new EtaProbe();
  const auto = policy === 'auto' ? new AdaptiveLimit({ start: CORES, min: 1, max: machineLimit({ ...MACHINE, cpuShare: 1 }) }) : undefined;
  const limit = () => (auto ? auto.current() : policy);
  let [now, inFlight, active, requests, r429, r529, reruns, rateLimitedScored, measured] = [0, 0, 0, 0, 0, 0, 0, 0, false];
  const affected = new Set();
  const rerun = new Set();
  let wakeAt = -1;

  const request = (t) => {
    requests++;
    const key = [t.c, t.n, t.attempt, t.tries];
    if (burst && now >= burst.fromMs && now < burst.toMs && uniform(...key, 529) < burst.share) {
      // 529: the provider is overloaded; the CLI gives up the attempt at once and the harness runs it again.
      r529++;
      return events.push(now + 200, { kind: 'overloaded', t });
    }
    if (active >= PROVIDER_CAP) {
      r429++;
      t.saw429 = true;
      auto?.observe({ kind: 'rate_limited', at: now, retryAfterMs: RETRY_AFTER_MS }, inFlight);
      if (t.tries++ >= CLI_RETRIES) return events.push(now, { kind: 'gave-up', t });
      return events.push(now + RETRY_AFTER_MS, { kind: 'retry', t });
    }
    active++;
    events.push(now + LATENCY.medianMs * Math.exp(SIGMA * normal(...key)), { kind: 'answer', t });
  };

  const fill = () => {
    const after = auto?.startsAfter() ?? 0;
    if (now < after) {
      if (wakeAt < after) events.push((wakeAt = after), { kind: 'wake' });
      return;
    }
    while (inFlight < limit()) {
      const ref = suite.next();
      if (!ref) return;
      inFlight++;
      const t = { ...ref, attempt: (ref.attempt ?? -1) + 1, tries: 0, startedAt: now, saw429: false };
      request(t);
    }
  };

  const endAttempt = (t, kind) => {
    inFlight--;
    if (kind === 'overloaded') affected.add(`${t.c}/${t.n}`);
    reruns++;
    rerun.add(`${t.c}/${t.n}`);
    suite.retry.push({ c: t.c, n: t.n, attempt: t.attempt });
    auto?.observe({ kind: kind === 'overloaded' ? 'overloaded' : 'rate_limited', at: now }, inFlight + 1);
  };

  fill();
  while (events.size) {
    const { at, e } = events.pop();
    now = at;
    if (e.kind === 'answer') {
      active--;
      const wall = now - e.t.startedAt;
      // Scored: the attempt ended with the model's answer. An attempt that gave up on 429s never gets here.
      suite.scored(e.t);
      if (e.t.gaveUp) rateLimitedScored++;
      auto?.observe({ kind: 'ok', at: now, wallMs: wall }, inFlight);
      inFlight--;
      if (auto && !measured && suite.done >= CORES) {
        // The first trials ran side by side with the cores to spare: their CPU per wall second is the trial's own.
        measured = true;
        auto.setMax(machineLimit({ ...MACHINE, cpuShare: WAIT_SHARE }), now);
      }
      eta.finished(now, wall, suite, auto ?? policy);
    } else if (e.kind === 'retry') request(e.t);
    else if (e.kind === 'gave-up') {
      e.t.gaveUp = true;
      endAttempt(e.t, 'rate_limited');
    } else if (e.kind === 'overloaded') endAttempt(e.t, 'overloaded');
    fill();
  }
  const lost = TOTAL - suite.done;
  const reranAll = [...affected].every((k) => rerun.has(k));
  return {
    ms: now,
    requests,
    r429,
    r529,
    reruns,
    affected: affected.size,
    reranAll,
    rateLimitedScored,
    lost,
    eta: eta.errors(now),
    trace: auto?.trace ?? [],
  };
}

/** The CPU-bound suite under a policy: processor sharing of CORES among the running trials. */
function cpuRun(policy) {
  const suite = new Suite();
  const eta = new EtaProbe();
  const auto = policy === 'auto' ? new AdaptiveLimit({ start: CORES, min: 1, max: machineLimit({ ...MACHINE, cpuShare: 1 }) }) : undefined;
  const limit = () => (auto ? auto.current() : policy);
  const running = [];
  let [now, measured] = [0, false];
  const fill = () => {
    while (running.length < limit()) {
      const ref = suite.next();
      if (!ref) return;
      const solo = CPU_SOLO.medianMs * Math.exp(CPU_SOLO.sigma * normal(ref.c, ref.n, 3));
      running.push({ ...ref, work: CPU_SHARE * solo, startedAt: now });
    }
  };
  fill();
  while (running.length) {
    const n = running.length;
    const capacity = CORES / (1 + OVERSUBSCRIPTION * Math.max(0, n - CORES));
    const rate = Math.min(CPU_SHARE, capacity / n);
    const first = running.reduce((a, b) => (b.work < a.work ? b : a));
    const dt = first.work / rate;
    now += dt;
    for (const t of running) t.work -= dt * rate;
    running.splice(running.indexOf(first), 1);
    suite.scored(first);
    const wall = now - first.startedAt;
    auto?.observe({ kind: 'ok', at: now, wallMs: wall }, running.length + 1);
    if (auto && !measured && suite.done >= CORES) {
      measured = true;
      auto.setMax(machineLimit({ ...MACHINE, cpuShare: CPU_SHARE }), now);
    }
    eta.finished(now, wall, suite, auto ?? policy);
    fill();
  }
  return { ms: now, lost: TOTAL - suite.done, eta: eta.errors(now), trace: auto?.trace ?? [] };
}

function sweep(run) {
  const fixed = FIXED.map((c) => ({ c, ...run(c) }));
  const best = fixed.reduce((a, b) => (b.ms < a.ms ? b : a));
  return { auto: run('auto'), fixed, best, two: fixed[1] };
}

export function benchConcurrency() {
  const t0 = performance.now();
  const latency = sweep((p) => latencyRun(p));
  const cpu = sweep(cpuRun);
  const burst = latencyRun('auto', BURST);
  const burstFree = latency.auto;
  return { latency, cpu, burst, burstFree, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const mins = (ms) => `${(ms / 60_000).toFixed(1)} min`;
const met = (ok) => (ok ? 'met' : 'NOT MET');

function printEta(label, errors) {
  const at = (share) => errors.find((e) => e.share === share);
  const [q, h] = [at(0.25), at(0.5)];
  const ok = Math.max(q.eta, h.eta) <= TARGET.eta;
  console.log(
    `          ETA error, ${label}: at 25% ${pct(q.eta)}, at 50% ${pct(h.eta)} of the true remaining (target ≤ ${pct(TARGET.eta)}: ${met(ok)}; the design's expected remaining trials were off by ${pct(q.remaining)}, ${pct(h.remaining)}) · naive (elapsed/finished × planned max): ${pct(q.naive)}, ${pct(h.naive)}`,
  );
  return ok;
}

export function printConcurrency({ latency: l, cpu: c, burst: b, seconds }) {
  const sweepLine = (s) => s.fixed.map((f) => `${f.c}:${(f.ms / 60_000).toFixed(1)}`).join(' ');
  console.log(
    `concurrency  ${CASES} cases stopping at 6–20 trials (${TOTAL} trials, planned max ${PLANNED}); simulated, virtual clock, seed ${SEED}; ${seconds.toFixed(1)} s`,
  );
  const [la, lb, l2] = [l.auto, l.best, l.two];
  const [rBest, r2, share] = [la.ms / lb.ms, la.ms / l2.ms, la.r429 / la.requests];
  const limits = la.trace.map((t) => t.to);
  console.log(
    `          latency-bound (median 8 s, p95 20 s, provider cap ${PROVIDER_CAP}, Retry-After ${RETRY_AFTER_MS / 1000} s): auto ${mins(la.ms)} · best fixed ${lb.c} ${mins(lb.ms)} · fixed 2 ${mins(l2.ms)}`,
  );
  console.log(`          fixed 1–32 (min): ${sweepLine(l)}`);
  console.log(
    `          auto/best ${rBest.toFixed(3)} (target ≤ ${TARGET.latencyBest}: ${met(rBest <= TARGET.latencyBest)}) · auto/fixed 2 ${r2.toFixed(3)} (target ≤ ${TARGET.latencyFixed2}: ${met(r2 <= TARGET.latencyFixed2)}) · limit ${limits[0] ?? '-'}…${Math.max(...limits)} max, ${la.trace.length} changes, last ${limits.at(-1)}`,
  );
  const fixed16 = l.fixed[15];
  console.log(
    `          429s: auto ${la.r429}/${la.requests} requests = ${pct(share)} (target ≤ ${pct(TARGET.share429)}: ${met(share <= TARGET.share429)}; fixed 16: ${pct(fixed16.r429 / fixed16.requests)}, ${fixed16.reruns} attempts re-run) · auto re-runs ${la.reruns} · scored from a rate-limited attempt ${la.rateLimitedScored} (must be 0: ${met(la.rateLimitedScored === 0)}) · trials lost ${la.lost} (${met(la.lost === 0)})`,
  );
  const etaL = printEta('latency-bound auto', la.eta);
  const [ca, cb] = [c.auto, c.best];
  const rCpu = ca.ms / cb.ms;
  console.log(
    `          CPU-bound (0.9 CPU-s/s on ${CORES} cores, processor sharing): auto ${mins(ca.ms)} (limit ${ca.trace.at(-1)?.to ?? '-'}) · best fixed ${cb.c} ${mins(cb.ms)} · fixed 2 ${mins(c.two.ms)} · auto/best ${rCpu.toFixed(3)} (target ≤ ${TARGET.cpuBest}: ${met(rCpu <= TARGET.cpuBest)}) · lost ${ca.lost}`,
  );
  console.log(`          fixed 1–32 (min): ${sweepLine(c)}`);
  const etaC = printEta('CPU-bound auto', ca.eta);
  const before = b.trace.filter((t) => t.at < BURST.fromMs).at(-1)?.to;
  const cuts = b.trace.filter((t) => t.at >= BURST.fromMs && t.to < t.from);
  const noCut = cuts.every((t) => t.why.startsWith('HTTP 429'));
  const burstOk = noCut && b.reranAll && b.rateLimitedScored === 0 && b.lost === 0;
  console.log(
    `          529 burst (${pct(BURST.share)} of requests for ${(BURST.toMs - BURST.fromMs) / 1000} s from ${BURST.fromMs / 1000} s): ${b.r529} answered 529, ${b.affected} trials affected, all re-run ${b.reranAll} · limit ${before} before, cuts for 529: ${cuts.filter((t) => !t.why.startsWith('HTTP 429')).length} · scored as a miss 0 of ${b.affected} (the 529 attempts end unscored) · lost ${b.lost} · auto ${mins(b.ms)} (${mins(l.auto.ms)} without the burst): ${met(burstOk)}`,
  );
  return { ok: etaL && etaC && burstOk };
}

if (import.meta.url === `file://${process.argv[1]}`) printConcurrency(benchConcurrency());
