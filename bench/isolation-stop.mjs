// bench/isolation-stop: how often the early stop on isolation errors stops a run it should not, and what it saves
// when it should. A run stops when its first N finished trials (the first wave: the trials that start together, at
// least three) all failed the isolation check.
//   false stop: isolation errors as chance events, each trial independently with probability q (a setup that holds,
//               with a CLI that now and then lists skills late): exactly q^N, confirmed by seeded runs of the
//               product's IsolationStopScheduler; beside the simpler rule "stop at the first isolation error" (q).
//   saving:     a systematic fault (every trial an isolation error, as a hidden skill makes it): the stop comes after
//               exactly N trials (plus those in flight), against the whole planned run without it.
// ISOLATION_REPS sets the simulated repetitions per setting.
import { IsolationStopScheduler } from '../dist/trials/replay.js';
import { FixedScheduler } from '../dist/trials/schedule.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.ISOLATION_REPS ?? 20000);
const SEED = 32;
const CASES = Array.from({ length: 11 }, (_, i) => ({ id: `c${i}`, expect: 'alpha', exclusive: false, tags: [] }));
const TRIALS = 10;
const FAULT_RATES = [0.01, 0.05, 0.1, 0.2];
const FIRST_WAVES = [3, 4, 8];
/** The rule's target: a setup that holds is stopped no more often than this, at a fault rate of 0.1. */
const FALSE_STOP_TARGET = 0.01;

/** One run to its end or its stop; whether it stopped and how many trials it ran. */
function runOnce(firstTrials, faultRate, random) {
  const s = new IsolationStopScheduler(new FixedScheduler(CASES, ['skill'], TRIALS, 'scored'), firstTrials);
  let ran = 0;
  for (let ref = s.next(); ref; ref = s.next()) {
    ran++;
    s.trialEnded(random() < faultRate ? 'isolation_error' : 'ok', 'skill arm: alpha not loaded by the agent');
    s.finished(ref, undefined);
  }
  return { stopped: s.stoppedBecause !== undefined, ran };
}

export function benchIsolationStop() {
  const random = generator(SEED);
  const rows = [];
  for (const n of FIRST_WAVES)
    for (const q of FAULT_RATES) {
      let stops = 0;
      for (let i = 0; i < REPS; i++) if (runOnce(n, q, random).stopped) stops++;
      rows.push({ n, q, exact: q ** n, simulated: stops / REPS, firstError: q });
    }
  const planned = CASES.length * TRIALS;
  const saving = FIRST_WAVES.map((n) => ({ n, ran: runOnce(n, 1, random).ran, planned }));
  return { rows, saving };
}

export function printIsolationStop({ rows, saving }) {
  console.log(`\nbench/isolation-stop · ${CASES.length} cases × ${TRIALS} trials · ${REPS} seeded runs per row`);
  console.log('first N  fault q  false stop exact  simulated  stop at first error (simpler rule)');
  for (const r of rows)
    console.log(
      `${String(r.n).padStart(7)}  ${r.q.toFixed(2).padStart(7)}  ${r.exact.toExponential(2).padStart(16)}  ${r.simulated.toFixed(4).padStart(9)}  ${r.firstError.toFixed(2).padStart(7)}`,
    );
  const at = rows.find((r) => r.n === 3 && r.q === 0.1);
  console.log(
    `false stop at N 3, q 0.1: ${at.exact.toFixed(4)} (target ≤ ${FALSE_STOP_TARGET}: ${at.exact <= FALSE_STOP_TARGET ? 'met' : 'MISSED'}); the simpler rule: ${at.firstError}`,
  );
  for (const s of saving) console.log(`systematic fault, N ${s.n}: stops after ${s.ran} of ${s.planned} planned trials`);
}

if (import.meta.url === `file://${process.argv[1]}`) printIsolationStop(benchIsolationStop());
