// bench/lab-field: the lab→field difference of `run --context lab,field`, each case's field rate minus its lab rate
// with Newcombe's 95% interval for two independent rates (`contextDifference`), beside the simpler Wald interval.
// Computed exactly: every pair of outcomes (x lab passes of n, y field passes of n) weighted by its binomial chance.
//   A/A:      both contexts at the same rate p: the chance the report flags ▼ drop (the interval wholly below 0, the
//             headline's test), ≤ α = 0.05; beside it, the chance the interval excludes 0 either way.
//   power:    a drop of 0.4 (lab p, field p − 0.4): the chance the interval lies wholly below 0 (▼ drop).
//   coverage: the chance the interval holds the true difference, worst over a grid of (lab, field) rates.
// A seeded simulation of the same pairs (LAB_FIELD_REPS per row) confirms the exact A/A figure.
import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { newcombeDifference } from '../dist/stats/newcombe.js';
import { zFor } from '../dist/stats/wilson.js';
import { generator } from './lib.mjs';

const ALPHA = 0.05;
const SIZES = [10, 20, 40];
const RATES = [0.5, 0.7, 0.9, 0.95, 1];
const DROP = 0.4;
const GRID = [0, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 1];
const REPS = Number(process.env.LAB_FIELD_REPS ?? 20000);
const SEED = 34;

/** The simpler interval: field − lab ± z·√(p₁q₁/n₁ + p₂q₂/n₂), collapsing to a point at 0 % and 100 %. */
function wald(x1, n1, x2, n2) {
  const [p1, p2] = [x1 / n1, x2 / n2];
  const half = zFor(1 - ALPHA) * Math.sqrt((p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2);
  return { lo: p2 - p1 - half, hi: p2 - p1 + half };
}
const newcombe = (x1, n1, x2, n2) => newcombeDifference(x1, n1, x2, n2, 1 - ALPHA);

/** The exact chance, over both contexts' binomial outcomes at n trials each, that `event(interval)` holds. */
function exactChance(n, pLab, pField, interval, event) {
  const lab = Array.from({ length: n + 1 }, (_, x) => binomialPmf(x, n, pLab));
  const field = Array.from({ length: n + 1 }, (_, y) => binomialPmf(y, n, pField));
  let sum = 0;
  for (let x = 0; x <= n; x++) {
    if (lab[x] === 0) continue;
    for (let y = 0; y <= n; y++) if (field[y] > 0 && event(interval(x, n, y, n))) sum += lab[x] * field[y];
  }
  return sum;
}

const excludesZero = (i) => i.hi < 0 || i.lo > 0;
const below = (i) => i.hi < 0;

/** Seeded draws of the A/A pairs: the share whose Newcombe interval excludes 0. */
function simulatedAA(n, p, random) {
  let alarms = 0;
  const draw = () => Array.from({ length: n }, () => random() < p).filter(Boolean).length;
  for (let r = 0; r < REPS; r++) if (excludesZero(newcombe(draw(), n, draw(), n))) alarms++;
  return alarms / REPS;
}

export function benchLabField() {
  const random = generator(SEED);
  const aa = SIZES.flatMap((n) =>
    RATES.map((p) => ({
      n,
      p,
      drop: exactChance(n, p, p, newcombe, below),
      newcombe: exactChance(n, p, p, newcombe, excludesZero),
      simulated: simulatedAA(n, p, random),
      waldDrop: exactChance(n, p, p, wald, below),
      wald: exactChance(n, p, p, wald, excludesZero),
    })),
  );
  const power = SIZES.flatMap((n) =>
    [0.9, 1].map((p) => ({ n, p, newcombe: exactChance(n, p, p - DROP, newcombe, below), wald: exactChance(n, p, p - DROP, wald, below) })),
  );
  const coverage = SIZES.map((n) => {
    const worst = (interval) =>
      Math.min(
        ...GRID.flatMap((p1) =>
          GRID.map((p2) => exactChance(n, p1, p2, interval, (i) => i.lo <= p2 - p1 + 1e-12 && p2 - p1 - 1e-12 <= i.hi)),
        ),
      );
    return { n, newcombe: worst(newcombe), wald: worst(wald) };
  });
  return { aa, power, coverage };
}

export function printLabField({ aa, power, coverage }) {
  const f = (x) => x.toFixed(3);
  console.log(
    `\nbench/lab-field · the lab→field difference, Newcombe's 95% interval beside Wald's, exact (simulated: ${REPS} seeded pairs)`,
  );
  console.log(`A/A (same rate in both contexts): chance of ▼ drop (target ≤ ${ALPHA}), and of the interval excluding 0 either way`);
  console.log('   n     p  ▼ Newcombe  ▼ Wald (simpler)  ≠0 Newcombe  simulated  ≠0 Wald (simpler)');
  for (const x of aa)
    console.log(
      `${String(x.n).padStart(4)}  ${x.p.toFixed(2)}  ${f(x.drop).padStart(10)}  ${f(x.waldDrop).padStart(16)}  ${f(x.newcombe).padStart(11)}  ${f(x.simulated).padStart(9)}  ${f(x.wald).padStart(17)}`,
    );
  const worstAA = (k) => f(Math.max(...aa.map((x) => x[k])));
  console.log(
    `worst A/A over these rows: ▼ drop Newcombe ${worstAA('drop')}, Wald ${worstAA('waldDrop')} (target ≤ ${ALPHA}); either way Newcombe ${worstAA('newcombe')}, Wald ${worstAA('wald')}`,
  );
  console.log(`power: a drop of ${DROP} (lab p, field p − ${DROP}), chance the interval lies wholly below 0 (▼ drop)`);
  console.log('   n  lab p  Newcombe  Wald (simpler)');
  for (const x of power)
    console.log(`${String(x.n).padStart(4)}  ${x.p.toFixed(2).padStart(5)}  ${f(x.newcombe).padStart(8)}  ${f(x.wald).padStart(14)}`);
  console.log(`coverage: worst over lab, field rates in {${GRID.join(', ')}} (nominal 0.95)`);
  console.log('   n  Newcombe  Wald (simpler)');
  for (const x of coverage) console.log(`${String(x.n).padStart(4)}  ${f(x.newcombe).padStart(8)}  ${f(x.wald).padStart(14)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) printLabField(benchLabField());
