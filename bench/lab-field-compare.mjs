// bench/lab-field-compare: `compare` of two lab,field folders (and a lab,field canary) flags a regression when either
// context's comparison does: its exit code is the worst of the two, each context compared at α as `compare` compares
// two runs. The two contexts' trials are independent draws, so the folder's A/A false alarm is exactly
// 1 − (1 − a)² for a context's own rate a (bench/compare measures it on the simulator's seeded draws), at most 2α.
// Beside it, the simpler alternative that caps the folder at α by construction (α/2 per context, Bonferroni), and
// what it costs exactly: the trials per case `plan --compare` needs at α/2 for the same power.
import { planComparison } from '../dist/report/plan-compare.js';
import { COMPARE_DEFAULTS } from '../dist/verdict/compare-defaults.js';
import { benchCompare, CASES, FROM, TO } from './compare.mjs';

const { alpha: ALPHA, power: POWER } = COMPARE_DEFAULTS;

/** The folder-level error rates from one context's, measured by bench/compare. */
export function benchLabFieldCompare(compared = benchCompare()) {
  const trialsAt = (alpha) =>
    planComparison(FROM, TO, alpha, POWER, { cases: CASES.length, caseArms: CASES.length, minTrials: 6 }).acrossCases;
  return { ...compared, folderAa: 1 - (1 - compared.aaRate) ** 2, nAtAlpha: trialsAt(ALPHA), nAtHalf: trialsAt(ALPHA / 2) };
}

export function printLabFieldCompare({ reps, aaRate, power, folderAa, nAtAlpha, nAtHalf }) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  console.log(
    `lab,field compare of two lab,field folders: each context at α ${ALPHA} (compare's A/A ${pct(aaRate)} and power ${pct(power)}, ${reps} repetitions), the exit the worst of the two`,
  );
  console.log(
    `          A/A false alarm of the folder: 1 − (1 − ${pct(aaRate)})² = ${pct(folderAa)} (target ≤ ${100 * ALPHA}%: ratio ${(folderAa / ALPHA).toFixed(2)}; bound 2α = ${100 * 2 * ALPHA}%)`,
  );
  console.log(
    `          alternative, α/2 per context (folder ≤ α by construction): ${nAtHalf} trials per case and context for power ${POWER} at ${FROM} → ${TO}, against ${nAtAlpha} at α (+${pct(nAtHalf / nAtAlpha - 1)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printLabFieldCompare(benchLabFieldCompare());
