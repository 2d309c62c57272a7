import type { Case } from '../load/cases.js';
import { aaVerdictFlipChance } from '../mutate/power.js';
import type { RunSummary } from '../report/runs.js';
import { NONE } from '../run/schema.js';
import type { Config } from '../run/config-schema.js';
import { caseDesign } from '../stats/case-design.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import type { SequentialDesign } from '../stats/sequential-design.js';
import { gradableCase } from '../trials/stored-case.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { pct, plural } from '../util/text.js';
import { finding, type Finding, type LintCase } from './types.js';

/**
 * What the stored runs say of the suite itself: cases that cannot move (every stored trial in every arm passed, or
 * every one failed), and how often two runs of the very same skill would change some case's verdict from PASS at the
 * suite's design. Both are warnings: a suite with them is one `skillprobe mutate` would find blind in places.
 */

/** Trials of one arm: how many passed, of how many scored. */
export interface ArmCount {
  successes: number;
  n: number;
}

/** One case's stored trials, every run that holds it pooled, per arm. */
export interface StoredCase {
  runs: number;
  skill: ArmCount;
  /** Trials without the family, where a run had the ablation arm for the case. */
  ablation?: ArmCount;
}

/** Each case's trials over the runs, by case id: runs without results (still going, unreadable) hold none. Pure. */
export function storedCases(rows: readonly RunSummary[]): Map<string, StoredCase> {
  const out = new Map<string, StoredCase>();
  const add = (into: ArmCount | undefined, r: ArmCount): ArmCount => ({
    successes: (into?.successes ?? 0) + r.successes,
    n: (into?.n ?? 0) + r.n,
  });
  for (const line of rows.flatMap((r) => r.results?.cases ?? [])) {
    if (!line.skill?.rate.n) continue;
    const id = line.verdict.caseId;
    const was = out.get(id);
    const ablation = line.ablation?.rate.n ? add(was?.ablation, line.ablation.rate) : was?.ablation;
    out.set(id, { runs: (was?.runs ?? 0) + 1, skill: add(was?.skill, line.skill.rate), ...(ablation ? { ablation } : {}) });
  }
  return out;
}

/** A case whose rate is this far from always (or never) passing can still move: the rule must not call it stuck. */
export const STUCK_MARGIN = 0.1;
/** The chance the rule calls a case stuck when it can still move: at most this. */
export const STUCK_ALPHA = 0.05;
/**
 * The fewest trials per arm before "every one passed" says stuck: a case passing at 1 − STUCK_MARGIN passes all n with
 * chance (1 − STUCK_MARGIN)ⁿ, at most STUCK_ALPHA from 29 on. Fewer all-passing trials are no evidence (a case at
 * 0.9 passes a run of 6 whole 53% of the time).
 */
export const STUCK_TRIALS = Math.ceil(Math.log(STUCK_ALPHA) / Math.log(1 - STUCK_MARGIN));

export type Stuck = 'saturated' | 'floor';

/**
 * Floor: every stored trial in every arm failed, so the rate cannot drop and no broken skill shows. Saturated: a
 * positive case passed every trial with the family and without it (the ablation arm), so it passes whatever the skill
 * says. The skill arm alone passing every trial is no saturation: a broken skill would still drop it. Pure.
 */
export function stuckAs(c: StoredCase, positive: boolean): Stuck | undefined {
  const arms = [c.skill, ...(c.ablation ? [c.ablation] : [])];
  if (arms.some((a) => a.n < STUCK_TRIALS)) return undefined;
  if (arms.every((a) => a.successes === 0)) return 'floor';
  if (positive && c.ablation && arms.every((a) => a.successes === a.n)) return 'saturated';
  return undefined;
}

const runsText = (c: StoredCase) => `over ${plural(c.runs, 'stored run')}`;

/** A warning for each case the stored runs show stuck. Pure. */
export function stuckCaseFindings(cases: readonly LintCase[], stored: ReadonlyMap<string, StoredCase>): Finding[] {
  return cases.flatMap((c) => {
    const s = stored.get(c.id);
    const stuck = s && stuckAs(s, c.expect !== NONE);
    if (!s || !stuck) return [];
    return [
      stuck === 'floor'
        ? finding(
            'suite-health',
            'warning',
            c.at.id,
            `case "${c.id}" failed every stored trial (${s.skill.n}${s.ablation ? ` with the family, ${s.ablation.n} without` : ''}, ${runsText(s)}): its rate cannot drop, so it cannot notice a broken skill`,
            'check its expectation against what the skill does (`skillprobe report` says why its trials failed), or fix the skill',
          )
        : finding(
            'suite-health',
            'warning',
            c.at.id,
            `case "${c.id}" passed every stored trial with the family (${s.skill.n}) and without it (${s.ablation!.n}), ${runsText(s)}: it passes whatever the skill says, so it cannot notice a broken one`,
            'ask for what only the skill knows (a plan check on the command it teaches), or drop the case',
          ),
    ];
  });
}

/**
 * The suite's A/A false-flip rate at its design: the chance that two runs of the very same skill change some case's
 * verdict from PASS, exact from each case's design at its stored pass rate (its skill arm's, every run pooled). Cases
 * with no design (fixed-N suites) or no stored trial are left out. Pure.
 */
export function aaFlips(
  cases: readonly LintCase[],
  stored: ReadonlyMap<string, StoredCase>,
  designOf: (caseId: string) => SequentialDesign | undefined,
): { rate: number; cases: { caseId: string; chance: number }[] } | undefined {
  const each = cases.flatMap((c) => {
    const [s, design] = [stored.get(c.id), designOf(c.id)];
    return s && design ? [{ caseId: c.id, chance: aaVerdictFlipChance(design, s.skill.successes / s.skill.n) }] : [];
  });
  if (!each.length) return undefined;
  return { rate: 1 - each.reduce((keep, c) => keep * (1 - c.chance), 1), cases: each.sort((a, b) => b.chance - a.chance) };
}

/** A warning when the A/A false-flip rate is above α, at the case that flips most. Pure. */
export function aaFlipFindings(cases: readonly LintCase[], flips: ReturnType<typeof aaFlips>, alpha: number): Finding[] {
  if (!flips || flips.rate <= alpha) return [];
  const top = flips.cases[0]!;
  const at = cases.find((c) => c.id === top.caseId)!.at.id;
  return [
    finding(
      'suite-health',
      'warning',
      at,
      `the suite's A/A false-flip rate at its design is ${pct(flips.rate)}: two runs of the very same skill change some case's verdict from PASS that often (at the stored pass rates of ${plural(flips.cases.length, 'case')}); "${top.caseId}" alone ${pct(top.chance)}`,
      'judge a change by `skillprobe compare` (its suite-level test holds false alarms at α), never by a verdict that moved; a case near its threshold settles with more trials or a clearer prompt',
    ),
  ];
}

/** The sequential design a case stops by in a run of `config`; undefined in a fixed-N suite. Pure. */
export const sequentialDesignOf = (c: Case, config: Config) =>
  decisionMode(config.decision.mode).sequential ? caseDesign(gradableCase(c, config)) : undefined;

/** The suite's health as its stored runs show it (`stored`: each case's trials over them; none, nothing to say). Pure. */
export function suiteHealthFindings(
  cases: readonly Case[],
  checked: readonly LintCase[],
  stored: ReadonlyMap<string, StoredCase>,
  config: Config,
): Finding[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const flips = aaFlips(checked, stored, (id) => sequentialDesignOf(byId.get(id)!, config));
  return [...stuckCaseFindings(checked, stored), ...aaFlipFindings(checked, flips, COMPARE_DEFAULTS.alpha)];
}
