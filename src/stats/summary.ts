import type { Arm } from '../run/config-schema.js';
import { mcnemarExact, pairCounts, pairedDifference } from './mcnemar.js';
import { passKTable } from './pass-k.js';
import { wilsonInterval } from './wilson.js';
import { firingTurns } from './firing-turns.js';
import { expectLabel, falselyFired } from '../run/expectation.js';
import {
  BUDGET_STOPS,
  MULTIPLE,
  NO_EVIDENCE,
  NONE,
  OTHER,
  neighbourColumn,
  SELF,
  isToolColumn,
  toolOfColumn,
  type AblationRow,
  type Aggregates,
  type CaseArmSummary,
  type ConfusionMatrix,
  type FailureBreakdown,
  type GradableCase,
  type RefusedStatus,
  type Summary,
  type TrialCount,
  type TrialOutcome,
  type TrialStatus,
} from '../run/schema.js';

const usable = (o: TrialOutcome) => !NO_EVIDENCE.has(o.status);

/** Family members (folder names) that counted as fired in a trial: invocations, and reads when they count. */
export function familyFired(o: TrialOutcome, readsCount: boolean): string[] {
  return [...new Set(o.firings.filter((f) => f.skill !== undefined && (f.via === 'invoke' || readsCount)).map((f) => f.skill!))];
}

export interface SummaryOptions {
  confidence: number;
  /** Whether reading a skill's files counts as firing it (the grading option the outcomes were graded with). */
  readCountsAsFiring: boolean;
  /** Folder names of the neighbours installed beside the family (`neighbours:`): each gets its confusion column. */
  neighbours?: readonly string[];
}

/** Neighbours that counted as fired in a trial: invocations, and reads when they count. */
export function neighboursFired(o: TrialOutcome, readsCount: boolean): string[] {
  return [...new Set(o.firings.filter((f) => f.neighbour !== undefined && (f.via === 'invoke' || readsCount)).map((f) => f.neighbour!))];
}

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

export function summariseCaseArm(
  c: GradableCase,
  arm: Arm,
  outcomes: TrialOutcome[],
  { confidence, readCountsAsFiring }: SummaryOptions,
): CaseArmSummary {
  const scored = outcomes.filter((o) => o.passed !== null);
  const passes = scored.filter((o) => o.passed).length;
  const ev = outcomes.filter(usable);
  const self = ev.filter((o) => o.fired === 'self').length;
  const tool = ev.filter((o) => o.fired === 'tool').length;
  const statuses: Partial<Record<TrialStatus, number>> = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  return {
    caseId: c.id,
    arm,
    tags: c.tags,
    expect: c.expect,
    ...(c.not !== undefined ? { not: c.not } : {}),
    trials: outcomes.length,
    rate: wilsonInterval(passes, scored.length, confidence),
    passK: scored.length ? passKTable(scored.length, passes) : [],
    fired: {
      expected: ev.filter((o) => o.fired === 'expected').length,
      sibling: ev.filter((o) => o.fired === 'sibling').length,
      neighbour: ev.filter((o) => o.fired === 'neighbour').length,
      other: ev.filter((o) => o.fired === 'other').length,
      none: ev.filter((o) => o.fired === 'none').length,
      readOnly: ev.filter((o) => o.readOnly).length,
      // Only where it happened: a lab run's results read as they always did.
      ...(self ? { self } : {}),
      ...(tool ? { tool } : {}),
    },
    ...(self ? { wentAround: wilsonInterval(self, ev.length, confidence) } : {}),
    ...(arm === 'skill' && c.conversation?.followUps
      ? {
          firingTurns: firingTurns(
            ev.map((o) => (o.fired === 'expected' ? (o.firedTurn ?? 1) : undefined)),
            1 + c.conversation.followUps,
            confidence,
          ),
        }
      : {}),
    statuses,
    excluded: outcomes.length - scored.length,
    flags: { noop: outcomes.filter((o) => o.flags.noop).length, clarifying: outcomes.filter((o) => o.flags.clarifying).length },
    failures: failureBreakdown(c, arm, outcomes, readCountsAsFiring, confidence),
  };
}

function trialCount(trials: TrialOutcome[]): TrialCount {
  const example = (trials.find((o) => o.passed === false) ?? trials[0])?.n;
  return example === undefined ? { trials: 0 } : { trials: trials.length, example };
}

/** Counts of `key` over items, most frequent first (ties by name). */
function tally<T>(items: T[], key: (t: T) => string): { key: string; count: number }[] {
  const m = new Map<string, number>();
  for (const it of items) m.set(key(it), (m.get(key(it)) ?? 0) + 1);
  return [...m].map(([k, count]) => ({ key: k, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/**
 * Splits a case's trials in one arm, the scored ones, by what went wrong. A trial where nothing fired is "did not
 * fire", never a plan failure (its plan checks fail only because there is no plan); a refused skill call still counts
 * as the model's choice.
 */
export function failureBreakdown(
  c: GradableCase,
  arm: Arm,
  trials: TrialOutcome[],
  readsCount: boolean,
  confidence: number,
): FailureBreakdown {
  const scored = trials.filter((o) => o.passed !== null);
  const positive = c.expect !== NONE;
  const othersIn = (o: TrialOutcome) => familyFired(o, readsCount).filter((s) => s !== c.expect);
  const others = scored.flatMap((o) => othersIn(o).map((skill) => ({ skill })));
  const firedOther = (o: TrialOutcome) => othersIn(o).length > 0;
  const planWrong = scored.filter((o) => o.plan && !o.plan.pass && (arm === 'ablation' || o.fired === 'expected'));
  const failedChecks = planWrong.flatMap((o) => o.plan!.checks.filter((k) => !k.pass));
  // A trial the budget stopped before anything fired did not answer without a skill: it ran out (see budgetStop).
  const stopped = (o: TrialOutcome) => BUDGET_STOPS.has(o.status);
  const silent = scored.filter((o) => o.fired === 'none' && !stopped(o));
  const refusedIn = (o: TrialOutcome) => [
    ...new Set(
      o.firings.filter((f) => f.status !== undefined && f.status !== 'loaded').map((f) => `${f.status}\u0000${f.requested.trim()}`),
    ),
  ];
  const refusedCalls = scored.flatMap(refusedIn);
  const wentAround = positive && arm === 'skill' ? scored.filter((o) => o.fired === 'self' && !stopped(o)) : [];
  const usedTool = positive && arm === 'skill' ? scored.filter((o) => o.fired === 'tool' && !stopped(o)) : [];
  const tools = tally(usedTool, (o) => toolOfColumn(o.firedColumn)).map(({ key, count }) => ({ tool: key, trials: count }));
  return {
    ...(wentAround.length ? { wentAround: trialCount(wentAround) } : {}),
    ...(usedTool.length ? { usedTool: { ...trialCount(usedTool), tools } } : {}),
    didNotFire: trialCount(
      positive && arm === 'skill' ? scored.filter((o) => (o.fired === 'none' || o.fired === 'other') && !stopped(o)) : [],
    ),
    // A sibling firing beside the expected skill in a passing trial (a non-exclusive case) is no failure to fix.
    sibling: trialCount(positive && arm === 'skill' ? scored.filter((o) => o.passed === false && o.fired !== 'self' && firedOther(o)) : []),
    planWrong: trialCount(planWrong),
    falseTrigger: trialCount(scored.filter((o) => falselyFired(c, familyFired(o, readsCount)).length > 0)),
    budgetStop: trialCount(scored.filter(stopped)),
    firedOthers: tally(others, (x) => x.skill).map(({ key, count }) => ({ skill: key, trials: count })),
    // A neighbour taking a positive case's trial from its skill: the model went elsewhere.
    neighbour: trialCount(positive && arm === 'skill' ? scored.filter((o) => o.passed === false && o.fired === 'neighbour') : []),
    firedNeighbours: tally(
      scored.flatMap((o) => neighboursFired(o, readsCount)),
      (x) => x,
    ).map(({ key, count }) => ({ skill: key, trials: count, share: wilsonInterval(count, scored.length, confidence) })),
    planChecks: tally(failedChecks, (k) => k.check).map(({ key, count }) => ({
      check: key,
      failed: count,
      details: tally(
        failedChecks.filter((k) => k.check === key),
        (k) => k.detail ?? '',
      ).map((d) => ({ detail: d.key, trials: d.count })),
    })),
    whenSilent: {
      clarifying: silent.filter((o) => o.flags.clarifying).length,
      empty: silent.filter((o) => o.flags.noop).length,
      answered: silent.filter((o) => !o.flags.clarifying && !o.flags.noop).length,
    },
    refused: {
      ...trialCount(scored.filter((o) => refusedIn(o).length > 0)),
      calls: tally(refusedCalls, (x) => x).map(({ key, count }) => {
        const [status, requested] = key.split('\u0000') as [RefusedStatus, string];
        return { status, requested, trials: count };
      }),
    },
    judgeNo: trialCount(scored.filter((o) => o.judge?.items.some((i) => i.verdict === 'no'))),
    judged: judgedItems(trials),
  };
}

/**
 * Per judged item: the scored trials the judge said no to, and every judged trial it gave no verdict on (counted among
 * all the trials, not the scored ones: a calibrated judge's missing verdict is what left its trial out of n).
 */
function judgedItems(trials: TrialOutcome[]): FailureBreakdown['judged'] {
  const items = new Map<string, FailureBreakdown['judged'][number]>();
  for (const o of trials) {
    if (!o.judge) continue;
    for (const i of o.judge.items) {
      const row = items.get(i.item) ?? { item: i.item, no: 0, noVerdict: 0, scored: o.judge.scored };
      if (i.verdict === 'no' && o.passed !== null) row.no++;
      if (i.verdict === 'judge_error') row.noVerdict++;
      items.set(i.item, row);
    }
  }
  return [...items.values()];
}

/**
 * Expected × fired over the skill arm's usable trials, with a `neighbour:<dir>` column per neighbour and `none`,
 * `multiple` and `other` columns; a "not this skill" case's row is `not <member>`, after the `none` row.
 */
export function confusionMatrix(
  cases: GradableCase[],
  outcomes: TrialOutcome[],
  family: string[],
  confidence: number,
  neighbours: readonly string[] = [],
): ConfusionMatrix {
  const expectOf = new Map(cases.map((c) => [c.id, expectLabel(c)]));
  const ev = outcomes.filter((o) => o.arm === 'skill' && usable(o));
  const forbids = Object.fromEntries(
    family.filter((f) => cases.some((c) => c.not === f)).map((f) => [expectLabel({ expect: NONE, not: f }), f] as const),
  );
  const rows = [
    ...family.filter((f) => cases.some((c) => c.expect === f)),
    ...(cases.some((c) => c.expect === NONE && c.not === undefined) ? [NONE] : []),
    ...Object.keys(forbids),
  ];
  // `self` only where a trial went around the skills (a field run), so a lab run's matrix is as it always was; a
  // neighbour the suite did not declare (a skill the CLI bundles, listed in the field) only where one took a trial.
  const declared = neighbours.map(neighbourColumn);
  const brought = [...new Set(ev.map((o) => o.firedColumn))]
    .filter((col) => col.startsWith(neighbourColumn('')) && !declared.includes(col))
    .sort();
  // An MCP tool's column only where the model used one instead of the skills ("used the tool").
  const tools = [...new Set(ev.map((o) => o.firedColumn))].filter(isToolColumn).sort();
  const columns = [
    ...family,
    ...declared,
    ...brought,
    ...tools,
    NONE,
    ...(ev.some((o) => o.firedColumn === SELF) ? [SELF] : []),
    MULTIPLE,
    OTHER,
  ];
  const cells: ConfusionMatrix['cells'] = {};
  for (const row of rows) {
    const inRow = ev.filter((o) => expectOf.get(o.caseId) === row);
    cells[row] = Object.fromEntries(
      columns.map((col) => [col, wilsonInterval(inRow.filter((o) => o.firedColumn === col).length, inRow.length, confidence)]),
    );
  }
  return { rows, columns, cells, forbids };
}

export function aggregates(
  cases: GradableCase[],
  outcomes: TrialOutcome[],
  { confidence, readCountsAsFiring }: SummaryOptions,
): Aggregates {
  const caseOf = new Map(cases.map((c) => [c.id, c]));
  const ev = outcomes.filter((o) => o.arm === 'skill' && usable(o));
  const positives = ev.filter((o) => caseOf.get(o.caseId)?.expect !== NONE);
  const negatives = ev.filter((o) => caseOf.get(o.caseId)?.expect === NONE);
  // A sibling taking a "not this skill" case's request is a right route, neither a false trigger nor a wrong positive.
  const falseTrigger = (o: TrialOutcome) => falselyFired(caseOf.get(o.caseId)!, familyFired(o, readCountsAsFiring)).length > 0;
  const tp = positives.filter((o) => o.fired === 'expected').length;
  const fp = positives.filter((o) => o.fired === 'sibling').length + negatives.filter(falseTrigger).length;
  const recall = wilsonInterval(tp, positives.length, confidence);
  const precision = wilsonInterval(tp, tp + fp, confidence);
  const f1 = recall.p + precision.p > 0 ? (2 * recall.p * precision.p) / (recall.p + precision.p) : Number.NaN;
  return { recall, falseTriggerRate: wilsonInterval(negatives.filter(falseTrigger).length, negatives.length, confidence), precision, f1 };
}

/** Per case with scored trials in both arms: pair the i-th skill trial with the i-th ablation trial. */
export function ablationTable(cases: GradableCase[], outcomes: TrialOutcome[], confidence: number): AblationRow[] {
  const rows: AblationRow[] = [];
  const byCaseArm = groupBy(outcomes, (o) => `${o.caseId}\u0000${o.arm}`);
  for (const c of cases) {
    const scoredByN = (arm: Arm) =>
      new Map((byCaseArm.get(`${c.id}\u0000${arm}`) ?? []).filter((o) => o.passed !== null).map((o) => [o.n, o.passed!]));
    const skill = scoredByN('skill');
    const ablation = scoredByN('ablation');
    const pairs: [boolean, boolean][] = [...skill.keys()]
      .filter((n) => ablation.has(n))
      .sort((a, b) => a - b)
      .map((n) => [skill.get(n)!, ablation.get(n)!]);
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

export function summarise(
  cases: GradableCase[],
  outcomes: TrialOutcome[],
  family: string[],
  arms: readonly Arm[],
  opts: SummaryOptions,
): Summary {
  const { confidence } = opts;
  const byCaseArm = groupBy(outcomes, (o) => `${o.caseId}\u0000${o.arm}`);
  return {
    confidence,
    // The skill arm always has a row; the ablation arm only where it ran.
    cases: cases.flatMap((c) =>
      arms
        .filter((arm) => arm === 'skill' || byCaseArm.has(`${c.id}\u0000${arm}`))
        .map((arm) => summariseCaseArm(c, arm, byCaseArm.get(`${c.id}\u0000${arm}`) ?? [], opts)),
    ),
    confusion: confusionMatrix(cases, outcomes, family, confidence, opts.neighbours),
    aggregates: aggregates(cases, outcomes, opts),
    ablation: ablationTable(cases, outcomes, confidence),
  };
}
