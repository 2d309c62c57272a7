// bench/neighbours: how honest the report's "neighbour X fired in k of n: p [lo, hi]" is. The share is a neighbour's
// firings among a case's scored trials, with the Wilson interval the summary gives it (failures.firedNeighbours).
//   coverage:  exact, by summing the binomial over every k, for the product's interval and for the simpler Wald
//              interval (p ± z·sqrt(p(1-p)/n)), at the case sizes a sequential design stops at; then confirmed by
//              seeded runs of the product's own summary (summariseCaseArm over graded outcomes).
//   silence:   a neighbour that never fires is never named (no false "took X%"), and one that fires is named with the
//              chance 1 - (1-p)^n, exact.
// NEIGHBOUR_REPS sets the seeded runs per row.
import { summariseCaseArm } from '../dist/stats/summary.js';
import { wilsonInterval, zFor } from '../dist/stats/wilson.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.NEIGHBOUR_REPS ?? 2000);
const SEED = 34;
const CONFIDENCE = 0.95;
const SIZES = [5, 10, 20, 50];
const SHARES = [0.05, 0.1, 0.3, 0.5];
const CASE = { id: 'c', expect: 'alpha', exclusive: false, tags: [], decision: {} };

function binomialPmf(n, p) {
  const pmf = [];
  let coef = 1;
  for (let k = 0; k <= n; k++) {
    pmf.push(coef * p ** k * (1 - p) ** (n - k));
    coef = (coef * (n - k)) / (k + 1);
  }
  return pmf;
}

function waldInterval(k, n) {
  const p = k / n;
  const half = zFor(CONFIDENCE) * Math.sqrt((p * (1 - p)) / n);
  return { lo: Math.max(0, p - half), hi: Math.min(1, p + half) };
}

const covers = (r, p) => r.lo <= p && p <= r.hi;

/** Exact coverage of an interval rule at share p over n trials. */
function exactCoverage(n, p, interval) {
  return binomialPmf(n, p).reduce((sum, pk, k) => sum + (covers(interval(k, n), p) ? pk : 0), 0);
}

/** A graded skill-arm trial: the expected skill fired, or the neighbour took it. */
function outcome(n, toNeighbour) {
  return {
    caseId: 'c',
    arm: 'skill',
    n,
    status: 'ok',
    passed: !toNeighbour,
    firings: [
      toNeighbour
        ? { neighbour: 'pdf-tool', requested: 'pdf-tool', via: 'invoke', status: 'loaded', callId: 't', at: 1 }
        : { skill: 'alpha', requested: 'alpha', via: 'invoke', status: 'loaded', callId: 't', at: 1 },
    ],
    firedColumn: toNeighbour ? 'neighbour:pdf-tool' : 'alpha',
    fired: toNeighbour ? 'neighbour' : 'expected',
    readOnly: false,
    flags: { noop: false, clarifying: false },
    parseWarnings: 0,
  };
}

/** Seeded runs of the product's summary: how often its neighbour interval covers p, and how often it names one. */
function simulated(n, p, random) {
  let covered = 0;
  let named = 0;
  for (let r = 0; r < REPS; r++) {
    const outcomes = Array.from({ length: n }, (_, i) => outcome(i + 1, random() < p));
    const row = summariseCaseArm(CASE, 'skill', outcomes, { confidence: CONFIDENCE, readCountsAsFiring: true });
    const top = row.failures.firedNeighbours[0];
    if (top) named++;
    // No firing: the report names no neighbour, and the share is 0 with the interval [0, wilson upper].
    if (covers(top?.share ?? wilsonInterval(0, n, CONFIDENCE), p)) covered++;
  }
  return { covered: covered / REPS, named: named / REPS };
}

export function benchNeighbours() {
  const random = generator(SEED);
  const rows = [];
  for (const n of SIZES)
    for (const p of SHARES) {
      const wilson = exactCoverage(n, p, (k, m) => wilsonInterval(k, m, CONFIDENCE));
      const wald = exactCoverage(n, p, waldInterval);
      const sim = simulated(n, p, random);
      rows.push({ n, p, wilson, wald, simCovered: sim.covered, named: 1 - (1 - p) ** n, simNamed: sim.named });
    }
  const silent = SIZES.map((n) => simulated(n, 0, random).named);
  return { rows, silent };
}

export function printNeighbours({ rows, silent }) {
  console.log(
    `\nbench/neighbours · share of a case's trials a neighbour took, ${CONFIDENCE * 100}% intervals · ${REPS} seeded runs per row`,
  );
  console.log('    n  share  Wilson exact  simulated  Wald exact (simpler)  named exact  simulated');
  for (const r of rows)
    console.log(
      `${String(r.n).padStart(5)}  ${r.p.toFixed(2).padStart(5)}  ${r.wilson.toFixed(4).padStart(12)}  ${r.simCovered.toFixed(4).padStart(9)}  ${r.wald.toFixed(4).padStart(20)}  ${r.named.toFixed(4).padStart(11)}  ${r.simNamed.toFixed(4).padStart(9)}`,
    );
  const worst = (key) => rows.reduce((a, b) => (b[key] < a[key] ? b : a));
  const w = worst('wilson');
  const v = worst('wald');
  console.log(
    `lowest coverage: Wilson ${w.wilson.toFixed(3)} (n ${w.n}, share ${w.p}); Wald ${v.wald.toFixed(3)} (n ${v.n}, share ${v.p})`,
  );
  console.log(
    `a neighbour that never fires is named in ${silent.map((s) => s.toFixed(4)).join(', ')} of runs (n ${SIZES.join(', ')}): target 0`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printNeighbours(benchNeighbours());
