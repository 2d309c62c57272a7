import { fell, powerOf, rose, TARGET_POWER, type CaseMove, type MutateRecord, type StoredMutant } from '../../run/mutate-schema.js';
import type { Rate } from '../../run/schema.js';
import { clopperPearsonInterval } from '../../stats/clopper-pearson.js';
import { formatProblem } from '../../util/input-error.js';
import { pct } from '../../util/text.js';

/** What every mutate report shows, in words and figures, so the four reporters say the same thing. Pure. */
export interface MutateReportInput {
  record: MutateRecord;
  /** The mutate folder as the user named it. */
  dir: string;
}

/** What became of a mutant, in one word. */
export type MutantOutcome = 'killed' | 'survived' | 'not run' | 'refused' | 'inapplicable';

export const outcomeOf = (m: StoredMutant): MutantOutcome =>
  m.inapplicable !== undefined
    ? 'inapplicable'
    : m.refused !== undefined
      ? 'refused'
      : m.noticed === undefined
        ? 'not run'
        : m.noticed
          ? 'killed'
          : 'survived';

/** The cases whose pass rate the mutant lowers (predicted by the simulator where it was, else observed), most first. */
const movedCases = (m: StoredMutant) => (m.moves ?? m.observed ?? []).filter(fell).sort((a, b) => a.to - a.from - (b.to - b.from));

/** `jira-create-bug 60%→92%`. */
const moveText = (c: CaseMove) => `${c.caseId} ${pct(c.from)}→${pct(c.to)}`;

/**
 * The power a mutant's design had, in words: the exact floor (the combined test alone) and the whole rule's chance,
 * simulated, with its interval; a record begun before the latter was kept has the floor alone.
 */
export const powerText = (m: StoredMutant): string =>
  m.power === undefined
    ? '—'
    : m.rulePower === undefined
      ? `at least ${pct(m.power)}`
      : `at least ${pct(m.power)} exactly; ${pct(m.rulePower.p)} [${pct(m.rulePower.lo)}, ${pct(m.rulePower.hi)}] simulated`;

/** The power column: the whole rule's chance where simulated, its exact floor beside it. */
export const powerCell = (m: StoredMutant): string =>
  m.power === undefined ? '—' : m.rulePower === undefined ? `≥${pct(m.power)}` : `${pct(m.rulePower.p)} (≥${pct(m.power)})`;

/** The first three cases, and how many more. */
const named = (cs: readonly CaseMove[]) => cs.slice(0, 3).map(moveText).join(', ') + (cs.length > 3 ? ` and ${cs.length - 3} more` : '');

/** The trials per case that would notice a mutant, where its power fell short. */
const neededText = (m: StoredMutant) =>
  m.trialsNeeded === undefined
    ? ''
    : m.trialsNeeded === null
      ? '; more than 100 trials per case would be needed'
      : `; ${m.trialsNeeded} trials per case in each run would notice it at least ${pct(TARGET_POWER)} of the time`;

/** What a planned mutant's run can see: the cases it moves with the power to notice them, or why none can be seen. */
export function plannedReadingOf(m: StoredMutant): string {
  const moved = movedCases(m);
  if (m.refused !== undefined || m.power === undefined || moved.length === 0) return readingOf({ ...m, noticed: false });
  return `moves cases (power ${powerText(m)}): ${named(moved)}${neededText(m)}`;
}

/** Why a mutant survived, or what stopped it: "no case for this" or "too few trials", with what would kill it. */
export function readingOf(m: StoredMutant): string {
  const outcome = outcomeOf(m);
  if (outcome === 'inapplicable') return m.inapplicable!;
  if (outcome === 'refused') return `not run: it fails the checks a shipped skill passes (${m.refused})`;
  if (outcome === 'not run') return m.status ? `its run ended ${m.status}` : 'not run yet';
  const moved = movedCases(m);
  const chance = powerOf(m);
  const power = m.power === undefined ? '' : ` (power ${powerText(m)})`;
  const needed = neededText(m);
  // A kill the design had little chance of is luck: the trials that would make it the rule are named.
  if (outcome === 'killed') return `noticed${power}${needed}`;
  if (moved.length === 0) {
    const raised = (m.moves ?? m.observed ?? []).filter(rose).map(moveText);
    const why = raised.length ? `no case's pass rate fell (${raised.slice(0, 3).join(', ')} rose)` : "no case's pass rate moved";
    return `no case for this: ${why}; add ${m.killedBy ?? 'a case that this defect would fail'}`;
  }
  if (m.moves && chance !== undefined && chance >= TARGET_POWER) {
    // The simulator's rates said the suite would see it: what the runs saw of those cases says where they differ.
    const seen = moved.flatMap((c) => m.observed?.find((o) => o.caseId === c.caseId) ?? []);
    return `survived though its power was ${powerText(m)}: predicted ${named(moved)}; the runs saw ${seen.length ? named(seen) : 'no rates'}: a rate the simulator plays otherwise than predicted, or the ${pct(1 - chance)} chance of missing`;
  }
  return `too few trials${power}: ${named(moved)} moved${needed}`;
}

/** One row per mutant. */
export function mutantRows(
  r: MutateRecord,
): { skill: string; operator: string; outcome: MutantOutcome; power: string; flipped: string; reading: string }[] {
  return r.mutants.map((m) => ({
    skill: m.skill,
    operator: m.operator,
    outcome: outcomeOf(m),
    power: powerCell(m),
    flipped: m.noticed === undefined ? '—' : String(m.flipped.length),
    reading: readingOf(m),
  }));
}

/** Kill rate per operator and overall, with the exact 95% interval, over the mutants that ran to an answer. */
export function killRates(r: MutateRecord): { operator: string; killed: number; ran: number; rate: Rate }[] {
  const rate = (ms: StoredMutant[]) => {
    const ran = ms.filter((m) => m.noticed !== undefined);
    const killed = ran.filter((m) => m.noticed).length;
    return { killed, ran: ran.length, rate: clopperPearsonInterval(killed, ran.length) };
  };
  return [
    ...r.operators.map((operator) => ({ operator, ...rate(r.mutants.filter((m) => m.operator === operator)) })),
    { operator: 'overall', ...rate(r.mutants) },
  ];
}

/** What the power column means, in every report of a mutate and its plan. */
export const POWER_NOTE =
  "power: the chance the suite notices the mutant by the rule it counts (a case REGRESSED on its own test, or the suite-level combined test), from the simulator's rates before and after, simulated on seeded draws of both runs at the suite's design; after ≥, the exact chance of the combined test alone, its floor";

/** The literal rule's false alarms, said beside the counted rule. */
export const aaFlipText = (r: MutateRecord) =>
  r.aaFlipRate === undefined
    ? 'noticed = the suite-level canary against the unmutated run says REGRESSED (false alarms at most α)'
    : `noticed = the suite-level canary against the unmutated run says REGRESSED (false alarms at most ${pct(r.alpha)}); a case's verdict changing from PASS is shown, not counted: two runs of the same skill change one ${pct(r.aaFlipRate)} of the time at this design`;

export const headText = (r: MutateRecord) =>
  `skillprobe mutate ${r.skills.join(', ')} — ${r.agent}${r.model ? ` (${r.model})` : ''}${r.simulator ? ` — model SIMULATOR, profile "${r.simulator.name}": no real model answered` : ''}`;

export const statusText = (r: MutateRecord, dir: string) =>
  r.status === 'completed'
    ? `spent ${r.trials} trials${r.costUsd !== undefined ? `, $${r.costUsd.toFixed(2)}` : ''}; mutate folder: ${dir} (each mutant's run: <skill>/<operator>/run, the unmutated: ${r.base.dir})`
    : `the mutate is ${r.status.replace('_', ' ')} after ${r.trials} trials: \`skillprobe mutate --resume ${dir}\` goes on`;

/** The suite-health section: lint's warnings as the mutate began, each `file:line:col: what — what to do`, or why none. */
export const healthLines = (r: MutateRecord): string[] =>
  r.health === undefined
    ? ['not kept: this mutate began before its record kept the suite’s health; `skillprobe lint` says it now']
    : r.health.length
      ? r.health.map(formatProblem)
      : ['no warning: no case names the skill it expects, and no stored run shows a case that cannot move'];
