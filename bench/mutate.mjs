// bench/mutate: what `skillprobe mutate` calls "noticed" (the suite-level canary of `compare` against the unmutated
// run saying REGRESSED), on the demo suite at its default sequential design. Each repetition draws an unmutated run
// and a mutant's run case by case at the case's pass chance (seeded), stops each case by its design, and decides as
// the mutate driver does (`compareRuns`, then `noticed`). The power the report states is the combined test's alone
// (its exact distribution is a convolution); noticed also counts a case REGRESSED by its own test, so it can only be
// more: the bench checks the combined test against the power and noticed against it as a floor. Beside it: the exact figures the mutate report states
// (`noticePower`, `aaVerdictFlipRate`), and the simpler rule the issue named, "a case's verdict changed from PASS"
// (`flippedFromPass`), with its false alarms between two runs of the same skill.
//
// The combined test's rate is also simulated on many more repetitions (COMBINED_REPS) by its own few lines: each
// case's exact design test and the truncated product, the very evidence `compare` combines (checked equal to
// compareRuns' p-value on every full repetition). At 200 repetitions a power of 0.4% shows 0 to 3 times, and its
// interval is too wide to say whether the exact figure is right; at 10,000 it is ±0.1%.
//
// The rates are the simulator's demo profile's per-case pass chances (the canary bench's seeded draws); the CLI
// transport is left out: it adds minutes per repetition and nothing to the statistics.
import { caseDesign } from '../dist/stats/case-design.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { clopperPearsonInterval } from '../dist/stats/clopper-pearson.js';
import { aaVerdictFlipRate, noticePower } from '../dist/mutate/power.js';
import { flippedFromPass, noticed } from '../dist/mutate/outcome.js';
import { compareRuns } from '../dist/verdict/compare.js';
import { stoppedTwoSampleTest } from '../dist/stats/stopped-two-sample.js';
import { truncatedProduct } from '../dist/stats/combine-p-values.js';
import { SUITE_TRUNCATION } from '../dist/verdict/compare-defaults.js';
import { CONFIG, DEFS, DEMO, outcome, storedRun, trueRates } from './canary.mjs';
import { generator } from './lib.mjs';

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

/** The suite-level test's p-value of a drop, straight from the trials: each case's exact design test, truncated product. */
function combinedP(base, mutant) {
  const stopped = (seq, c) => ({ design: caseDesign(c), trials: seq.length, passes: seq.filter(Boolean).length });
  const evidence = DEFS.map((c, i) => {
    const test = stoppedTwoSampleTest(stopped(base[i], c), stopped(mutant[i], c));
    return { p: test.lowerNull.observed, nullValues: test.lowerNull.values };
  });
  return truncatedProduct(evidence, SUITE_TRUNCATION);
}

/** A mutant that halves the pass chance of the cases `which` picks, every other case as it was. */
const halving = (rates, which) => new Map(DEFS.map((c) => [c.id, which(c) ? rates.get(c.id) / 2 : rates.get(c.id)]));

/** Rates kept strictly inside (0, 1), where the exact distributions are defined. */
const inside = (p) => Math.min(1 - 1e-9, Math.max(1e-9, p));

const moved = (from, to) =>
  DEFS.map((c) => ({ caseId: c.id, design: caseDesign(c), from: inside(from.get(c.id)), to: inside(to.get(c.id)) }));

export function benchMutate() {
  const t0 = performance.now();
  const rates = trueRates(DEMO);
  const scenarios = [
    { name: 'null mutant (rates unchanged)', to: rates },
    { name: "halving atl-jira's 4 cases", to: halving(rates, (c) => c.expect === 'atl-jira') },
    { name: 'halving one case (jira-create-bug)', to: halving(rates, (c) => c.id === 'jira-create-bug') },
  ];
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
      mismatched += Math.abs(combinedP(a, b) - comparison.suite.pRegressed) > 1e-12;
    }
    let many = 0;
    for (let r = REPS; r < REPS + COMBINED_REPS; r++) many += combinedP(sequences(rates, seed(r)), sequences(s.to, seed(r) + 1)) <= ALPHA;
    return {
      name: s.name,
      stated: noticePower(moved(rates, s.to), ALPHA),
      noticed: clopperPearsonInterval(notice, REPS),
      combined: clopperPearsonInterval(combined, REPS),
      combinedMany: clopperPearsonInterval(many, COMBINED_REPS),
      mismatched,
      flipped: clopperPearsonInterval(flip, REPS),
    };
  });
  const flipExact = aaVerdictFlipRate(DEFS.map((c) => ({ design: caseDesign(c), rate: inside(rates.get(c.id)) })));
  return { reps: REPS, combinedReps: COMBINED_REPS, cases: DEFS.length, rows, flipExact, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const interval = (r) => `${pct(r.p)} [${pct(r.lo)}, ${pct(r.hi)}]`;

const holds = (r, x) => (r.lo <= x && x <= r.hi ? 'inside' : 'OUTSIDE');

export function printMutate({ reps, combinedReps, cases, rows, flipExact, seconds }) {
  console.log(
    `mutate    "noticed" (the suite-level canary REGRESSED against the unmutated run) on the demo suite (${cases} cases) at its default design; ${reps} seeded repetitions per row through compareRuns, ${combinedReps} more of the combined test alone; 95% Clopper-Pearson intervals; ${seconds.toFixed(0)} s`,
  );
  const [aa, ...moves] = rows;
  console.log(
    `          ${aa.name}: noticed ${interval(aa.noticed)}, exact ${pct(aa.stated)}, the combined test alone over ${combinedReps} ${interval(aa.combinedMany)} (target ≤ ${100 * ALPHA}%: ratio ${(Math.max(aa.stated, aa.noticed.p) / ALPHA).toFixed(2)})`,
  );
  console.log(
    `               the simpler rule, a verdict changed from PASS: ${interval(aa.flipped)}, exact ${pct(flipExact)} (ratio ${(flipExact / ALPHA).toFixed(1)} to α)`,
  );
  for (const m of moves)
    console.log(
      `          ${m.name}: the power the report states ${pct(m.stated)} · the combined test alone ${interval(m.combined)} (${holds(m.combined, m.stated)}), over ${combinedReps} ${interval(m.combinedMany)} (${holds(m.combinedMany, m.stated)}) · noticed (a case REGRESSED too) ${interval(m.noticed)} (${m.stated <= m.noticed.hi ? 'at least the power' : 'BELOW the power'}) · a verdict changed from PASS ${interval(m.flipped)}`,
    );
  const mismatched = rows.reduce((s, r) => s + r.mismatched, 0);
  console.log(
    `          the combined test's few lines against compareRuns' p-value: ${mismatched ? `${mismatched} repetitions DIFFER` : `equal on all ${rows.length * reps} repetitions`}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printMutate(benchMutate());
