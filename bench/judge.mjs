// bench/judge: the judge's own statistics, exact where the counts are binomial (or a 2×2 table's
// multinomial), each confirmed by seeded simulations through the product's functions. The simulated judge gives
// every sample its item's usual answer except with probability f (e), independently.
//   stability: 3 samples of 1 item in 10 trials per case; UNSTABLE by the exact one-sided test, beside the simpler
//              rule "the share of disagreeing items is above maxFlipRate", and the coverage of the share's interval.
//   rejudge:   200 stored trials of 1 item, 3 samples, re-asked: the coverage of the per-sample flip rate's interval,
//              beside reading the share of changed answers as the flip rate, and of the changed verdicts' interval.
//   κ:         judge verdicts against human labels at 50 and 200 labels: the coverage of the reported interval
//              beside the plain large-sample one, and how often each figure claims agreement beyond chance, beside
//              raw agreement (its lower bound above 1/2).
//   gate:      judge.gate with a judge that cannot be trusted (uncalibrated, or UNSTABLE at f 0.25), one judged case
//              whose skill fires at rate p: how often the run exits 1 (a real FAIL kept) and how often a truly good
//              case is failed, beside the gate it replaces (every such case INCONCLUSIVE); exact for fixed N through
//              the product's verdicts, simulated through them for the default sequential design.
// JUDGE_REPS sets the simulated repetitions per setting.
import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { agreementTable, cohenKappa, kappaWaldInterval } from '../dist/stats/cohen-kappa.js';
import { DEFAULT_STABILITY_RULE, judgeStability, stabilityDecision } from '../dist/stats/judge-stability.js';
import { flipRateFromChanged, rejudgeFlip } from '../dist/stats/rejudge-flip.js';
import { wilsonInterval } from '../dist/stats/wilson.js';
import { clopperPearsonInterval } from '../dist/stats/clopper-pearson.js';
import { generator } from './lib.mjs';
import { applyJudgements } from '../dist/grade/judge-apply.js';
import { trialAskId } from '../dist/grade/judge-asks.js';
import { configSchema } from '../dist/run/config-schema.js';
import { buildResults } from '../dist/verdict/results.js';
import { binomialTestBelow } from '../dist/stats/binomial-test.js';
import { caseDesign, storedDecision } from '../dist/stats/case-design.js';
import { designOperating } from '../dist/stats/sequential-design.js';

const REPS = Number(process.env.JUDGE_REPS ?? 2000);
const SEED = 25;
const SAMPLES = 3;
const RULE = DEFAULT_STABILITY_RULE;
/** Nominal coverage is the rule's confidence; a binomial's discreteness moves exact coverage a little either way. */
const COVERAGE_FLOOR = 0.93;

/** At 3 samples the chance an item's samples disagree is 1 − (1 − f)³ − f³ = 3f(1 − f). */
const disagreeChance = (f) => 1 - (1 - f) ** SAMPLES - f ** SAMPLES;
/** The flip rate at which the disagreement share sits exactly at maxFlipRate: the root of 3f(1 − f) = maxFlipRate. */
const BOUND_F = (1 - Math.sqrt(1 - (4 * RULE.maxFlipRate) / 3)) / 2;

const STABILITY = {
  trials: 10,
  settings: [
    { f: 0, target: { most: 0, label: 'never' } },
    { f: 0.02, target: { most: 0.05, label: '≤ 5%' } },
    { f: BOUND_F, target: { most: RULE.alpha, label: `≤ α ${RULE.alpha} (at the bound)` } },
    { f: 0.25, target: { least: 0.9, label: '≥ 90%' } },
  ],
};
const REJUDGE = { trials: 200, flipRates: [0.02, 0.07, 0.2] };
const KAPPA = {
  labels: [50, 200],
  settings: [
    { name: 'good judge', humanYes: 0.5, sensitivity: 0.9, specificity: 0.9 },
    { name: 'rare yes', humanYes: 0.2, sensitivity: 0.8, specificity: 0.95 },
    { name: 'near-perfect', humanYes: 0.5, sensitivity: 0.99, specificity: 0.99 },
    // Says yes to 90 % of items whatever the label, against labels 90 % yes: raw agreement 0.82, κ 0.
    { name: 'chance judge', humanYes: 0.9, sensitivity: 0.9, specificity: 0.1 },
  ],
};
const GATE = {
  /** Fixed-N trials, and the default sequential design's cap for the simulation. */
  fixedTrials: 20,
  /** Trigger rates: p0 (a good case at its threshold: FAIL here is a false alarm), p1, and clear failures. */
  rates: [0.9, 0.7, 0.5, 0],
  /** The UNSTABLE judge's per-sample flip rate (UNSTABLE in about 89% of cases at 3 samples and 10 trials). */
  unstableFlip: 0.25,
  /** Simulated runs per rate under the default sequential design. */
  sequentialRuns: Math.ceil(REPS / 4),
};
/** A figure claiming agreement beyond chance for the chance judge: the κ interval's lower tail, α/2. */
const CHANCE_CLAIM_TARGET = (1 - RULE.confidence) / 2;

/** E[g(k)] for k ~ Binomial(n, p), exactly. */
function expectBinomial(n, p, g) {
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    const m = binomialPmf(k, n, p);
    if (m > 0) sum += m * g(k);
  }
  return sum;
}

// Rounding in an interval's bounds must not decide coverage at an exact 0.
const covers = ({ lo, hi }, x) => lo <= x + 1e-12 && x <= hi + 1e-12;
/** One item's samples from a judge whose usual answer is yes. */
const itemSamples = (draw, f, k = SAMPLES) => Array.from({ length: k }, () => (draw() < f ? 'no' : 'yes'));

function benchStability() {
  const n = STABILITY.trials;
  return STABILITY.settings.map(({ f, target }, i) => {
    const q = disagreeChance(f);
    const draw = generator(SEED * 1000 + i);
    const sim = { unstable: 0, naive: 0, covered: 0 };
    for (let r = 0; r < REPS; r++) {
      const s = judgeStability(Array.from({ length: n }, () => [itemSamples(draw, f)]));
      sim.unstable += s.unstable;
      sim.naive += s.share.p > RULE.maxFlipRate;
      sim.covered += covers(s.share, q);
    }
    return {
      f,
      q,
      target,
      exact: {
        unstable: expectBinomial(n, q, (k) => stabilityDecision(k, n).unstable),
        naive: expectBinomial(n, q, (k) => k / n > RULE.maxFlipRate),
        covered: expectBinomial(n, q, (k) => covers(wilsonInterval(k, n, RULE.confidence), q)),
      },
      sim,
    };
  });
}

function benchRejudge() {
  const pairs = REJUDGE.trials * SAMPLES;
  return REJUDGE.flipRates.map((e, i) => {
    const d = 2 * e * (1 - e);
    // A verdict goes against the usual answer when 2 or 3 of its samples do; stored and re-asked verdicts then differ.
    const against = 3 * e ** 2 * (1 - e) + e ** 3;
    const verdictChange = 2 * against * (1 - against);
    const draw = generator(SEED * 1000 + 100 + i);
    const trialsOf = () => Array.from({ length: REJUDGE.trials }, () => [itemSamples(draw, e)]);
    const sim = { covered: 0, naive: 0, verdicts: 0, estimate: 0 };
    for (let r = 0; r < REPS; r++) {
      const x = rejudgeFlip(trialsOf(), trialsOf(), RULE.confidence);
      sim.covered += covers(x.flipRate, e);
      sim.naive += covers(x.changed, e);
      sim.verdicts += covers(x.verdicts, verdictChange);
      sim.estimate += x.flipRate.e / REPS;
    }
    const flipInterval = (k) => {
      const w = wilsonInterval(k, pairs, RULE.confidence);
      return { lo: flipRateFromChanged(w.lo), hi: flipRateFromChanged(w.hi) };
    };
    return {
      e,
      d,
      verdictChange,
      exact: {
        covered: expectBinomial(pairs, d, (k) => covers(flipInterval(k), e)),
        naive: expectBinomial(pairs, d, (k) => covers(wilsonInterval(k, pairs, RULE.confidence), e)),
        verdicts: expectBinomial(REJUDGE.trials, verdictChange, (k) =>
          covers(clopperPearsonInterval(k, REJUDGE.trials, RULE.confidence), verdictChange),
        ),
        verdictsWilson: expectBinomial(REJUDGE.trials, verdictChange, (k) =>
          covers(wilsonInterval(k, REJUDGE.trials, RULE.confidence), verdictChange),
        ),
        estimate: expectBinomial(pairs, d, (k) => flipRateFromChanged(k / pairs)),
      },
      sim,
    };
  });
}

/** The cell chances of (judge, human): the judge says yes to a yes-item with `sensitivity`, no to a no-item with `specificity`. */
export function cellChances({ humanYes, sensitivity, specificity }) {
  const cells = {
    yesYes: humanYes * sensitivity,
    noYes: humanYes * (1 - sensitivity),
    yesNo: (1 - humanYes) * (1 - specificity),
    noNo: (1 - humanYes) * specificity,
  };
  const judgeYes = cells.yesYes + cells.yesNo;
  const po = cells.yesYes + cells.noNo;
  const pe = judgeYes * humanYes + (1 - judgeYes) * (1 - humanYes);
  return { cells, po, kappa: (po - pe) / (1 - pe) };
}

/** What one table of labels says, tallied with weight w into `t`. */
function tallyKappa(t, table, truth, w) {
  const k = cohenKappa(table, RULE.confidence);
  t.naiveClaims += w * (k.agreement.lo > 0.5);
  if (k.kappa === null) {
    t.undefined += w;
    return;
  }
  const plain = kappaWaldInterval(table, RULE.confidence, 0);
  t.covered += w * covers(k, truth);
  t.plainCovered += w * covers(plain, truth);
  t.claims += w * (k.lo > 0);
  t.plainClaims += w * (plain.lo > 0);
  t.width += w * (k.hi - k.lo);
  t.plainWidth += w * (plain.hi - plain.lo);
}

const emptyTally = () => ({
  undefined: 0,
  covered: 0,
  plainCovered: 0,
  claims: 0,
  plainClaims: 0,
  naiveClaims: 0,
  width: 0,
  plainWidth: 0,
});

/** Every table of n labels, weighted by its chance: the human's yes count, then the judge's yeses on each side. */
function exactKappa(setting, n, truth) {
  const t = emptyTally();
  const pmfs = (m, p) => Array.from({ length: m + 1 }, (_, k) => binomialPmf(k, m, p));
  const humanYes = pmfs(n, setting.humanYes);
  for (let h = 0; h <= n; h++) {
    if (humanYes[h] < 1e-15) continue;
    const onYes = pmfs(h, setting.sensitivity);
    const onNo = pmfs(n - h, 1 - setting.specificity);
    for (let a = 0; a <= h; a++)
      for (let b = 0; b <= n - h; b++) {
        const w = humanYes[h] * onYes[a] * onNo[b];
        if (w >= 1e-15) tallyKappa(t, { yesYes: a, noYes: h - a, yesNo: b, noNo: n - h - b }, truth, w);
      }
  }
  return t;
}

function simulatedKappa(setting, n, truth, seed) {
  const t = emptyTally();
  const draw = generator(seed);
  for (let r = 0; r < REPS; r++) {
    const pairs = Array.from({ length: n }, () => {
      const human = draw() < setting.humanYes ? 'yes' : 'no';
      const right = draw() < (human === 'yes' ? setting.sensitivity : setting.specificity);
      return { human, judge: right === (human === 'yes') ? 'yes' : 'no' };
    });
    tallyKappa(t, agreementTable(pairs), truth, 1 / REPS);
  }
  return t;
}

function benchKappa() {
  return KAPPA.settings.flatMap((setting, i) => {
    const { po, kappa } = cellChances(setting);
    return KAPPA.labels.map((n) => ({
      setting,
      n,
      po,
      kappa,
      exact: exactKappa(setting, n, kappa),
      sim: simulatedKappa(setting, n, kappa, SEED * 1000 + 200 + 10 * i + n),
    }));
  });
}

/**
 * One judged case's verdict under judge.gate, through the product's grading and verdicts: `fired[i]` whether trial i's
 * skill fired (its only other check), `samples[i]` the judge's samples on its one item. Also whether the judge was
 * trusted there, and the verdict the replaced gate gave: every untrusted judged case INCONCLUSIVE unless ERROR.
 */
function gatedVerdict(def, fired, samples, calibrated) {
  const config = configSchema.parse({
    arms: ['skill'],
    decision: { mode: def.design ? 'sequential' : 'fixed' },
    judge: { model: 'judge', gate: true },
  });
  const outcomes = fired.map((f, i) => ({
    ...{ caseId: def.id, arm: 'skill', n: i + 1, status: 'ok', passed: f, firings: [], firedColumn: f ? 'skill' : 'none' },
    ...{ fired: f ? 'expected' : 'none', readOnly: false, flags: { noop: false, clarifying: false }, parseWarnings: 0 },
  }));
  const answers = new Map(outcomes.map((o, i) => [trialAskId(o, 0), samples[i]]));
  const manifest = {
    ...{ runId: 'r', harness: { name: 'skillprobe', version: '0' }, status: 'completed', startedAt: '2026-01-01T00:00:00Z' },
    ...{ agent: { id: 'claude-code', binary: 'claude' }, model: 'm', config, skills: [], skillsHash: 'x', simulator: null },
    ...{
      cases: { files: [], hash: 'y', defs: [def] },
      family: [{ dir: 'skill', name: 'skill' }],
      trials: { planned: 0, finished: 0, notStarted: 0 },
    },
  };
  const grading = {
    ...{ agent: 'claude-code', model: 'judge', self: false, samples: SAMPLES, maxFlipRate: RULE.maxFlipRate },
    ...{ calibration: { asked: 1, missed: [] }, calibrated, requests: 1, unanswered: calibrated ? 0 : 1 },
  };
  const results = buildResults(manifest, applyJudgements(outcomes, [def], answers, calibrated), [], new Date(0), grading);
  const v = results.verdicts[0];
  const untrusted = !calibrated || results.judge.stability[0]?.unstable === true;
  return { verdict: v.verdict, untrusted, replaced: untrusted && v.verdict !== 'ERROR' ? 'INCONCLUSIVE' : v.verdict };
}

function benchGate() {
  const defaults = configSchema.parse({}).decision;
  const judged = { id: 'c', expect: 'skill', exclusive: false, tags: [], judge: ['ok?'] };
  const fixed = { ...judged, decision: { ...defaults, maxTrials: GATE.fixedTrials } };
  const sequential = { ...judged, ...storedDecision(defaults, 'sequential') };
  const design = caseDesign(sequential);
  const n = GATE.fixedTrials;
  const yes = Array.from({ length: n }, () => Array(SAMPLES).fill('yes'));
  // Fixed N: the verdict depends on the count that fired alone, so the exact chance is a sum over it.
  const byCount = Array.from({ length: n + 1 }, (_, k) =>
    gatedVerdict(
      fixed,
      Array.from({ length: n }, (_, i) => i < k),
      yes,
      false,
    ),
  );
  return GATE.rates.map((p, i) => {
    const draw = generator(SEED * 1000 + 300 + i);
    // The sequential design, its judge calibrated and UNSTABLE-prone: runs where it was UNSTABLE, through the gate.
    const sim = { unstable: 0, fail: 0, replacedFail: 0, pass: 0 };
    for (let r = 0; r < GATE.sequentialRuns; r++) {
      const fired = Array.from({ length: design.maxTrials }, () => draw() < p);
      const v = gatedVerdict(
        sequential,
        fired,
        fired.map(() => itemSamples(draw, GATE.unstableFlip)),
        true,
      );
      if (!v.untrusted) continue;
      sim.unstable++;
      sim.fail += v.verdict === 'FAIL';
      sim.replacedFail += v.replaced === 'FAIL';
      sim.pass += v.verdict === 'PASS';
    }
    return {
      p,
      fixed: {
        fail: expectBinomial(n, p, (k) => byCount[k].verdict === 'FAIL'),
        replacedFail: expectBinomial(n, p, (k) => byCount[k].replaced === 'FAIL'),
        // The same test on the trigger alone, as the product computes it: the chance a FAIL owes nothing to the judge.
        triggerFail: expectBinomial(n, p, (k) => binomialTestBelow(k, n, defaults.threshold) <= defaults.alpha),
      },
      sequential: { triggerFail: designOperating(design, p).reject, sim },
    };
  });
}

export function benchJudge() {
  const t0 = performance.now();
  const stability = benchStability();
  const rejudge = benchRejudge();
  const kappa = benchKappa();
  const gate = benchGate();
  return { reps: REPS, stability, rejudge, kappa, gate, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const col = (s, w) => String(s).padEnd(w);
const row = (label, cells) => console.log(`  ${label.padEnd(24)}${cells.join(' │ ')}`.trimEnd());
const verdict = (ok) => (ok ? 'meets' : 'MISSES');
/** A coverage cell: exact, simulated, and whether the exact value meets the floor. */
const coverage = (exact, simulated) => `${pct(exact)} / ${pct(simulated)} ${verdict(exact >= COVERAGE_FLOOR)}`;
const meetsTarget = (x, { least, most }) => (least === undefined || x >= least) && (most === undefined || x <= most);

export function printJudge({ reps, stability, rejudge, kappa, gate, seconds }) {
  console.log(
    `judge     the judge's statistics, exact beside ${reps} seeded simulations per setting (cells: exact / simulated); confidence ${RULE.confidence}; ${seconds.toFixed(1)} s`,
  );
  console.log(
    `          stability: ${STABILITY.trials} trials × 1 item × ${SAMPLES} samples per case; UNSTABLE when P(X ≥ disagreeing | n, maxFlipRate ${RULE.maxFlipRate}) ≤ α ${RULE.alpha}; beside: UNSTABLE when the share > ${RULE.maxFlipRate}`,
  );
  row('f (item disagrees)', [col('UNSTABLE', 20), col('target', 30), col('share > maxFlipRate', 20), 'Wilson covers the share']);
  for (const s of stability)
    row(`  ${s.f.toFixed(4)} (${s.q.toFixed(4)})`, [
      col(`${pct(s.exact.unstable, 2)} / ${pct(s.sim.unstable / reps, 2)}`, 20),
      col(`${s.target.label} ${verdict(meetsTarget(s.exact.unstable, s.target))}`, 30),
      col(`${pct(s.exact.naive, 2)} / ${pct(s.sim.naive / reps, 2)}`, 20),
      `${pct(s.exact.covered)} / ${pct(s.sim.covered / reps)}`,
    ]);
  console.log(
    `          rejudge: ${REJUDGE.trials} stored trials × 1 item × ${SAMPLES} samples re-asked (${REJUDGE.trials * SAMPLES} pairs); target: each interval covers its truth in ≥ ${pct(COVERAGE_FLOOR, 0)} (nominal ${pct(RULE.confidence, 0)})`,
  );
  row('e (pairs differ d)', [
    col('ê interval covers e', 24),
    col('mean ê', 15),
    col('d̂ read as e covers e', 22),
    'changed verdicts: exact interval covers the truth (Wilson)',
  ]);
  for (const r of rejudge)
    row(`  ${r.e.toFixed(2)} (${r.d.toFixed(4)})`, [
      col(coverage(r.exact.covered, r.sim.covered / reps), 24),
      col(`${r.exact.estimate.toFixed(4)} / ${r.sim.estimate.toFixed(4)}`, 15),
      col(`${pct(r.exact.naive)} / ${pct(r.sim.naive / reps)}`, 22),
      `${coverage(r.exact.verdicts, r.sim.verdicts / reps)} (${pct(r.exact.verdictsWilson)}; truth ${pct(r.verdictChange, 2)})`,
    ]);
  for (const r of rejudge.filter((x) => x.exact.verdictsWilson < COVERAGE_FLOOR))
    console.log(
      `          changed verdicts at e ${r.e}: ${(r.verdictChange * REJUDGE.trials).toFixed(2)} changes expected in ${REJUDGE.trials}, where Wilson's interval dips below its level (its lower bound at 2 changes, ${pct(wilsonInterval(2, REJUDGE.trials, RULE.confidence).lo, 2)}, is above the truth); rejudge reports the exact one`,
    );
  console.log(
    `          κ: judge verdicts against human labels; reported interval (one pseudo-count per cell) beside the plain Fleiss–Cohen–Everitt one; coverage given κ defined, target ≥ ${pct(COVERAGE_FLOOR, 0)}`,
  );
  console.log(
    `             claims beyond chance: κ's lower bound > 0 (the chance judge's target ≤ ${pct(CHANCE_CLAIM_TARGET)}), raw agreement's Wilson lower bound > 1/2`,
  );
  row('setting, labels', [
    col('true κ / po', 13),
    col('reported covers', 21),
    col('plain covers', 15),
    col('mean width rep/plain', 20),
    col('κ undefined', 11),
    'claims beyond chance: reported / plain / raw agreement (exact)',
  ]);
  for (const k of kappa) {
    const defined = 1 - k.exact.undefined;
    const given = (x) => x / defined;
    const chanceJudge = Math.abs(k.kappa) < 1e-12;
    const claims = [k.exact.claims, k.exact.plainClaims, k.exact.naiveClaims].map((x) => pct(x, 2)).join(' / ');
    row(`  ${k.setting.name}, ${k.n}`, [
      col(`${k.kappa.toFixed(3)} / ${k.po.toFixed(2)}`, 13),
      col(coverage(given(k.exact.covered), k.sim.covered / (1 - k.sim.undefined)), 21),
      col(`${pct(given(k.exact.plainCovered))} / ${pct(k.sim.plainCovered / (1 - k.sim.undefined))}`, 15),
      col(`${given(k.exact.width).toFixed(3)} / ${given(k.exact.plainWidth).toFixed(3)}`, 20),
      col(pct(k.exact.undefined, 2), 11),
      chanceJudge ? `${claims} (target ${verdict(k.exact.claims <= CHANCE_CLAIM_TARGET)})` : claims,
    ]);
  }
  const alpha = configSchema.parse({}).decision.alpha;
  console.log(
    `          gate (judge.gate): one judged case whose skill fires at rate p, its judge untrusted; cells: the chance the run exits 1 (the case FAILs) / ` +
      `what the trigger alone FAILs exactly; fixed N ${GATE.fixedTrials}, uncalibrated judge: exact; default sequential design, judge UNSTABLE at f ${GATE.unstableFlip}: ` +
      `simulated over the UNSTABLE runs of ${GATE.sequentialRuns} / exact OC`,
  );
  console.log(
    `          target: exit 1 exactly where the trigger alone FAILs (at p0 ≤ α ${alpha}); the replaced gate: never exit 1, every case INCONCLUSIVE`,
  );
  row('p (skill fires)', [
    col('fixed: now / trigger', 24),
    col('replaced', 9),
    col('sequential: now / trigger', 30),
    col('replaced', 9),
    'PASS',
  ]);
  for (const g of gate) {
    const s = g.sequential.sim;
    const meets = Math.abs(g.fixed.fail - g.fixed.triggerFail) < 1e-12;
    row(`  ${g.p.toFixed(2)}${g.p === 0.9 ? ' (p0)' : g.p === 0.7 ? ' (p1)' : ''}`, [
      col(`${pct(g.fixed.fail, 2)} / ${pct(g.fixed.triggerFail, 2)} ${verdict(meets)}`, 24),
      col(pct(g.fixed.replacedFail, 2), 9),
      col(`${pct(s.fail / s.unstable, 2)} / ${pct(g.sequential.triggerFail, 2)} (${s.unstable} runs)`, 30),
      col(pct(s.replacedFail / s.unstable, 2), 9),
      pct(s.pass / s.unstable, 2),
    ]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printJudge(benchJudge());
