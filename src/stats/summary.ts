import type { Arm } from '../load/config.js';
import { MULTIPLE, NONE, OTHER, type GradableCase, type TrialOutcome } from '../grade/outcome.js';
import { NO_EVIDENCE, type TrialStatus } from '../grade/status.js';
import { mcnemarExact, pairCounts, pairedDifference, type PairedCounts } from './mcnemar.js';
import { passKTable } from './pass-k.js';
import { wilsonInterval, type Interval, type Rate } from './wilson.js';

export interface CaseArmSummary {
  caseId: string;
  arm: Arm;
  tags: string[];
  expect: string;
  /** Trials run, including those excluded. */
  trials: number;
  /** Scored trials (n) and passes among them. */
  rate: Rate;
  passK: { k: number; passAtK: number; passHatK: number }[];
  fired: { expected: number; sibling: number; other: number; none: number; readOnly: number };
  statuses: Partial<Record<TrialStatus, number>>;
  excluded: number;
  flags: { noop: number; clarifying: number };
  planFailures: number;
}

export interface ConfusionMatrix {
  rows: string[];
  columns: string[];
  /** cells[row][column]: share of the row's trials, with its Wilson interval. */
  cells: Record<string, Record<string, Rate>>;
}

export interface Aggregates {
  /** Positive trials (skill arm) in which the expected skill fired. */
  recall: Rate;
  /** Negative trials (skill arm) in which any family skill fired. */
  falseTriggerRate: Rate;
  /** Of all family firings that decided a trial, the share that were the expected skill. */
  precision: Rate;
  f1: number;
}

export interface AblationRow {
  caseId: string;
  pairs: number;
  counts: PairedCounts;
  skillRate: Rate;
  ablationRate: Rate;
  difference: { diff: number } & Interval;
  /** McNemar's exact two-sided p-value. */
  pValue: number;
}

export interface Summary {
  confidence: number;
  cases: CaseArmSummary[];
  confusion: ConfusionMatrix;
  aggregates: Aggregates;
  ablation: AblationRow[];
}

const usable = (o: TrialOutcome) => !NO_EVIDENCE.has(o.status);

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

export function summariseCaseArm(c: GradableCase, arm: Arm, outcomes: TrialOutcome[], confidence: number): CaseArmSummary {
  const scored = outcomes.filter((o) => o.passed !== null);
  const passes = scored.filter((o) => o.passed).length;
  const ev = outcomes.filter(usable);
  const statuses: Partial<Record<TrialStatus, number>> = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  return {
    caseId: c.id,
    arm,
    tags: c.tags,
    expect: c.expect,
    trials: outcomes.length,
    rate: wilsonInterval(passes, scored.length, confidence),
    passK: scored.length ? passKTable(scored.length, passes) : [],
    fired: {
      expected: ev.filter((o) => o.fired === 'expected').length,
      sibling: ev.filter((o) => o.fired === 'sibling').length,
      other: ev.filter((o) => o.fired === 'other').length,
      none: ev.filter((o) => o.fired === 'none').length,
      readOnly: ev.filter((o) => o.readOnly).length,
    },
    statuses,
    excluded: outcomes.length - scored.length,
    flags: { noop: outcomes.filter((o) => o.flags.noop).length, clarifying: outcomes.filter((o) => o.flags.clarifying).length },
    planFailures: scored.filter((o) => o.plan && !o.plan.pass).length,
  };
}

/** Expected × fired over the skill arm's usable trials, with `none`, `multiple` and `other` columns. */
export function confusionMatrix(cases: GradableCase[], outcomes: TrialOutcome[], family: string[], confidence: number): ConfusionMatrix {
  const expectOf = new Map(cases.map((c) => [c.id, c.expect]));
  const ev = outcomes.filter((o) => o.arm === 'skill' && usable(o));
  const rows = [...family.filter((f) => cases.some((c) => c.expect === f)), ...(cases.some((c) => c.expect === NONE) ? [NONE] : [])];
  const columns = [...family, NONE, MULTIPLE, OTHER];
  const cells: ConfusionMatrix['cells'] = {};
  for (const row of rows) {
    const inRow = ev.filter((o) => expectOf.get(o.caseId) === row);
    cells[row] = Object.fromEntries(columns.map((col) => [col, wilsonInterval(inRow.filter((o) => o.firedColumn === col).length, inRow.length, confidence)]));
  }
  return { rows, columns, cells };
}

export function aggregates(cases: GradableCase[], outcomes: TrialOutcome[], confidence: number): Aggregates {
  const expectOf = new Map(cases.map((c) => [c.id, c.expect]));
  const ev = outcomes.filter((o) => o.arm === 'skill' && usable(o));
  const positives = ev.filter((o) => expectOf.get(o.caseId) !== NONE);
  const negatives = ev.filter((o) => expectOf.get(o.caseId) === NONE);
  const familyFired = (o: TrialOutcome) => o.firings.some((f) => f.skill !== undefined);
  const tp = positives.filter((o) => o.fired === 'expected').length;
  const fp = positives.filter((o) => o.fired === 'sibling').length + negatives.filter(familyFired).length;
  const recall = wilsonInterval(tp, positives.length, confidence);
  const precision = wilsonInterval(tp, tp + fp, confidence);
  const f1 = recall.p + precision.p > 0 ? (2 * recall.p * precision.p) / (recall.p + precision.p) : Number.NaN;
  return { recall, falseTriggerRate: wilsonInterval(negatives.filter(familyFired).length, negatives.length, confidence), precision, f1 };
}

/** Per case with scored trials in both arms: pair the i-th skill trial with the i-th ablation trial. */
export function ablationTable(cases: GradableCase[], outcomes: TrialOutcome[], confidence: number): AblationRow[] {
  const rows: AblationRow[] = [];
  const byCaseArm = groupBy(outcomes, (o) => `${o.caseId}\u0000${o.arm}`);
  for (const c of cases) {
    const scoredByN = (arm: Arm) => new Map((byCaseArm.get(`${c.id}\u0000${arm}`) ?? []).filter((o) => o.passed !== null).map((o) => [o.n, o.passed!]));
    const skill = scoredByN('skill');
    const ablation = scoredByN('ablation');
    const pairs: [boolean, boolean][] = [...skill.keys()].filter((n) => ablation.has(n)).sort((a, b) => a - b).map((n) => [skill.get(n)!, ablation.get(n)!]);
    if (pairs.length === 0) continue;
    const counts = pairCounts(pairs);
    rows.push({
      caseId: c.id,
      pairs: pairs.length,
      counts,
      skillRate: wilsonInterval(counts.both + counts.skillOnly, pairs.length, confidence),
      ablationRate: wilsonInterval(counts.both + counts.ablationOnly, pairs.length, confidence),
      difference: pairedDifference(counts, confidence),
      pValue: mcnemarExact(counts),
    });
  }
  return rows;
}

export function summarise(cases: GradableCase[], outcomes: TrialOutcome[], family: string[], arms: readonly Arm[], confidence = 0.95): Summary {
  const byCaseArm = groupBy(outcomes, (o) => `${o.caseId}\u0000${o.arm}`);
  return {
    confidence,
    // The skill arm always has a row; the ablation arm only where it ran.
    cases: cases.flatMap((c) =>
      arms
        .filter((arm) => arm === 'skill' || byCaseArm.has(`${c.id}\u0000${arm}`))
        .map((arm) => summariseCaseArm(c, arm, byCaseArm.get(`${c.id}\u0000${arm}`) ?? [], confidence)),
    ),
    confusion: confusionMatrix(cases, outcomes, family, confidence),
    aggregates: aggregates(cases, outcomes, confidence),
    ablation: ablationTable(cases, outcomes, confidence),
  };
}
