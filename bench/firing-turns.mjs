// bench/firing-turns: how honest the report's "fired by turn k: p [lo, hi]" curve is. For a case with follow-ups the
// summary gives, for every user turn k, the share of usable trials whose skill had fired by turn k, each with an
// interval; a reader scans the whole curve, so what counts is that every interval of it covers at once.
//   coverage:  exact, by summing the multinomial over every split of n trials into "first fired on turn 1 … K" and
//              "never", for the product's intervals (Clopper–Pearson, each at the Bonferroni level 1 - alpha/K, so
//              they hold together) beside the alternatives: Wilson at that Bonferroni level (the project's usual
//              interval), Wilson at the level itself on each turn (pointwise, the simpler one), and Wald
//              (p ± z·sqrt(p(1-p)/n)); then confirmed by seeded runs of the product's own summary (summariseCaseArm
//              over graded outcomes).
// FIRING_TURN_REPS sets the seeded runs per row.
import { firingTurns } from '../dist/stats/firing-turns.js';
import { summariseCaseArm } from '../dist/stats/summary.js';
import { wilsonInterval, zFor } from '../dist/stats/wilson.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.FIRING_TURN_REPS ?? 2000);
const SEED = 35;
const CONFIDENCE = 0.95;
const SIZES = [10, 20, 50];
/** The chance the skill first fires on turn 1, 2, …; the rest: never. */
const SHAPES = [
  { name: 'fires at once', first: [0.9, 0.05] },
  { name: 'asks first', first: [0.1, 0.8] },
  { name: 'asks, then maybe', first: [0.05, 0.5, 0.3] },
  { name: 'rarely', first: [0.02, 0.03, 0.05] },
];

const covers = (r, p) => r.lo <= p && p <= r.hi;

function waldInterval(k, n) {
  const p = k / n;
  const half = zFor(CONFIDENCE) * Math.sqrt((p * (1 - p)) / n);
  return { lo: Math.max(0, p - half), hi: Math.min(1, p + half) };
}

const RULES = {
  product: (cum) => firingTurns(expand(cum), cum.length, CONFIDENCE).byTurn,
  bonferroniWilson: (cum, n) => cum.map((k) => wilsonInterval(k, n, 1 - (1 - CONFIDENCE) / cum.length)),
  pointwise: (cum, n) => cum.map((k) => wilsonInterval(k, n, CONFIDENCE)),
  wald: (cum, n) => cum.map((k) => waldInterval(k, n)),
};

/** Per-trial first turns with these cumulative counts (the product's input); the rest never fired. */
let expandN = 0;
function expand(cum) {
  const turns = [];
  cum.forEach((c, k) => {
    const before = k === 0 ? 0 : cum[k - 1];
    for (let i = before; i < c; i++) turns.push(k + 1);
  });
  while (turns.length < expandN) turns.push(undefined);
  return turns;
}

function logFactorials(n) {
  const lf = [0];
  for (let i = 1; i <= n; i++) lf.push(lf[i - 1] + Math.log(i));
  return lf;
}

/** Every split of n into parts (one per turn, then never), with its multinomial probability. */
function* splits(n, probs) {
  const lf = logFactorials(n);
  const parts = [];
  function* walk(k, left) {
    if (k === probs.length - 1) {
      parts.push(left);
      yield parts;
      parts.pop();
      return;
    }
    for (let c = 0; c <= left; c++) {
      parts.push(c);
      yield* walk(k + 1, left - c);
      parts.pop();
    }
  }
  for (const p of walk(0, n)) {
    let log = lf[n];
    for (let k = 0; k < probs.length; k++) {
      if (probs[k] === 0) {
        if (p[k] > 0) log = -Infinity;
        continue;
      }
      log += p[k] * Math.log(probs[k]) - lf[p[k]];
    }
    yield { parts: p, prob: Math.exp(log) };
  }
}

/** Exact joint coverage of each rule: the chance every turn's interval covers its true "fired by turn k". */
function exactCoverage(n, first) {
  const probs = [...first, 1 - first.reduce((a, b) => a + b, 0)];
  const truth = first.map((_, k) => first.slice(0, k + 1).reduce((a, b) => a + b, 0));
  const joint = Object.fromEntries(Object.keys(RULES).map((r) => [r, 0]));
  expandN = n;
  for (const { parts, prob } of splits(n, probs)) {
    const cum = [];
    parts.slice(0, first.length).forEach((c, k) => cum.push(c + (k ? cum[k - 1] : 0)));
    for (const [name, rule] of Object.entries(RULES)) if (rule(cum, n).every((r, k) => covers(r, truth[k]))) joint[name] += prob;
  }
  return { joint, truth };
}

/** A graded skill-arm trial of a case with follow-ups: the skill first fired on `turn`, or never. */
function outcome(n, turn) {
  const fired = turn !== undefined;
  return {
    caseId: 'c',
    arm: 'skill',
    n,
    status: 'ok',
    passed: fired,
    firings: fired ? [{ skill: 'alpha', requested: 'alpha', via: 'invoke', status: 'loaded', callId: 't', at: 1, turn }] : [],
    firedColumn: fired ? 'alpha' : 'none',
    fired: fired ? 'expected' : 'none',
    ...(fired ? { firedTurn: turn } : {}),
    readOnly: false,
    flags: { noop: false, clarifying: false },
    parseWarnings: 0,
  };
}

/** Seeded runs of the product's summary: how often its whole curve covers. */
function simulated(n, first, truth, random) {
  const c = {
    id: 'c',
    expect: 'alpha',
    exclusive: false,
    tags: [],
    decision: {},
    conversation: { hash: 'h', history: 0, followUps: first.length - 1 },
  };
  let covered = 0;
  for (let r = 0; r < REPS; r++) {
    const outcomes = Array.from({ length: n }, (_, i) => {
      let u = random();
      const k = first.findIndex((p) => (u -= p) < 0);
      return outcome(i + 1, k < 0 ? undefined : k + 1);
    });
    const row = summariseCaseArm(c, 'skill', outcomes, { confidence: CONFIDENCE, readCountsAsFiring: true });
    if (row.firingTurns.byTurn.every((b, k) => covers(b, truth[k]))) covered++;
  }
  return covered / REPS;
}

export function benchFiringTurns() {
  const random = generator(SEED);
  const rows = [];
  for (const shape of SHAPES)
    for (const n of SIZES) {
      const { joint, truth } = exactCoverage(n, shape.first);
      rows.push({ shape: shape.name, turns: shape.first.length, n, ...joint, simulated: simulated(n, shape.first, truth, random) });
    }
  return { rows };
}

export function printFiringTurns({ rows }) {
  console.log(
    `\nbench/firing-turns · "fired by turn k" over every turn at once, ${CONFIDENCE * 100}% target · exact, and ${REPS} seeded runs per row`,
  );
  console.log(
    'shape              turns    n  product (CP, Bonferroni) exact  simulated  Wilson, Bonferroni  pointwise Wilson (simpler)  Wald',
  );
  for (const r of rows)
    console.log(
      `${r.shape.padEnd(17)}  ${String(r.turns).padStart(5)}  ${String(r.n).padStart(3)}  ${r.product.toFixed(4).padStart(30)}  ${r.simulated.toFixed(4).padStart(9)}  ${r.bonferroniWilson.toFixed(4).padStart(18)}  ${r.pointwise.toFixed(4).padStart(26)}  ${r.wald.toFixed(4).padStart(6)}`,
    );
  const worst = (key) => rows.reduce((a, b) => (b[key] < a[key] ? b : a));
  const lowest = (key, label) => {
    const w = worst(key);
    return `${label} ${w[key].toFixed(3)} (${w.shape}, n ${w.n})`;
  };
  console.log(
    `lowest joint coverage: ${lowest('product', 'product')}; ${lowest('bonferroniWilson', 'Wilson at the Bonferroni level')}; ${lowest('pointwise', 'pointwise Wilson')}; ${lowest('wald', 'Wald')}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printFiringTurns(benchFiringTurns());
