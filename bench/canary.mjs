// bench/canary: the suite-level canary and the per-case tests under the stored designs, on the runs skillprobe
// makes by default (the demo suite at its sequential design). Each repetition draws two runs from the model
// simulator's seeded behaviour (two seeds) and compares them with `compareRuns`, the function `skillprobe compare`
// calls. Beside each figure: what the same data gave before (the anytime-valid tests, the only valid option the
// old code had for sequentially stopped runs), and the exact error rates where they can be computed.
//
// A trial passes as the graders would score the simulator's first-turn draw: a positive case when it calls (or
// reads) the expected skill and, where the case checks a plan, the simulator did not garble it; a negative case when
// no skill fired. The CLI transport is left out: it adds minutes per repetition and nothing to the statistics.
import { join } from 'node:path';
import { loadConfig } from '../dist/load/config.js';
import { loadCases } from '../dist/load/cases.js';
import { configSchema } from '../dist/run/config-schema.js';
import { loadProfile } from '../dist/sim/profile.js';
import { firstBehaviour } from '../dist/sim/policy.js';
import { seededUniform } from '../dist/util/random.js';
import { caseDesign } from '../dist/stats/case-design.js';
import { decideSequential } from '../dist/stats/sequential-design.js';
import { logEndProbability, stoppedEnds } from '../dist/stats/stopped-binomial.js';
import { stoppedTwoSampleTest } from '../dist/stats/stopped-two-sample.js';
import { boschlooTest } from '../dist/stats/boschloo.js';
import { suiteCanaryPower } from '../dist/stats/suite-power.js';
import { gradableCase } from '../dist/trials/stored-case.js';
import { SUITE_TRUNCATION } from '../dist/verdict/compare-defaults.js';
import { planComparison } from '../dist/report/plan-compare.js';
import { compareRuns } from '../dist/verdict/compare.js';
import { buildResults } from '../dist/verdict/results.js';

const ROOT = new URL('..', import.meta.url).pathname;
const REPS = Number(process.env.CANARY_REPS ?? 200);
const ALPHA = 0.05;
const FAMILY = ['atl', 'atl-confluence', 'atl-jira', 'csv-report'];
const NONE = 'none';

const { config: userConfig } = loadConfig(join(ROOT, 'skillprobe.config.yaml'), {});
// The skill arm only: the suite-level verdict and the gate read it alone.
export const CONFIG = { ...userConfig, arms: ['skill'] };
const SUITE = loadCases(
  join(ROOT, 'cases/*.yaml'),
  FAMILY.map((name) => ({ dir: name, name })),
  CONFIG.decision,
);
export const DEFS = SUITE.cases.map((c) => gradableCase(c, CONFIG));
export const DEMO = loadProfile(join(ROOT, 'sim/demo.profile.yaml'));
const HALVED = loadProfile(join(ROOT, 'test/fixtures/sim/demo-halved.profile.yaml'));

/** Whether trial n of a case passes under `profile`: the simulator's seeded first-turn draw, scored. */
export function passes(profile, c, n) {
  const key = `${c.id}/skill/${n}`;
  const view = { offeredSkills: FAMILY, tools: ['Skill', 'Read'], prompt: c.prompt, turn: 0, lastResults: [] };
  const { behaviour: b, plan } = firstBehaviour(profile, view, { key, caseId: c.id });
  const fired = b.skill ?? b.read;
  if (c.expect === NONE) return fired === undefined && b.sibling === undefined;
  if (fired !== c.expect) return false;
  return !(c.plan?.verb && seededUniform(profile.seed, key, 'plan') < plan.wrong);
}

export function outcome(c, n, passed) {
  const column = passed ? (c.expect === NONE ? NONE : c.expect) : c.expect === NONE ? 'atl-jira' : NONE;
  return {
    caseId: c.id,
    arm: 'skill',
    n,
    status: 'ok',
    passed,
    firings: [],
    firedColumn: column,
    fired: column === NONE ? 'none' : column === c.expect ? 'expected' : 'sibling',
    readOnly: false,
    flags: { noop: false, clarifying: false },
    parseWarnings: 0,
  };
}

/** One run of the suite at its sequential designs: each case draws trials until its design decides. */
export function designedRun(profile, seed, label = 'run') {
  const p = { ...profile, seed };
  const outcomes = DEFS.flatMap((c) => {
    const design = caseDesign(c);
    const seq = [];
    for (let n = 1; n <= design.maxTrials; n++) {
      seq.push(passes(p, c, n));
      if (decideSequential(seq, design).state !== 'continue') break;
    }
    return seq.map((ok, i) => outcome(c, i + 1, ok));
  });
  return storedRun(`${label}-${seed}`, CONFIG, DEFS, outcomes, seed);
}

/** One run of the suite at a fixed n per case. */
export function fixedRun(profile, seed, n) {
  const p = { ...profile, seed };
  const config = configSchema.parse({ arms: ['skill'], decision: { mode: 'fixed' }, trials: n });
  const outcomes = DEFS.flatMap((c) => Array.from({ length: n }, (_, i) => outcome(c, i + 1, passes(p, c, i + 1))));
  return storedRun(`fixed-${seed}`, config, DEFS, outcomes, seed);
}

export function storedRun(runId, config, defs, outcomes, seed) {
  const manifest = {
    runId,
    harness: { name: 'skillprobe', version: 'bench' },
    status: 'completed',
    startedAt: '2026-12-01T00:00:00Z',
    agent: { id: 'claude-code', binary: 'claude', cliVersion: 'bench' },
    model: 'simulated',
    config,
    skills: FAMILY.map((name) => ({ dir: name, name, hash: 'h' })),
    skillsHash: 'h',
    cases: { files: [], hash: 'c', defs },
    family: FAMILY.map((name) => ({ dir: name, name })),
    simulator: { profile: 'bench', name: 'bench', seed },
    trials: { planned: outcomes.length, finished: outcomes.length, notStarted: 0 },
  };
  return { dir: runId, manifest, results: buildResults(manifest, outcomes, [], new Date(0)) };
}

/** The same two runs judged as the code before this canary judged sequentially stopped runs: the anytime-valid tests. */
function anytimeOnly(run) {
  return { ...run, manifest: { ...run.manifest, cases: { ...run.manifest.cases, defs: [] } } };
}

/** Each case's pass rate under a profile: the share of its seeded draws that pass, over many trial keys. */
export function trueRates(profile) {
  return new Map(
    DEFS.map((c) => {
      let k = 0;
      for (let n = 1; n <= 20_000; n++) if (passes(profile, c, n)) k++;
      return [c.id, k / 20_000];
    }),
  );
}

/**
 * The exact size of the per-case test under the default design, sup over the common rate, beside what the
 * fixed-N test (Boschloo on the counts as stored) really rejects at when both runs stopped by the design.
 */
function exactSizes() {
  const design = caseDesign(DEFS.find((c) => c.expect !== NONE && !c.tags.includes('vague')));
  const ends = stoppedEnds(design);
  const rejects = (test) => ends.map((b) => ends.map((c) => test(b, c) <= ALPHA));
  const exact = rejects((b, c) => stoppedTwoSampleTest({ design, ...b }, { design, ...c }).twoSided);
  const naive = rejects((b, c) => boschlooTest(b.passes, b.trials, c.passes, c.trials).twoSided);
  const size = (region) => {
    let worst = 0;
    for (let i = 1; i < 200; i++) {
      const pi = i / 200;
      const [lp, lq] = [Math.log(pi), Math.log(1 - pi)];
      let mass = 0;
      ends.forEach((b, x) =>
        ends.forEach((c, y) => {
          if (region[x][y]) mass += Math.exp(logEndProbability(b, lp, lq) + logEndProbability(c, lp, lq));
        }),
      );
      worst = Math.max(worst, mass);
    }
    return worst;
  };
  return { maxTrials: design.maxTrials, ends: ends.length, exact: size(exact), naive: size(naive) };
}

const regressedAny = (cmp) => cmp.cases.some((c) => c.arm === 'skill' && c.change === 'REGRESSED');

/** Rates kept strictly inside (0, 1), where the exact distributions are defined. */
const inside = (p) => Math.min(1 - 1e-9, Math.max(1e-9, p));

/** The suite-level test's exact power (and, with equal rates, its exact size) at the default designs. */
function exactPower(from, to, tau) {
  return suiteCanaryPower(
    DEFS.map((c) => ({ base: caseDesign(c), candidate: caseDesign(c), from: inside(from.get(c.id)), to: inside(to.get(c.id)) })),
    ALPHA,
    tau,
  );
}

/** The one-case drop of the baseline canary's target, 0.90 → 0.60 among ten unchanged cases at 0.90, at the demo's default design. */
function oneCaseDrop() {
  const at = (p) => new Map(DEFS.map((c, i) => [c.id, i === 0 ? p : 0.9]));
  const fixed = planComparison(0.9, 0.6, ALPHA, 0.8, { cases: DEFS.length, caseArms: DEFS.length, minTrials: 6 });
  return {
    suite: exactPower(at(0.9), at(0.6), SUITE_TRUNCATION),
    fixedN: fixed.acrossCases,
    fixedTotal: 2 * fixed.acrossCases * DEFS.length,
  };
}

export function benchCanary() {
  const t0 = performance.now();
  const tally = {
    aaSuite: 0,
    aaCase: 0,
    aaSuiteOld: 0,
    aaCaseOld: 0,
    hSuite: 0,
    hCase: 0,
    hOld: 0,
    trialsBase: 0,
    trialsHalved: 0,
    coverAA: 0,
    coverH: 0,
  };
  const [demoRates, halvedRates] = [trueRates(DEMO), trueRates(HALVED)];
  const trueDiff = [...demoRates.keys()].reduce((s, id) => s + halvedRates.get(id) - demoRates.get(id), 0) / demoRates.size;
  for (let r = 0; r < REPS; r++) {
    const base = designedRun(DEMO, 10_000 + r, 'demo');
    const again = designedRun(DEMO, 20_000 + r, 'demo');
    const halved = designedRun(HALVED, 30_000 + r, 'halved');
    const aa = compareRuns(base, again);
    const aaOld = compareRuns(anytimeOnly(base), anytimeOnly(again));
    const h = compareRuns(base, halved);
    const hOld = compareRuns(anytimeOnly(base), anytimeOnly(halved));
    tally.aaSuite += aa.suite.change === 'REGRESSED';
    tally.aaCase += regressedAny(aa);
    tally.aaSuiteOld += aaOld.suite.change === 'REGRESSED';
    tally.aaCaseOld += regressedAny(aaOld);
    tally.hSuite += h.suite.change === 'REGRESSED';
    tally.hCase += regressedAny(h);
    tally.hOld += hOld.exitCode === 1 && regressedAny(hOld);
    tally.trialsBase += base.results.outcomes.length;
    tally.trialsHalved += halved.results.outcomes.length;
    const [ia, ih] = [aa.suite.rates.passRate, h.suite.rates.passRate];
    tally.coverAA += ia.lo <= 0 && 0 <= ia.hi;
    tally.coverH += ih.lo <= trueDiff && trueDiff <= ih.hi;
  }
  const exact = {
    halved: exactPower(demoRates, halvedRates, SUITE_TRUNCATION),
    halvedFisher: exactPower(demoRates, halvedRates, 1),
    aa: exactPower(demoRates, demoRates, SUITE_TRUNCATION),
    aaFisher: exactPower(demoRates, demoRates, 1),
    one: oneCaseDrop(),
  };
  return { reps: REPS, cases: DEFS.length, tally, trueDiff, exact, sizes: exactSizes(), seconds: (performance.now() - t0) / 1000 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

export function printCanary({ reps, cases, tally: t, trueDiff, exact, sizes, seconds }) {
  const per = (x) => x / reps;
  const ratio = (x, target) => (x / target).toFixed(2);
  console.log(
    `canary    the demo suite (${cases} cases) at its default sequential design; simulated: ${reps} repetitions of two seeded runs per comparison; ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          A/A  suite-level REGRESSED: exact ${pct(exact.aa)} at the demo's rates (Fisher untruncated ${pct(exact.aaFisher)}), simulated ${pct(per(t.aaSuite))} (target ≤ ${100 * ALPHA}%: ratio ${ratio(Math.max(exact.aa, per(t.aaSuite)), ALPHA)})`,
  );
  console.log(
    `               any case REGRESSED after BH: simulated ${pct(per(t.aaCase))} (ratio ${ratio(per(t.aaCase), ALPHA)}) · before (anytime tests): ${pct(per(t.aaSuiteOld))} suite, ${pct(per(t.aaCaseOld))} a case`,
  );
  console.log(
    `          halved routing, both runs at the default design, no extra trials (${(t.trialsBase / reps).toFixed(0)} + ${(t.trialsHalved / reps).toFixed(0)} trials):`,
  );
  console.log(
    `               suite-level REGRESSED: exact ${pct(exact.halved)} (target ≥ 95%: ratio ${ratio(exact.halved, 0.95)}; Fisher untruncated ${pct(exact.halvedFisher)}), simulated ${pct(per(t.hSuite))} · a case REGRESSED ${pct(per(t.hCase))} · before (anytime tests): exit 1 in ${pct(per(t.hOld))}`,
  );
  console.log(
    `          suite pass-rate difference, 95% interval coverage (simulated): A/A ${pct(per(t.coverAA))} · halved ${pct(per(t.coverH))} (true mean change ${trueDiff.toFixed(3)})`,
  );
  console.log(
    `          per-case test, exact size at α ${ALPHA} (sup over the common rate; design max ${sizes.maxTrials}, ${sizes.ends} ends): under both designs ${sizes.exact.toFixed(4)} · Boschloo on the stopped counts ${sizes.naive.toFixed(4)}`,
  );
  console.log(
    `          one case 0.90 → 0.60 among ${cases - 1} at 0.90: the suite-level test at the default design flags it in ${pct(exact.one.suite)} (exact); the fixed-N canary takes ${exact.one.fixedN} trials per case and run (${exact.one.fixedTotal} in all) for 80% (the baseline canary: bench/baseline-canary)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printCanary(benchCanary());
