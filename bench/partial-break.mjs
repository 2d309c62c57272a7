// bench/partial-break: the canary must never be green on a broken model. The demo suite (11 cases at their own
// designs); the candidate model breaks two cases, jira-move-done and csv-summary, from about 0.96 to 0.55, and
// changes nothing else. Each repetition draws a base and a candidate from the simulator's seeded behaviour (their
// own seeds: independent draws), runs the candidate as `run --baseline` does (the real canary plan and scheduler,
// stopping at the first regression), and judges it with `compareRuns`, the function the command reports; and the
// A/A pair (the candidate from the unbroken profile). Two bases: the default design (the run users make anyway) and
// the fixed-N base `plan --compare` prescribes (`run --for-baseline`). Beside each: the old rule on the same runs
// (the suite UNCHANGED when the mean change lies within the margin, an undecided case a clean exit 0).
import { baseTrialsFor } from '../dist/report/plan-compare.js';
import { boundedEnds, canaryOperating } from '../dist/stats/canary-design.js';
import { fixedTrialsDesign } from '../dist/stats/stopped-binomial.js';
import { sideLevel } from '../dist/verdict/stopped-sample.js';
import { makeScheduler } from '../dist/runner/execute.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { canaryCap, canaryCaps, canaryFutilityLevel, caseUnchangedPower, planCanary } from '../dist/verdict/canary.js';
import { trialsToDetect } from '../dist/stats/sample-size.js';
import { boundariesDesign } from '../dist/verdict/stopped-sample.js';
import { compareRuns } from '../dist/verdict/compare.js';
import { COMPARE_DEFAULTS } from '../dist/verdict/compare-defaults.js';
import { CONFIG, DEFS, DEMO, designedRun, fixedRun, outcome, passes, storedRun, trueRates } from './canary.mjs';

const REPS = Number(process.env.BREAK_REPS ?? 200);
// Canary repetitions also judged by `compareRuns` (its exact p-values against a base of 186 trials cost seconds a
// comparison); every repetition is judged by the canary's own boundaries, which decide the same (test/canary.test.ts:
// a p-value at most the case's α exactly when the trials reached the REGRESSED boundary; UNCHANGED only where the
// row's interval rules the margin out), and the bench counts how often the two agree where both ran.
const COMPARED = Number(process.env.BREAK_COMPARED ?? 3);
const { alpha: ALPHA, margin: MARGIN, power: POWER } = COMPARE_DEFAULTS;
const BROKEN_CASES = ['jira-move-done', 'csv-summary'];
const BROKEN_RATE = 0.55;

/** The demo profile with the two cases' expected skill called at 0.55, the rest of their draws a plain answer. */
const BROKEN = {
  ...DEMO,
  rules: DEMO.rules.map((r) => {
    if (!BROKEN_CASES.includes(r.case)) return r;
    const call = r.do.find((d) => d.skill !== undefined);
    return {
      ...r,
      do: [
        { ...call, p: BROKEN_RATE },
        { p: 1 - BROKEN_RATE, answer: 'Do it by hand.' },
      ],
    };
  }),
};

/** The candidate as `run --baseline` runs it: the canary's own scheduler, one trial at a time. */
function canaryRun(canary, profile, seed) {
  const p = { ...profile, seed };
  const scheduler = makeScheduler(CONFIG, DEFS, { canary });
  const outcomes = [];
  for (let ref = scheduler.next(); ref; ref = scheduler.next()) {
    const c = DEFS.find((d) => d.id === ref.caseId);
    const ok = passes(p, c, ref.n);
    outcomes.push(outcome(c, ref.n, ok));
    scheduler.finished(ref, ok);
  }
  const run = storedRun(`canary-${seed}`, CONFIG, DEFS, outcomes, seed);
  return { ...run, manifest: { ...run.manifest, canary } };
}

/** The old exit rule on the same comparison: 1 on a regression (the suite's combined test or a case), else 0. */
const oldExit = (cmp) => (cmp.suite.pRegressed <= ALPHA || cmp.cases.some((c) => c.arm === 'skill' && c.change === 'REGRESSED') ? 1 : 0);
/** The old suite verdict: UNCHANGED when no drop is significant and the mean change lies within ±margin. */
const oldSuiteUnchanged = (cmp) =>
  cmp.suite.pRegressed > ALPHA &&
  cmp.suite.pImproved > ALPHA &&
  cmp.suite.rates.passRate.lo > -MARGIN &&
  cmp.suite.rates.passRate.hi < MARGIN;

function tally() {
  return { exit: { 0: 0, 1: 0, 3: 0, 4: 0 }, both: 0, oldExit0: 0, oldUnchanged: 0, trials: 0, contradictions: 0, compared: 0, agreed: 0 };
}

/**
 * The canary's own decision, case by case, from its stored boundaries: REGRESSED where the trials reached the
 * reject boundary, UNCHANGED where they reached the accept one, else undecided; the exit code the run gate gives it.
 */
function boundaryDecision(canary, run) {
  const states = canary.cases.map((e) => {
    const seq = run.results.outcomes
      .filter((o) => o.caseId === e.caseId)
      .sort((a, b) => a.n - b.n)
      .map((o) => o.passed);
    return { caseId: e.caseId, state: decideSequential(seq, boundariesDesign(e.design)).state };
  });
  const regressed = new Set(states.filter((s) => s.state === 'reject').map((s) => s.caseId));
  const exitCode = regressed.size ? 1 : states.every((s) => s.state === 'accept') ? 0 : 3;
  return { regressed, exitCode };
}

/** One repetition's verdicts: from `compareRuns` when it ran, else from the canary's boundaries (`decided`). */
function count(t, candidate, cmp, decided) {
  const exitCode = cmp ? cmp.exitCode : decided.exitCode;
  t.exit[exitCode] = (t.exit[exitCode] ?? 0) + 1;
  const regressed = cmp ? new Set(cmp.cases.filter((c) => c.change === 'REGRESSED').map((c) => c.caseId)) : decided.regressed;
  t.both += BROKEN_CASES.every((id) => regressed.has(id));
  t.trials += candidate.results.outcomes.length;
  if (!cmp) return;
  t.compared++;
  if (decided) t.agreed += decided.exitCode === cmp.exitCode && [...decided.regressed].every((id) => regressed.has(id));
  t.oldExit0 += oldExit(cmp) === 0;
  t.oldUnchanged += oldSuiteUnchanged(cmp);
  // A suite UNCHANGED beside a case REGRESSED or left open, or an exit 0 with an undecided case.
  t.contradictions +=
    (cmp.suite.change === 'UNCHANGED' && cmp.cases.some((c) => c.change === 'REGRESSED' || c.change === 'UNDECIDED')) ||
    (cmp.exitCode === 0 && cmp.cases.some((c) => c.change === 'UNDECIDED'));
}

/**
 * Exact, at a fixed base of n, from the canary's own dynamic programme at each case's true rate (the base's draw
 * included), each case at the caps a base reading its true rate gets (`caps`): the chance any case is flagged
 * REGRESSED under no change, both broken cases' chance to be flagged, and the chance every case says UNCHANGED (exit
 * 0) under no change. Cases are independent runs of their own boundaries.
 */
function exactFixedBase(n, caps, demo, broken) {
  const ends = boundedEnds(fixedTrialsDesign(n), sideLevel(1 - ALPHA));
  const probe = planCanary(fixedRun(DEMO, 1, n), DEFS, { alpha: ALPHA, margin: MARGIN, power: POWER, stopAtFirstRegression: false }).canary;
  const inside = (p) => Math.min(1 - 1e-9, Math.max(1e-9, p));
  let [quiet, allUnchanged, both] = [1, 1, 1];
  for (const e of probe.cases) {
    const rate = inside(demo.get(e.caseId));
    const { regressionCap, maxTrials } = caps(rate);
    const op = (from, to) =>
      canaryOperating(ends, from, to, e.critical, {
        margin: probe.margin,
        futilityLevel: probe.futilityLevel,
        minTrials: e.design.minTrials,
        maxTrials,
        regressionCap,
      });
    const same = op(rate, rate);
    quiet *= 1 - same.regressed;
    allUnchanged *= same.unchanged;
    if (BROKEN_CASES.includes(e.caseId)) both *= op(rate, inside(broken.get(e.caseId))).regressed;
  }
  return { aaExit1: 1 - quiet, aaExit0: allUnchanged, both };
}

export function benchPartialBreak() {
  const t0 = performance.now();
  const m = DEFS.length;
  // The old rule: a base of the fixed-N canary's size (186 on the demo), every case capped where a drop from the
  // threshold is caught; the new: a base sized for UNCHANGED at the worst variance, each case's cap from its base.
  const oldBase = trialsToDetect(0.9, 0.9 - MARGIN, ALPHA / m, POWER);
  const prescribed = baseTrialsFor(m, 0.9, 0.9 - MARGIN, ALPHA, POWER);
  const oldCap = canaryCap(0.9, MARGIN, ALPHA / m, POWER, oldBase);
  const scenarios = {
    defaultBreak: tally(),
    defaultAA: tally(),
    compareBreak: tally(),
    oldBreak: tally(),
    oldAA: tally(),
    prescribedBreak: tally(),
    prescribedAA: tally(),
  };
  const plan = (b, maxTrials) =>
    planCanary(b, DEFS, { alpha: ALPHA, margin: MARGIN, power: POWER, stopAtFirstRegression: false, ...(maxTrials ? { maxTrials } : {}) })
      .canary;
  for (let r = 0; r < REPS; r++) {
    const base = designedRun(DEMO, 40_000 + r, 'base');
    const big = fixedRun(DEMO, 50_000 + r, prescribed);
    const before = fixedRun(DEMO, 50_000 + r, oldBase);
    const [small, large, old] = [plan(base), plan(big), plan(before, oldCap)];
    for (const [key, b, canary, profile] of [
      ['defaultBreak', base, small, BROKEN],
      ['defaultAA', base, small, DEMO],
      ['oldBreak', before, old, BROKEN],
      ['oldAA', before, old, DEMO],
      ['prescribedBreak', big, large, BROKEN],
      ['prescribedAA', big, large, DEMO],
    ]) {
      const candidate = canaryRun(canary, profile, 60_000 + r);
      const judged = r < COMPARED;
      count(scenarios[key], candidate, judged ? compareRuns(b, candidate) : undefined, boundaryDecision(canary, candidate));
    }
    const plain = designedRun(BROKEN, 70_000 + r, 'candidate');
    count(scenarios.compareBreak, plain, compareRuns(base, plain));
  }
  const simulated = (performance.now() - t0) / 1000;
  const [demo, broken] = [trueRates(DEMO), trueRates(BROKEN)];
  const futilityLevel = canaryFutilityLevel(ALPHA);
  const newCaps = (rate) =>
    canaryCaps(
      { trials: prescribed, passes: Math.round(rate * prescribed) },
      { threshold: 0.9, margin: MARGIN, caseAlpha: ALPHA / m, power: POWER, unchangedPower: caseUnchangedPower(POWER, m), futilityLevel },
    );
  return {
    exact: exactFixedBase(prescribed, newCaps, demo, broken),
    exactOld: exactFixedBase(oldBase, () => ({ regressionCap: oldCap, maxTrials: oldCap }), demo, broken),
    reps: REPS,
    prescribed,
    oldBase,
    rates: BROKEN_CASES.map((id) => `${id} ${demo.get(id).toFixed(2)} → ${broken.get(id).toFixed(2)}`).join(', '),
    scenarios,
    simulated,
    seconds: (performance.now() - t0) / 1000,
  };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

export function printPartialBreak({ reps, prescribed, oldBase, rates, scenarios: s, exact, exactOld, simulated, seconds }) {
  const per = (x) => x / reps;
  const line = (label, t, target) =>
    console.log(
      `          ${label}: exit 1 ${pct(per(t.exit[1]))}, 3 ${pct(per(t.exit[3]))}, 0 ${pct(per(t.exit[0]))}, 4 ${pct(per(t.exit[4]))} · both cases REGRESSED ${pct(per(t.both))} · ${(t.trials / reps).toFixed(0)} candidate trials${target}\n` +
        `              compareRuns on ${t.compared} of them: verdicts contradicting each other ${t.contradictions}` +
        (t.compared < reps ? `, the same exit code and REGRESSED cases as the boundaries in ${t.agreed}` : '') +
        ` · the old mean rule on the same runs: exit 0 ${pct(t.oldExit0 / t.compared)}, suite UNCHANGED ${pct(t.oldUnchanged / t.compared)}`,
    );
  const exactLine = (label, n, x) =>
    console.log(
      `          exact, ${label} (base ${n}), by the canary's boundaries at each case's true rate: both broken cases REGRESSED ${pct(x.both)} (target ≥ 80%: ratio ${(x.both / 0.8).toFixed(2)}) · A/A any case REGRESSED ${pct(x.aaExit1)} (target ≤ ${100 * ALPHA}%: ratio ${(x.aaExit1 / ALPHA).toFixed(2)}), every case UNCHANGED (exit 0) ${pct(x.aaExit0)} (target ≥ 80%: ratio ${(x.aaExit0 / 0.8).toFixed(2)})`,
    );
  console.log(
    `break     the demo suite, two of 11 cases break (${rates}); ${reps} repetitions of independent seeded runs; ${seconds.toFixed(0)} s (${simulated.toFixed(0)} s simulated, the rest exact)`,
  );
  line(
    'run --baseline, base at the default design',
    s.defaultBreak,
    ` (target: REGRESSED or exit 3 ≥ 95%: ratio ${(per(s.defaultBreak.exit[1] + s.defaultBreak.exit[3]) / 0.95).toFixed(2)}, exit 0 never: ${s.defaultBreak.exit[0]})`,
  );
  line('      A/A, same base', s.defaultAA, ` (target exit 1 ≤ ${100 * ALPHA}%: ratio ${(per(s.defaultAA.exit[1]) / ALPHA).toFixed(2)})`);
  line('compare, both runs at the default design', s.compareBreak, ` (exit 0 never: ${s.compareBreak.exit[0]})`);
  line(`old rule: base of ${oldBase} per case (the fixed-N canary's), caps at the threshold`, s.oldBreak, '');
  line('      A/A, same base', s.oldAA, '');
  line(
    `new rule: base of ${prescribed} per case (plan --compare), each case's cap from its base`,
    s.prescribedBreak,
    ` (target: both REGRESSED ≥ 80%: ratio ${(per(s.prescribedBreak.both) / 0.8).toFixed(2)}; exit 0 never: ${s.prescribedBreak.exit[0]})`,
  );
  line(
    '      A/A, same base',
    s.prescribedAA,
    ` (target exit 1 ≤ ${100 * ALPHA}%: ratio ${(per(s.prescribedAA.exit[1]) / ALPHA).toFixed(2)}; exit 0 ≥ 80%: ratio ${(per(s.prescribedAA.exit[0]) / 0.8).toFixed(2)})`,
  );
  exactLine('old rule', oldBase, exactOld);
  exactLine('new rule', prescribed, exact);
}

if (import.meta.url === `file://${process.argv[1]}`) printPartialBreak(benchPartialBreak());
