// bench/labels: what "about N labels more for an interval of ±0.1" (labelsMoreNeeded, shown by `skillprobe view` and
// `rejudge --labels`) gives a person who labels that many more. Seeded draws of (judge, human) label pairs per judge:
// a first round of n₀ labels; the count asked for; that many more drawn; then the final interval of κ.
//   reached:  how often the final interval is no wider than ±0.1 (the count assumes the labels to come fall as the
//             first ones did, so about half the rounds should land inside: it is an estimate, not a guarantee);
//   covered:  how often the final interval holds the true κ (target ≥ 93%: stopping on a count read off the first
//             round must not break the interval);
//   asked:    the median labels in all, beside the simpler rule it replaces: stop at MIN_LABELS (50) whatever κ is.
// LABELS_REPS sets the rounds per row.
import { cohenKappa, labelsMoreNeeded, KAPPA_TARGET_HALF_WIDTH, MIN_LABELS } from '../dist/stats/cohen-kappa.js';
import { cellChances } from './judge.mjs';
import { generator, median } from './lib.mjs';

const REPS = Number(process.env.LABELS_REPS ?? 4000);
const SEED = 41;
const FIRST_ROUNDS = [20, 50];
const COVERAGE_FLOOR = 0.93;
const JUDGES = [
  { name: 'good judge', humanYes: 0.5, sensitivity: 0.9, specificity: 0.9 },
  { name: 'fair judge', humanYes: 0.5, sensitivity: 0.75, specificity: 0.75 },
  { name: 'rare yes', humanYes: 0.2, sensitivity: 0.8, specificity: 0.95 },
];
const CELLS = ['yesYes', 'noYes', 'yesNo', 'noNo'];

/** Adds `n` label pairs drawn from the cell chances to `t`. */
function drawLabels(t, n, cells, draw) {
  for (let i = 0; i < n; i++) {
    let u = draw();
    const cell = CELLS.find((c) => (u -= cells[c]) < 0) ?? 'noNo';
    t[cell]++;
  }
  return t;
}

const halfWidthOf = (k) => (k.kappa === null ? Infinity : (k.hi - k.lo) / 2);
const holds = (k, truth) => k.kappa !== null && k.lo <= truth + 1e-12 && truth <= k.hi + 1e-12;

function benchRow(judge, first, seed) {
  const { cells, kappa } = cellChances(judge);
  const draw = generator(seed);
  const asked = { reached: 0, covered: 0, totals: [], noCount: 0 };
  const fixed = { reached: 0, covered: 0 };
  for (let r = 0; r < REPS; r++) {
    const t = drawLabels({ yesYes: 0, noYes: 0, yesNo: 0, noNo: 0 }, first, cells, draw);
    // The simpler rule: MIN_LABELS in all, from the same first round.
    const atFixed = cohenKappa(drawLabels({ ...t }, Math.max(0, MIN_LABELS - first), cells, draw));
    fixed.reached += halfWidthOf(atFixed) <= KAPPA_TARGET_HALF_WIDTH + 1e-9;
    fixed.covered += holds(atFixed, kappa);
    const more = labelsMoreNeeded(t);
    if (more === undefined) {
      asked.noCount++;
      continue;
    }
    const final = cohenKappa(drawLabels({ ...t }, more, cells, draw));
    asked.reached += halfWidthOf(final) <= KAPPA_TARGET_HALF_WIDTH + 1e-9;
    asked.covered += holds(final, kappa);
    asked.totals.push(first + more);
  }
  const counted = REPS - asked.noCount;
  return {
    judge: judge.name,
    kappa,
    first,
    asked: {
      reached: asked.reached / counted,
      covered: asked.covered / counted,
      medianTotal: median(asked.totals),
      noCount: asked.noCount / REPS,
    },
    fixed: { reached: fixed.reached / REPS, covered: fixed.covered / REPS },
  };
}

export function benchLabels() {
  const t0 = performance.now();
  const rows = JUDGES.flatMap((judge, i) => FIRST_ROUNDS.map((first) => benchRow(judge, first, SEED * 1000 + 10 * i + first)));
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`.padStart(7);

export function printLabels({ rows, seconds }) {
  console.log(
    `\n== labels: "about N labels more for ±${KAPPA_TARGET_HALF_WIDTH}" against stopping at ${MIN_LABELS}, ${REPS} seeded rounds per row (${seconds.toFixed(1)} s) ==`,
  );
  console.log(
    `coverage of the true κ: target ≥ ${pct(COVERAGE_FLOOR).trim()} · reached: final interval within ±${KAPPA_TARGET_HALF_WIDTH}`,
  );
  console.log(
    `${'judge'.padEnd(12)}${'κ'.padStart(6)}${'n₀'.padStart(5)}  ${'asked: total reached covered no-count'.padStart(40)}  ${`stop at ${MIN_LABELS}: reached covered`.padStart(32)}`,
  );
  for (const r of rows) {
    const a = r.asked;
    console.log(
      `${r.judge.padEnd(12)}${r.kappa.toFixed(2).padStart(6)}${String(r.first).padStart(5)}  ${String(a.medianTotal).padStart(13)}${pct(a.reached)} ${pct(a.covered)} ${pct(a.noCount)}      ${pct(r.fixed.reached)} ${pct(r.fixed.covered)}`,
    );
  }
  const least = Math.min(...rows.map((r) => r.asked.covered));
  console.log(
    `least coverage after labelling the count asked: ${pct(least).trim()} ${least >= COVERAGE_FLOOR ? '(meets' : '(MISSES'} the ${pct(COVERAGE_FLOOR).trim()} floor)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printLabels(benchLabels());
