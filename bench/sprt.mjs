// bench/sprt: Wald's SPRT against fixed-N tests on simulated outcomes with known pass rates.
// p0 = 0.90, p1 = 0.80, α = 0.05, β = 0.20; SPRT with the product defaults (minTrials 5, maxTrials 50).
// Outcomes are seeded draws, so every run prints the same numbers; exact operating characteristics are shown beside.
import { seededUniform } from '../dist/sim/policy.js';
import { sprtDecide, operatingCharacteristics } from '../dist/stats/sprt.js';
import { binomialTestBelow, binomialTestAbove, fixedNEquivalent } from '../dist/stats/binomial-test.js';

const PARAMS = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
const P1 = PARAMS.threshold - PARAMS.delta;
const REPS = Number(process.env.SPRT_REPS ?? 4000);
const RATES = [0.6, 0.8, 0.85, 0.9, 0.95];

function draws(p, rep, n) {
  return Array.from({ length: n }, (_, i) => seededUniform(2026, `p${p}`, `rep${rep}`, String(i)) < p);
}

/** Fixed-N decision with the same two one-sided exact tests the product uses. */
function fixedDecision(outcomes) {
  const n = outcomes.length;
  const c = outcomes.filter(Boolean).length;
  if (binomialTestBelow(c, n, PARAMS.threshold) <= PARAMS.alpha) return 'reject';
  if (binomialTestAbove(c, n, P1) <= PARAMS.beta) return 'accept';
  return 'undecided';
}

export function benchSprt() {
  const nEq = fixedNEquivalent(PARAMS.threshold, P1, PARAMS.alpha, PARAMS.beta);
  const rows = [];
  for (const p of RATES) {
    const tally = { sprt: { trials: 0, accept: 0, reject: 0 }, f50: { accept: 0, reject: 0 }, fEq: { accept: 0, reject: 0 } };
    for (let r = 0; r < REPS; r++) {
      const seq = draws(p, r, Math.max(PARAMS.maxTrials, nEq));
      const d = sprtDecide(seq, PARAMS);
      tally.sprt.trials += d.trials;
      if (d.state !== 'continue') tally.sprt[d.state]++;
      const f50 = fixedDecision(seq.slice(0, 50));
      if (f50 !== 'undecided') tally.f50[f50]++;
      const fEq = fixedDecision(seq.slice(0, nEq));
      if (fEq !== 'undecided') tally.fEq[fEq]++;
    }
    const oc = operatingCharacteristics(p, PARAMS);
    rows.push({ p, avgTrials: tally.sprt.trials / REPS, exactAsn: oc.expectedTrials, sprt: tally.sprt, f50: tally.f50, fEq: tally.fEq });
  }
  return { nEq, reps: REPS, rows };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

export function printSprt({ nEq, reps, rows }) {
  console.log(`sprt      p0 0.90 vs p1 0.80, α 0.05, β 0.20, SPRT min 5 / max 50 trials; ${reps} seeded repetitions per rate; smallest fixed N with the same α and β: ${nEq}`);
  console.log('          true p | SPRT avg trials (exact) | vs N=50 | vs N=' + nEq + ' | SPRT pass/fail/undecided | N=50 pass/fail | N=' + nEq + ' pass/fail');
  for (const r of rows) {
    const und = reps - r.sprt.accept - r.sprt.reject;
    console.log(
      `          ${r.p.toFixed(2)}   | ${r.avgTrials.toFixed(1).padStart(5)} (${r.exactAsn.toFixed(1)})`.padEnd(36) +
        `| ${(r.avgTrials / 50).toFixed(2)} (${pct(1 - r.avgTrials / 50)} fewer) | ${(r.avgTrials / nEq).toFixed(2)} | ` +
        `${pct(r.sprt.accept / reps)}/${pct(r.sprt.reject / reps)}/${pct(und / reps)} | ${pct(r.f50.accept / reps)}/${pct(r.f50.reject / reps)} | ${pct(r.fEq.accept / reps)}/${pct(r.fEq.reject / reps)}`,
    );
  }
  const at = (p) => rows.find((r) => r.p === p);
  console.log(
    `          empirical α (FAIL at p = p0 = 0.90): SPRT ${pct(at(0.9).sprt.reject / reps)}, N=50 ${pct(at(0.9).f50.reject / reps)}, N=${nEq} ${pct(at(0.9).fEq.reject / reps)} (nominal 5%)`,
  );
  console.log(
    `          empirical β (PASS at p = p1 = 0.80): SPRT ${pct(at(0.8).sprt.accept / reps)}, N=50 ${pct(at(0.8).f50.accept / reps)}, N=${nEq} ${pct(at(0.8).fEq.accept / reps)} (nominal 20%)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printSprt(benchSprt());
