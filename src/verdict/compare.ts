import { ARMS, type Arm } from '../run/config-schema.js';
import { NO_EVIDENCE, type CaseArmSummary, type Rate, type RunManifest, type TrialOutcome } from '../run/schema.js';
import { boschlooTest } from '../stats/boschloo.js';
import type { CombinedEvidence } from '../stats/combine-p-values.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { stoppedTwoSampleTest, type StoppedSample } from '../stats/stopped-two-sample.js';
import { canaryTest, prescribedBaseTrials, sameBase, type CanaryTest } from './canary.js';
import { canaryOf, rateInterval, sideLevel, stoppedSample } from './stopped-sample.js';
import { routingRates, suiteChange } from './suite-change.js';
import { anytimeDifference } from '../stats/confidence-sequence.js';
import { adjustPValues } from '../stats/multiple-testing.js';
import { newcombeDifference } from '../stats/newcombe.js';
import { pairedSignTest } from '../stats/paired-sign.js';
import { trialsToDetect } from '../stats/sample-size.js';
import { wilsonInterval } from '../stats/wilson.js';
import type {
  CaseChange,
  ChangeMethod,
  ComparedRun,
  Comparison,
  Drift,
  RateDifference,
  RoutingChange,
  RunToCompare,
} from './comparison.js';
import { plural, pValueText } from '../util/text.js';
import { COMPARE_DEFAULTS, type CompareOptions } from './compare-defaults.js';
import { EXIT } from '../run/exit-codes.js';
import { expectLabel } from '../run/expectation.js';

interface Tested {
  difference: RateDifference;
  pValue: number;
  /** One-sided evidence that the candidate is worse, and better: what the suite-level test combines. */
  worse: CombinedEvidence;
  better: CombinedEvidence;
  /** Which run the test's own evidence favours: −1 the base, +1 the candidate, 0 neither. */
  direction: -1 | 0 | 1;
}

/** One side of a tested difference: the rate, the per-trial outcomes it counts in trial order, and its stopping rule. */
interface Sample {
  rate: Rate;
  sequence: boolean[];
  /** Where the run's known stopping rule ended this case; absent when the run stopped it short of that rule. */
  stopped?: StoppedSample;
  /** The candidate's canary against this very base (`run --baseline`). */
  canary?: CanaryTest;
}

const directionOf = (worse: number, better: number): Tested['direction'] => (worse < better ? -1 : better < worse ? 1 : 0);

/**
 * The difference of the two runs' intervals, each at half the error: exact stagewise where a run's known rule
 * stopped the case, the time-uniform confidence sequence where none did (or trials were topped up after it).
 */
function stoppedDifference(base: Sample, candidate: Sample, confidence: number): RateDifference {
  const level = sideLevel(confidence);
  const [b, c] = [rateInterval(base.stopped, base.rate, level), rateInterval(candidate.stopped, candidate.rate, level)];
  return { diff: c.rate - b.rate, lo: c.lo - b.hi, hi: c.hi - b.lo };
}

/**
 * Both runs fixed-N: Boschloo's exact unconditional test with Newcombe's interval. A case stopped by a stored
 * sequential design (in either run): the exact test under both stopping rules, with the difference of the designs'
 * exact stagewise intervals (each at half the error). A case whose stopping rule is not known (a run stopped short
 * of it): the paired sign e-process and time-uniform confidence sequences, valid under any stopping rule.
 */
function testDifference(base: Sample, candidate: Sample, method: ChangeMethod, confidence: number): Tested {
  const [x1, n1, x2, n2] = [base.rate.successes, base.rate.n, candidate.rate.successes, candidate.rate.n];
  if (method === 'anytime') {
    // The direction is the paired test's own: the overall rates also count trials past the shorter run.
    const paired = pairedSignTest(base.sequence, candidate.sequence);
    const direction = Math.sign(paired.candidateOnly - paired.baseOnly) as Tested['direction'];
    return {
      difference: anytimeDifference(x1, n1, x2, n2, confidence),
      pValue: paired.pValue,
      worse: { p: direction < 0 ? paired.pValue : 1 },
      better: { p: direction > 0 ? paired.pValue : 1 },
      direction,
    };
  }
  if (method === 'canary') {
    // One-sided: a canary looks for a drop, and says UNCHANGED where its interval rules the margin out.
    const t = candidate.canary!;
    return {
      difference: stoppedDifference(base, candidate, confidence),
      pValue: t.pValue,
      worse: { p: t.pValue },
      better: { p: 1 },
      direction: -1,
    };
  }
  if (method === 'design')
    return { difference: stoppedDifference(base, candidate, confidence), ...designEvidence(base.stopped!, candidate.stopped!) };
  return { difference: newcombeDifference(x1, n1, x2, n2, confidence), ...fixedEvidence(x1, n1, x2, n2) };
}

/** A case's evidence, apart from its interval: what decides whether it REGRESSED and what the suite-level test combines. */
export type TestEvidence = Omit<Tested, 'difference'>;

/** Both runs stopped by a known rule: the exact test under both stopping rules, each tail with its staircase null. */
export function designEvidence(base: StoppedSample, candidate: StoppedSample): TestEvidence {
  const test = stoppedTwoSampleTest(base, candidate);
  return {
    pValue: test.twoSided,
    worse: { p: test.lowerNull.observed, nullValues: test.lowerNull.values },
    better: { p: test.upperNull.observed, nullValues: test.upperNull.values },
    direction: directionOf(test.lower, test.upper),
  };
}

/** Both runs fixed-N: Boschloo's exact test, its one-sided p-values combined as uniform. */
export function fixedEvidence(x1: number, n1: number, x2: number, n2: number): TestEvidence {
  const test = boschlooTest(x1, n1, x2, n2);
  return { pValue: test.twoSided, worse: { p: test.lower }, better: { p: test.upper }, direction: directionOf(test.lower, test.upper) };
}

/** A case `compare` calls REGRESSED: its p-value, adjusted across the arm's cases, at most α, its test favouring the base. */
export const regressedCase = (pAdjusted: number, direction: number, alpha: number): boolean => pAdjusted <= alpha && direction < 0;

/**
 * The test a row gets. The ablation arm's trials run beside the skill arm's, so how many there are is set by the
 * skill arm, never by their own outcomes: an exact fixed-N test holds for them given that count.
 */
function rowMethod(arm: Arm, fixed: boolean, base: Sample, candidate: Sample): ChangeMethod {
  if (candidate.canary && arm === 'skill') return 'canary';
  if (fixed || arm === 'ablation') return 'boschloo';
  return base.stopped && candidate.stopped ? 'design' : 'anytime';
}

/** A run's scored outcomes of one case and arm, in trial order. */
function scoredSequence(r: RunToCompare, caseId: string, arm: Arm): TrialOutcome[] {
  return r.results.outcomes.filter((o) => o.caseId === caseId && o.arm === arm && o.passed !== null).sort((a, b) => a.n - b.n);
}

function comparedRun(r: RunToCompare): ComparedRun {
  const run = r.results.run;
  return {
    runId: r.results.runId,
    dir: r.dir,
    agent: run.agent,
    model: run.model,
    simulated: run.simulated,
    startedAt: run.startedAt,
    decisionMode: run.decision.mode,
    trials: r.results.outcomes.length,
    ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
  };
}

function decisionText(c: RunManifest['config']): string {
  const d = c.decision;
  return `${decisionMode(d.mode).settings(c)}, p0 ${d.threshold}, δ ${d.delta}, α ${d.alpha}, β ${d.beta}`;
}

/**
 * Whether the two runs asked for, or were answered by, different models: the reported ones where both runs have one
 * (a run with no trial reports none, which is no model change).
 */
function differentModels(base: RunToCompare, candidate: RunToCompare): boolean {
  const [b, c] = [base.results.run.model, candidate.results.run.model];
  return b.reported !== undefined && c.reported !== undefined ? b.reported !== c.reported : b.requested !== c.requested;
}

/** What a run lacks to be compared in full, in words naming the run. Pure. */
function missingIn(r: RunToCompare, side: 'base' | 'candidate', cases: readonly CaseChange[]): string[] {
  const out: string[] = [];
  const { status, trials } = r.manifest;
  if (status !== 'completed') out.push(`the ${side} run (${r.dir}) is ${status}: ${trials.finished} of ${trials.planned} trials ran`);
  if (r.results.damaged.length)
    out.push(
      `the ${side} run has ${plural(r.results.damaged.length, 'damaged trial file')}: ${r.results.damaged.map((d) => d.path).join(', ')}`,
    );
  const empty = cases.filter((c) => c.arm === 'skill' && (side === 'base' ? c.base : c.candidate).n === 0).map((c) => c.caseId);
  if (empty.length) out.push(`the ${side} run has no scored trial of ${plural(empty.length, 'case')}: ${empty.join(', ')}`);
  return out;
}
const show = (v: unknown) => (v === undefined || v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

const judgeText = (r: RunToCompare) => {
  const j = r.results.judge;
  return j
    ? `${j.agent} ${j.cliVersion ?? '(version unknown)'} · ${j.model} · ${j.samples} samples${j.calibrated ? '' : ' · UNCALIBRATED'}`
    : 'none';
};

const fieldCases = (r: RunToCompare) => r.manifest.cases.defs.filter((c) => c.context === 'field').length;

/** Where a run's trials ran: `lab`, `field`, or how many of its cases ran in the field. */
function contextText(r: RunToCompare): string {
  const [field, all] = [fieldCases(r), r.manifest.cases.defs.length];
  return field === 0 ? 'lab' : field === all ? 'field' : `field for ${field} of ${all} cases, lab for the rest`;
}

/** What else differs besides the model's behaviour: always reported, whether or not it differs. */
export function drift(base: RunToCompare, candidate: RunToCompare): Drift {
  const fact = (name: string, of: (r: RunToCompare) => unknown) => {
    const [b, c] = [show(of(base)), show(of(candidate))];
    return { name, base: b, candidate: c, differs: b !== c };
  };
  const simulator = (r: RunToCompare) => {
    const s = r.manifest.simulator;
    return s ? `${s.name} (seed ${s.seed}${s.behaviourHash ? `, behaviour ${s.behaviourHash.slice(0, 8)}` : ''})` : 'none';
  };
  const facts = [
    fact('agent', (r) => r.manifest.agent.id),
    fact('CLI version', (r) => r.manifest.agent.cliVersion),
    fact('model requested', (r) => r.manifest.model),
    fact('model reported', (r) => r.manifest.reportedModel),
    fact('simulator', simulator),
    fact('harness version', (r) => r.manifest.harness.version),
    fact('cases hash', (r) => r.manifest.cases.hash.slice(0, 12)),
    fact('skills hash', (r) => r.manifest.skillsHash.slice(0, 12)),

    fact('decision', (r) => decisionText(r.manifest.config)),
    fact('grading', (r) => {
      const g = r.manifest.config.grading;
      return `reads ${g.readTriggers === 'fire' ? 'fire' : 'do not fire'}, budget stops ${g.budgetStops}, confidence ${g.confidence}`;
    }),
    // The user's files a trial's workspace held: named when either run had any (a run before them had none).
    ...(base.manifest.fixturesHash || candidate.manifest.fixturesHash
      ? [fact('fixtures hash', (r) => r.manifest.fixturesHash?.slice(0, 12) ?? 'none')]
      : []),
    // A judge that changed (its CLI, model or samples) changes judged verdicts by itself: named, not hidden in them.
    ...(base.results.judge || candidate.results.judge ? [fact('judge', judgeText)] : []),
    // The user's other skills compete for the model's choice: a change of them changes rates by itself.
    ...(base.manifest.neighboursHash || candidate.manifest.neighboursHash
      ? [fact('neighbours hash', (r) => r.manifest.neighboursHash?.slice(0, 12) ?? 'none')]
      : []),
    // A case's own neighbours likewise, for its trials.
    ...(base.manifest.caseNeighboursHash || candidate.manifest.caseNeighboursHash
      ? [fact("cases' neighbours hash", (r) => r.manifest.caseNeighboursHash?.slice(0, 12) ?? 'none')]
      : []),
    // The field offers the model other tools than the lab: a change of context changes rates by itself.
    ...([base, candidate].some((r) => fieldCases(r) > 0) ? [fact('context', contextText)] : []),
  ];
  const hashes = (r: RunToCompare) => new Map(r.manifest.skills.map((s) => [s.name, s.hash]));
  const [b, c] = [hashes(base), hashes(candidate)];
  const names = [...new Set([...b.keys(), ...c.keys()])].sort();
  const skills = names.map((name) => {
    const [bh, ch] = [b.get(name), c.get(name)];
    const state = bh === undefined ? 'added' : ch === undefined ? 'removed' : bh === ch ? 'same' : 'changed';
    return { name, ...(bh ? { base: bh.slice(0, 12) } : {}), ...(ch ? { candidate: ch.slice(0, 12) } : {}), state } as const;
  });
  return { facts, skills };
}

/**
 * A case is UNCHANGED when its interval rules out a change of the margin: both ways for a two-sided test, a drop
 * for a canary (one-sided: it looks for a drop, and its rows say so).
 */
export const ruledOut = (d: RateDifference, margin: number, method: ChangeMethod) =>
  d.lo > -margin && (method === 'canary' || d.hi < margin);

/**
 * The trials per run that would tell a drop of `margin` from the base rate, at the planned power and at the level
 * the correction across `family` cases asks of one case (as `plan --compare` plans it). Memoised: many undecided
 * cases share a base rate.
 */
function decidingTrials(o: CompareOptions, family: number): (baseRate: number) => number {
  const known = new Map<number, number>();
  return (baseRate) => {
    const from = Math.min(Math.max(baseRate, o.margin + 0.01), 1);
    if (!known.has(from)) known.set(from, trialsToDetect(from, from - o.margin, o.alpha / Math.max(1, family), o.power));
    return known.get(from)!;
  };
}

/** The change a case made: significant after correction, shown equivalent within ±margin, or not yet decided. */
function caseChange(
  c: { caseId: string; arm: Arm; base: Rate; candidate: Rate },
  method: ChangeMethod,
  tested: Tested,
  pAdjusted: number,
  o: CompareOptions,
  /** The trials that would decide the row: per run, or for a canary the base's size that lets it decide. */
  trialsFor: (baseRate: number) => number,
  baseDir: string,
): CaseChange {
  const { difference, pValue, direction } = tested;
  const { base, candidate } = c;
  const common = { ...c, difference, method, pValue, pAdjusted };
  const p = (x: number) => x.toFixed(3);
  if (base.n === 0 || candidate.n === 0) {
    return { ...common, change: 'UNDECIDED', reason: `no scored trials in the ${base.n === 0 ? 'base' : 'candidate'} run` };
  }
  if (pAdjusted <= o.alpha && direction !== 0) {
    const change = regressedCase(pAdjusted, direction, o.alpha) ? 'REGRESSED' : 'IMPROVED';
    const paired =
      method === 'anytime'
        ? ' (paired trials)'
        : method === 'design'
          ? ' (under both stopping rules)'
          : method === 'canary'
            ? ' (the canary against this base)'
            : '';
    return {
      ...common,
      change,
      reason: `${change === 'REGRESSED' ? 'dropped' : 'rose'} from ${p(base.p)} to ${p(candidate.p)}${paired}: adjusted p ${pValueText(pAdjusted)} ≤ ${o.alpha}`,
    };
  }
  if (ruledOut(difference, o.margin, method)) {
    return {
      ...common,
      change: 'UNCHANGED',
      reason:
        method === 'canary'
          ? `the difference's interval rules out a drop of ${o.margin}`
          : `the difference's interval lies within ±${o.margin}`,
    };
  }
  const trialsToDecide = trialsFor(base.p);
  const how =
    method === 'canary'
      ? `the base's ${base.n} trials bound this canary: the base lacks ${Math.max(1, trialsToDecide - base.n)} of the ${trialsToDecide} per case a canary needs (\`skillprobe run --resume ${baseDir} --add-trials ${Math.max(1, trialsToDecide - base.n)}\`, or \`run --baseline ${baseDir} --top-up-baseline\`), then a new canary would decide it`
      : method !== 'boschloo'
        ? `run both fixed-N (\`--mode fixed -n ${trialsToDecide}\`) to decide it`
        : `about ${trialsToDecide} trials in each run would decide it`;
  return {
    ...common,
    change: 'UNDECIDED',
    trialsToDecide,
    reason: `not significant (adjusted p ${pValueText(pAdjusted)}), yet a change of ±${o.margin} is not ruled out: ${how}`,
  };
}

/** Pure: two runs' results in, the per-case changes, routing deltas and drift out. */
export function compareRuns(base: RunToCompare, candidate: RunToCompare, o: CompareOptions = COMPARE_DEFAULTS): Comparison {
  const confidence = 1 - o.alpha;
  const fixed = [base, candidate].every((r) => !decisionMode(r.results.run.decision.mode).sequential);
  const key = (s: { caseId: string; arm: string }) => `${s.caseId}\0${s.arm}`;
  const baseRows = new Map(base.results.summary.cases.map((s) => [key(s), s]));
  const pairs = candidate.results.summary.cases.filter((s) => baseRows.has(key(s))).map((c) => ({ b: baseRows.get(key(c))!, c }));
  const canaryFor = (caseId: string) => {
    const [canary, entry] = [candidate.manifest.canary, canaryOf(candidate.manifest, caseId)];
    return canary && entry && sameBase(base, canary, entry) ? entry : undefined;
  };
  const sample = (r: RunToCompare, s: CaseArmSummary): Sample => {
    const sequence = scoredSequence(r, s.caseId, s.arm).map((o) => o.passed === true);
    const stopped = s.arm === 'skill' ? stoppedSample(r, s.caseId, sequence) : undefined;
    const entry = r === candidate && s.arm === 'skill' ? canaryFor(s.caseId) : undefined;
    const canary = entry ? canaryTest(entry, sequence) : undefined;
    // The test counts the trials up to where the rule stopped: trials still running then are left out.
    const counted = stopped ?? canary;
    return {
      rate: counted ? wilsonInterval(counted.passes, counted.trials, confidence) : s.rate,
      sequence,
      ...(stopped ? { stopped } : {}),
      ...(canary ? { canary } : {}),
    };
  };
  // Each arm is its own family: the skill arm's cases are corrected among themselves and alone gate the exit code;
  // the ablation arm is context (how the model does without the family), never a regression of the skill.
  const tested = ARMS.flatMap((arm) => {
    const inArm = pairs
      .filter(({ c }) => c.arm === arm)
      .map(({ b, c }) => {
        const [sb, sc] = [sample(base, b), sample(candidate, c)];
        const method = rowMethod(arm, fixed, sb, sc);
        return { caseId: c.caseId, arm, sb, sc, method, test: testDifference(sb, sc, method, confidence) };
      });
    const adjusted = adjustPValues(
      inArm.map((t) => t.test.pValue),
      'bh',
    );
    const trialsFor = decidingTrials(o, inArm.length);
    const threshold = (caseId: string) => candidate.manifest.cases.defs.find((d) => d.id === caseId)?.decision.threshold;
    // A canary row is decided by a larger base: the size `run --for-baseline` gives it, from the case's threshold.
    const baseFor = (caseId: string) => (baseRate: number) =>
      prescribedBaseTrials(inArm.length, threshold(caseId) ?? baseRate, o.margin, o.alpha, o.power);
    return inArm.map((t, i) => ({
      ...t,
      change: caseChange(
        { caseId: t.caseId, arm, base: t.sb.rate, candidate: t.sc.rate },
        t.method,
        t.test,
        adjusted[i]!,
        o,
        t.method === 'canary' ? baseFor(t.caseId) : trialsFor,
        base.dir,
      ),
    }));
  });
  const cases = tested.map((t) => t.change);
  const routing = routingChanges(base, candidate, fixed, o);
  const ids = (r: RunToCompare) => new Set(r.manifest.cases.defs.map((d) => d.id));
  const [bIds, cIds] = [ids(base), ids(candidate)];
  const missingData = [...missingIn(base, 'base', cases), ...missingIn(candidate, 'candidate', cases)];
  const suite = suiteChange(
    tested.filter((t) => t.arm === 'skill').map((t) => ({ change: t.change, worse: t.test.worse, better: t.test.better })),
    routingRates(base, candidate, confidence),
    o,
  );
  const undecided = cases.some((c) => c.arm === 'skill' && c.change === 'UNDECIDED');
  return {
    base: comparedRun(base),
    candidate: comparedRun(candidate),
    crossAgent: base.manifest.agent.id !== candidate.manifest.agent.id,
    crossModel: differentModels(base, candidate),
    alpha: o.alpha,
    margin: o.margin,
    suite,
    cases,
    routing,
    drift: drift(base, candidate),
    onlyIn: { base: [...bIds].filter((id) => !cIds.has(id)), candidate: [...cIds].filter((id) => !bIds.has(id)) },
    missingData,
    // A gate must never go green on a run that is not all there, nor on a case it could not decide.
    exitCode:
      suite.change === 'REGRESSED'
        ? EXIT.fail
        : missingData.length
          ? EXIT.error
          : undecided || suite.change === 'UNDECIDED'
            ? EXIT.inconclusive
            : EXIT.pass,
  };
}

/**
 * The confusion-matrix cells, per case (skill arm, trials with evidence), whose share moved significantly: a sibling
 * newly stealing a case shows here by name, even when the pass rate's change alone is not yet significant.
 */
function routingChanges(base: RunToCompare, candidate: RunToCompare, fixed: boolean, o: CompareOptions): RoutingChange[] {
  const columnsByCase = (r: RunToCompare) => {
    const byCase = new Map<string, string[]>();
    const usable = r.results.outcomes.filter((t) => t.arm === 'skill' && !NO_EVIDENCE.has(t.status)).sort((a, b) => a.n - b.n);
    for (const t of usable) byCase.set(t.caseId, [...(byCase.get(t.caseId) ?? []), t.firedColumn]);
    return byCase;
  };
  const [bCases, cCases] = [columnsByCase(base), columnsByCase(candidate)];
  const defOf = new Map(candidate.manifest.cases.defs.map((d) => [d.id, d]));
  const share = (fired: string[], column: string): Sample => {
    const sequence = fired.map((f) => f === column);
    return { rate: wilsonInterval(sequence.filter(Boolean).length, sequence.length, 1 - o.alpha), sequence };
  };
  const cells = [...cCases].flatMap(([caseId, cFired]) => {
    const bFired = bCases.get(caseId);
    if (!bFired) return [];
    // The expected skill's own column is the pass rate's change, already tested per case.
    const columns = [...new Set([...bFired, ...cFired])].filter((column) => column !== defOf.get(caseId)?.expect).sort();
    return columns.map((column) => ({ caseId, column, b: share(bFired, column), c: share(cFired, column) }));
  });
  // A cell's share is not what a design stopped on, so a sequential run's cells keep the anytime-valid test.
  const method: ChangeMethod = fixed ? 'boschloo' : 'anytime';
  const tested = cells.map((x) => testDifference(x.b, x.c, method, 1 - o.alpha));
  const adjusted = adjustPValues(
    tested.map((t) => t.pValue),
    'bh',
  );
  return cells
    .map((x, i) => ({
      caseId: x.caseId,
      expect: defOf.has(x.caseId) ? expectLabel(defOf.get(x.caseId)!) : '',
      column: x.column,
      base: x.b.rate,
      candidate: x.c.rate,
      ...tested[i]!,
      pAdjusted: adjusted[i]!,
    }))
    .filter((r) => r.pAdjusted <= o.alpha);
}
