// bench/mutate: what `skillprobe mutate` calls "noticed" (compare's suite verdict against the unmutated run saying
// REGRESSED: some case REGRESSED on its own test, or the suite-level combined test), on the demo suite at its default
// sequential design, against the power the mutate report states. Each repetition draws an unmutated run and a mutant's
// run case by case at the case's pass chance (seeded), stops each case by its design, and decides as the mutate driver
// does (`compareRuns`, then `noticed`). The report states two figures: the whole rule's chance, simulated
// (`simulatedNoticePower`: draws of where each case's design ends in both runs, decided by `regressedOn`), with its
// interval, and the exact chance of the combined test alone (`noticePower`), its floor. The bench checks that the
// stated chance falls inside the observed rate's interval and the observed rate inside the stated interval, and that
// `regressedOn` on each repetition's evidence is `noticed(compareRuns)` itself. Beside it: the simpler rule the issue
// named, "a case's verdict changed from PASS" (`flippedFromPass`), with its false alarms between two runs of the same
// skill (exact: `aaVerdictFlipRate`).
//
// The combined test alone is also simulated on many more repetitions (COMBINED_REPS) by its own few lines (each case's
// exact design test and the truncated product, the evidence `compare` combines): at 10,000 its interval is ±0.1% at
// 0.4%, where 200 repetitions cannot tell whether the exact floor is right.
//
// The rates are the simulator's demo profile's per-case pass chances (the canary bench's seeded draws); the CLI
// transport is left out: it adds minutes per repetition and nothing to the statistics.
import { caseDesign } from '../dist/stats/case-design.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { clopperPearsonInterval } from '../dist/stats/clopper-pearson.js';
import { aaVerdictFlipRate, NOTICE_SEED, noticePower, regressedOn, simulatedNoticePower } from '../dist/mutate/power.js';
import { flippedFromPass, noticed } from '../dist/mutate/outcome.js';
import { compareRuns, designEvidence } from '../dist/verdict/compare.js';
import { truncatedProduct } from '../dist/stats/combine-p-values.js';
import { SUITE_TRUNCATION } from '../dist/verdict/compare-defaults.js';
import { CONFIG, DEFS, DEMO, outcome, storedRun, trueRates } from './canary.mjs';
import { generator, median } from './lib.mjs';

const REPS = Number(process.env.MUTATE_REPS ?? 200);
const COMBINED_REPS = Number(process.env.MUTATE_COMBINED_REPS ?? 10_000);
const ALPHA = 0.05;

/** Each case's trials in one run at its design, each passing with its chance in `rates`. */
function sequences(rates, seed) {
  const draw = generator(seed);
  return DEFS.map((c) => {
    const design = caseDesign(c);
    const seq = [];
    for (let n = 1; n <= design.maxTrials; n++) {
      seq.push(draw() < rates.get(c.id));
      if (decideSequential(seq, design).state !== 'continue') break;
    }
    return seq;
  });
}

/** The run folder's results of those trials, as `compare` reads them. */
const run = (seqs, seed, label) =>
  storedRun(
    `${label}-${seed}`,
    CONFIG,
    DEFS,
    DEFS.flatMap((c, i) => seqs[i].map((ok, k) => outcome(c, k + 1, ok))),
    seed,
  );

/** Each case's exact design test straight from the trials: the evidence `compare` decides on. */
const evidence = (base, mutant) => {
  const stopped = (seq, c) => ({ design: caseDesign(c), trials: seq.length, passes: seq.filter(Boolean).length });
  return DEFS.map((c, i) => designEvidence(stopped(base[i], c), stopped(mutant[i], c)));
};

/** A mutant that halves the pass chance of the cases `which` picks, every other case as it was. */
const halving = (rates, which) => new Map(DEFS.map((c) => [c.id, which(c) ? rates.get(c.id) / 2 : rates.get(c.id)]));

/** Rates kept strictly inside (0, 1), where the exact distributions are defined. */
const inside = (p) => Math.min(1 - 1e-9, Math.max(1e-9, p));

const moved = (from, to) =>
  DEFS.map((c) => ({ caseId: c.id, design: caseDesign(c), from: inside(from.get(c.id)), to: inside(to.get(c.id)) }));

/** The stated figures for one mutant, and the seconds the simulated one took. */
function stated(cases) {
  const t0 = performance.now();
  const rule = simulatedNoticePower(cases, ALPHA, { seed: NOTICE_SEED, fixed: false });
  return { rule, seconds: (performance.now() - t0) / 1000, floor: noticePower(cases, ALPHA) };
}

export function benchMutate() {
  const t0 = performance.now();
  const rates = trueRates(DEMO);
  const scenarios = [
    { name: 'null mutant (rates unchanged)', to: rates },
    { name: 'halving one case (jira-create-bug)', to: halving(rates, (c) => c.id === 'jira-create-bug') },
    { name: 'halving one near-certain case (csv-summary)', to: halving(rates, (c) => c.id === 'csv-summary') },
    { name: "halving atl-jira's 4 cases", to: halving(rates, (c) => c.expect === 'atl-jira') },
    { name: 'halving every positive case', to: halving(rates, (c) => c.expect !== 'none') },
    // The demo's own csv-report mutants (body emptied, skill removed): one near-certain case falls to nothing.
    { name: 'csv-summary falls to 0', to: new Map([...rates].map(([id, p]) => [id, id === 'csv-summary' ? 0 : p])) },
  ];
  // The first call builds each design's null and the combined test's critical value: timed apart from the rest.
  const first = stated(moved(rates, scenarios[1].to)).seconds;
  const rows = scenarios.map((s, k) => {
    let [notice, combined, flip, mismatched] = [0, 0, 0, 0];
    const seed = (r) => 1_000_000 * (k + 1) + 2 * r;
    for (let r = 0; r < REPS; r++) {
      const [a, b] = [sequences(rates, seed(r)), sequences(s.to, seed(r) + 1)];
      const [base, mutant] = [run(a, seed(r), 'original'), run(b, seed(r) + 1, 'mutant')];
      const comparison = compareRuns(base, mutant);
      notice += noticed(comparison);
      combined += comparison.suite.pRegressed <= ALPHA;
      flip += flippedFromPass(base.results, mutant.results).length > 0;
      mismatched += regressedOn(evidence(a, b), ALPHA) !== noticed(comparison);
    }
    let [many, manyNoticed] = [0, 0];
    for (let r = REPS; r < REPS + COMBINED_REPS; r++) {
      const tests = evidence(sequences(rates, seed(r)), sequences(s.to, seed(r) + 1));
      many +=
        truncatedProduct(
          tests.map((e) => e.worse),
          SUITE_TRUNCATION,
        ) <= ALPHA;
      manyNoticed += regressedOn(tests, ALPHA);
    }
    return {
      name: s.name,
      ...stated(moved(rates, s.to)),
      noticed: clopperPearsonInterval(notice, REPS),
      combined: clopperPearsonInterval(combined, REPS),
      combinedMany: clopperPearsonInterval(many, COMBINED_REPS),
      noticedMany: clopperPearsonInterval(manyNoticed, COMBINED_REPS),
      mismatched,
      flipped: clopperPearsonInterval(flip, REPS),
    };
  });
  const flipExact = aaVerdictFlipRate(DEFS.map((c) => ({ design: caseDesign(c), rate: inside(rates.get(c.id)) })));
  return {
    reps: REPS,
    combinedReps: COMBINED_REPS,
    cases: DEFS.length,
    rows,
    flipExact,
    first,
    seconds: (performance.now() - t0) / 1000,
  };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const interval = (r) => `${pct(r.p)} [${pct(r.lo)}, ${pct(r.hi)}]`;
const within = (r, x) => (r.lo <= x && x <= r.hi ? 'inside' : 'OUTSIDE');
/**
 * Whether two estimates of one chance agree: the two-proportion z-test (pooled) of their counts at 5%. The stated figure
 * has 4,000 draws of its own, so "inside" one way can fail by its noise alone.
 */
function agree(a, b) {
  const pooled = (a.successes + b.successes) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  const z = se === 0 ? 0 : (a.p - b.p) / se;
  return `${Math.abs(z) <= 1.96 ? 'agree' : 'DIFFER'}, z ${z.toFixed(1)}`;
}

export function printMutate({ reps, combinedReps, cases, rows, flipExact, first, seconds }) {
  console.log(
    `mutate    "noticed" (compare's suite verdict REGRESSED against the unmutated run: a case REGRESSED, or the combined test) on the demo suite (${cases} cases) at its default design, against the power the mutate report states: ${reps} seeded repetitions per row through compareRuns, ${combinedReps} more decided by regressedOn on the same tests; 95% Clopper-Pearson intervals; ${seconds.toFixed(0)} s`,
  );
  for (const m of rows)
    console.log(
      `          ${m.name}: stated ${interval(m.rule)} simulated, at least ${pct(m.floor)} exactly · noticed ${interval(m.noticed)} over ${reps} (stated ${within(m.noticed, m.rule.p)}), ${interval(m.noticedMany)} over ${combinedReps} (stated ${within(m.noticedMany, m.rule.p)}; observed ${within(m.rule, m.noticedMany.p)} the stated interval; ${agree(m.rule, m.noticedMany)}) · the combined test alone ${interval(m.combinedMany)} over ${combinedReps} (the exact floor ${within(m.combinedMany, m.floor)}) · a verdict changed from PASS ${interval(m.flipped)}`,
    );
  const [aa] = rows;
  console.log(
    `          A/A: noticed ${interval(aa.noticed)} over ${reps}, ${interval(aa.noticedMany)} over ${combinedReps}, stated ${interval(aa.rule)} (target ≤ ${100 * ALPHA}%: ratio ${(Math.max(aa.noticedMany.hi, aa.noticed.p) / ALPHA).toFixed(2)}); the simpler rule, a verdict changed from PASS: ${interval(aa.flipped)}, exact ${pct(flipExact)} (ratio ${(flipExact / ALPHA).toFixed(1)} to α)`,
  );
  const mismatched = rows.reduce((s, r) => s + r.mismatched, 0);
  console.log(
    `          regressedOn (the decision the stated chance simulates) against noticed(compareRuns): ${mismatched ? `${mismatched} repetitions DIFFER` : `equal on all ${rows.length * reps} repetitions`}; the stated chance took ${first.toFixed(2)} s for the suite's first mutant (each design's null built), then a median ${median(rows.map((r) => r.seconds)).toFixed(2)} s per mutant (${rows[0].rule.n} draws)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printMutate(benchMutate());
