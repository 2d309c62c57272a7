// bench/mutate: what `skillprobe mutate` calls "noticed" (the suite-level canary of `compare` against the unmutated
// run saying REGRESSED), on the demo suite at its default sequential design. Each repetition draws an unmutated run
// and a mutant's run case by case at the case's pass chance (seeded), stops each case by its design, and decides as
// the mutate driver does (`compareRuns`, then `noticed`). The power the report states is the combined test's alone
// (its exact distribution is a convolution); noticed also counts a case REGRESSED by its own test, so it can only be
// more: the bench checks the combined test against the power and noticed against it as a floor. Beside it: the exact figures the mutate report states
// (`noticePower`, `aaVerdictFlipRate`), and the simpler rule the issue named, "a case's verdict changed from PASS"
// (`flippedFromPass`), with its false alarms between two runs of the same skill.
//
// The rates are the simulator's demo profile's per-case pass chances (the canary bench's seeded draws); the CLI
// transport is left out: it adds minutes per repetition and nothing to the statistics.
import { caseDesign } from '../dist/stats/case-design.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { clopperPearsonInterval } from '../dist/stats/clopper-pearson.js';
import { aaVerdictFlipRate, noticePower } from '../dist/mutate/power.js';
import { flippedFromPass, noticed } from '../dist/mutate/outcome.js';
import { compareRuns } from '../dist/verdict/compare.js';
import { CONFIG, DEFS, DEMO, outcome, storedRun, trueRates } from './canary.mjs';
import { generator } from './lib.mjs';

const REPS = Number(process.env.MUTATE_REPS ?? 200);
const ALPHA = 0.05;

/** One run of the suite at its designs, each trial of a case passing with its chance in `rates`. */
function run(rates, seed, label) {
  const draw = generator(seed);
  const outcomes = DEFS.flatMap((c) => {
    const design = caseDesign(c);
    const seq = [];
    for (let n = 1; n <= design.maxTrials; n++) {
      seq.push(draw() < rates.get(c.id));
      if (decideSequential(seq, design).state !== 'continue') break;
    }
    return seq.map((ok, i) => outcome(c, i + 1, ok));
  });
  return storedRun(`${label}-${seed}`, CONFIG, DEFS, outcomes, seed);
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
    let [notice, combined, flip] = [0, 0, 0];
    for (let r = 0; r < REPS; r++) {
      const base = run(rates, 1_000_000 * (k + 1) + 2 * r, 'original');
      const mutant = run(s.to, 1_000_000 * (k + 1) + 2 * r + 1, 'mutant');
      const comparison = compareRuns(base, mutant);
      notice += noticed(comparison);
      combined += comparison.suite.pRegressed <= ALPHA;
      flip += flippedFromPass(base.results, mutant.results).length > 0;
    }
    return {
      name: s.name,
      stated: noticePower(moved(rates, s.to), ALPHA),
      noticed: clopperPearsonInterval(notice, REPS),
      combined: clopperPearsonInterval(combined, REPS),
      flipped: clopperPearsonInterval(flip, REPS),
    };
  });
  const flipExact = aaVerdictFlipRate(DEFS.map((c) => ({ design: caseDesign(c), rate: inside(rates.get(c.id)) })));
  return { reps: REPS, cases: DEFS.length, rows, flipExact, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const interval = (r) => `${pct(r.p)} [${pct(r.lo)}, ${pct(r.hi)}]`;

export function printMutate({ reps, cases, rows, flipExact, seconds }) {
  console.log(
    `mutate    "noticed" (the suite-level canary REGRESSED against the unmutated run) on the demo suite (${cases} cases) at its default design; ${reps} seeded repetitions per row, 95% Clopper-Pearson intervals; ${seconds.toFixed(0)} s`,
  );
  const [aa, ...moves] = rows;
  console.log(
    `          ${aa.name}: noticed ${interval(aa.noticed)}, exact ${pct(aa.stated)} (target ≤ ${100 * ALPHA}%: ratio ${(Math.max(aa.stated, aa.noticed.p) / ALPHA).toFixed(2)})`,
  );
  console.log(
    `               the simpler rule, a verdict changed from PASS: ${interval(aa.flipped)}, exact ${pct(flipExact)} (ratio ${(flipExact / ALPHA).toFixed(1)} to α)`,
  );
  for (const m of moves)
    console.log(
      `          ${m.name}: the power the report states ${pct(m.stated)} · the combined test alone ${interval(m.combined)} (${m.combined.lo <= m.stated && m.stated <= m.combined.hi ? 'inside' : 'OUTSIDE'}) · noticed (a case REGRESSED too) ${interval(m.noticed)} (${m.stated <= m.noticed.hi ? 'at least the power' : 'BELOW the power'}) · a verdict changed from PASS ${interval(m.flipped)}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) printMutate(benchMutate());
