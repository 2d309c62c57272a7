// bench/suite-health: the error rates of lint's suite-health warnings (src/lint/suite-health.ts), on the demo suite
// at its default sequential design.
//
// Stuck cases: a case is called floor (saturated) when every stored trial of each arm failed (passed) and each arm
// holds STUCK_TRIALS or more. Its false alarm is calling a case stuck that can still move: one failing 90% of its
// trials or fewer. A run that fails every trial stops at the design's first rejecting look, t trials, so k stored runs
// all fail with chance f^(k·t), exactly; a seeded simulation of the runs checks it. Beside it, the simpler rule,
// "every stored trial failed" whatever their number. Saturated is the same rule on passes, over both arms, whose
// chances multiply: the floor's one arm is the worse case for the rule.
//
// The A/A false-flip rate: lint computes it exactly from each case's design at its stored rate, a plug-in estimate.
// Its error: the estimate from one stored run (and from three pooled) against the exact rate at the demo profile's
// true rates, over seeded runs; beside the simpler reading, whether two stored runs changed some verdict from PASS
// (each reading 0 or 1, right on average and never close).
import { caseDesign } from '../dist/stats/case-design.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { clopperPearsonInterval } from '../dist/stats/clopper-pearson.js';
import { aaVerdictFlipRate } from '../dist/mutate/power.js';
import { STUCK_TRIALS, stuckAs } from '../dist/lint/suite-health.js';
import { DEFS, DEMO, trueRates } from './canary.mjs';
import { generator } from './lib.mjs';

const REPS = Number(process.env.HEALTH_REPS ?? 2000);
const ALPHA = 0.05;
/** The chance a trial fails: up to 0.9 the case can still move. */
const FAILING = [0.8, 0.9, 0.95, 0.99, 1];
const RUNS = [1, 2, 3, 5];

/** One run of a case at its design: its passes and trials, and whether the design accepted (the verdict PASS). */
function oneRun(design, p, draw) {
  const seq = [];
  let state = 'continue';
  for (let n = 1; n <= design.maxTrials && state === 'continue'; n++) {
    seq.push(draw() < p);
    state = decideSequential(seq, design).state;
  }
  return { successes: seq.filter(Boolean).length, n: seq.length, accepted: state === 'accept' };
}

function benchStuck() {
  // The demo's typical positive case: its design, and where a run that fails every trial stops.
  const design = caseDesign(DEFS.find((c) => c.expect !== 'none'));
  const t = oneRun(design, 0, () => 1).n;
  const rows = FAILING.flatMap((p) =>
    RUNS.map((k) => {
      const draw = generator(Math.round(p * 1e6) + k);
      let [ours, simple] = [0, 0];
      for (let r = 0; r < REPS; r++) {
        const runs = Array.from({ length: k }, () => oneRun(design, 1 - p, draw));
        const skill = runs.reduce((s, x) => ({ successes: s.successes + x.successes, n: s.n + x.n }), { successes: 0, n: 0 });
        ours += stuckAs({ runs: k, skill }, true) === 'floor';
        simple += skill.successes === 0;
      }
      const exactAll = p ** (k * t);
      return {
        p,
        k,
        trials: k * t,
        exactOurs: k * t >= STUCK_TRIALS ? exactAll : 0,
        exactSimple: exactAll,
        ours: clopperPearsonInterval(ours, REPS),
        simple: clopperPearsonInterval(simple, REPS),
      };
    }),
  );
  return { t, rows };
}

function benchAaFlips() {
  const rates = trueRates(DEMO);
  const designs = DEFS.map((c) => caseDesign(c));
  const inside = (p) => Math.min(1 - 1e-9, Math.max(1e-9, p));
  const truth = aaVerdictFlipRate(DEFS.map((c, i) => ({ design: designs[i], rate: inside(rates.get(c.id)) })));
  const draw = generator(7);
  const estimate = (k) => {
    const pooled = DEFS.map((c, i) => {
      const runs = Array.from({ length: k }, () => oneRun(designs[i], rates.get(c.id), draw));
      return runs.reduce((s, x) => s + x.successes, 0) / runs.reduce((s, x) => s + x.n, 0);
    });
    return aaVerdictFlipRate(DEFS.map((_, i) => ({ design: designs[i], rate: pooled[i] })));
  };
  const pass = (design, p) => oneRun(design, p, draw);
  const read = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const within = xs.filter((x) => Math.abs(x - truth) <= 0.1).length / xs.length;
    return { mean, lo: sorted[Math.floor(0.05 * xs.length)], hi: sorted[Math.floor(0.95 * xs.length)], within };
  };
  const reps = Math.min(REPS, 500);
  const one = read(Array.from({ length: reps }, () => estimate(1)));
  const three = read(Array.from({ length: reps }, () => estimate(3)));
  // Whether two stored runs changed some case's verdict from PASS: the design accepted in the first, not the second.
  const observed = read(
    Array.from({ length: reps }, () =>
      Number(
        DEFS.some((c, i) => {
          const [first, second] = [pass(designs[i], rates.get(c.id)), pass(designs[i], rates.get(c.id))];
          return first.accepted && !second.accepted;
        }),
      ),
    ),
  );
  return { truth, one, three, observed, reps };
}

export function benchSuiteHealth() {
  const t0 = performance.now();
  return { stuck: benchStuck(), aa: benchAaFlips(), reps: REPS, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const interval = (r) => `${pct(r.p)} [${pct(r.lo)}, ${pct(r.hi)}]`;

export function printSuiteHealth({ stuck, aa, reps, seconds }) {
  console.log(
    `health    lint's suite-health warnings on the demo design (a run failing every trial stops at ${stuck.t}); ${reps} seeded repetitions per row, 95% Clopper-Pearson intervals; ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          floor: called stuck (every stored trial failed, ≥ ${STUCK_TRIALS} trials) beside the simpler rule (every stored trial failed), by failure rate and stored runs; target: ≤ ${100 * ALPHA}% at 90% or less`,
  );
  for (const r of stuck.rows)
    console.log(
      `            fails ${pct(r.p).padStart(6)} · ${r.k} runs (${r.trials} trials if all fail): ours ${interval(r.ours)} exact ${pct(r.exactOurs)}${r.p <= 0.9 ? (r.exactOurs <= ALPHA ? ' (≤ α)' : ' (ABOVE α)') : ''} · simpler ${interval(r.simple)} exact ${pct(r.exactSimple)}`,
    );
  const est = (e) => `mean ${pct(e.mean)}, 90% of readings in [${pct(e.lo)}, ${pct(e.hi)}], within ±10 points ${pct(e.within)}`;
  console.log(`          A/A false-flip rate: exact at the true rates ${pct(aa.truth)}; over ${aa.reps} seeded repetitions:`);
  console.log(`            lint's, from 1 stored run: ${est(aa.one)}`);
  console.log(`            lint's, from 3 stored runs: ${est(aa.three)}`);
  console.log(`            the simpler reading, two runs changed a verdict from PASS (0 or 1): ${est(aa.observed)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) printSuiteHealth(benchSuiteHealth());
