import { table, usd } from '../report/format.js';
import type { Config } from '../run/config-schema.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { dropPower, plannedPower } from '../tune/holdout-design.js';
import type { CaseRole, SplitName } from '../tune/splits.js';
import { plural } from '../util/text.js';
import { holdoutDesign } from './tune-holdout.js';
import { planSuite } from './plan.js';
import type { PreparedTune } from './tune-prepare.js';

export interface TunePlanRow {
  what: string;
  runs: number;
  expected: number;
  worst: number;
}

/** Trials per case a step's design expects (at the rate where it needs most) and at most. */
function splitTrials(config: Config, p: PreparedTune, split: SplitName): { expected: number; worst: number } {
  const plan = planSuite(
    config,
    p.splits[split].map((id) => gradableCase(p.cases.get(id)!, config)),
  );
  const sequential = decisionMode(plan.mode).sequential;
  return plan.cases.reduce(
    (sum, c) => ({
      expected: sum.expected + (sequential ? c.worst.expectedTrials : c.configuredFixed),
      worst: sum.worst + (sequential ? Math.min(c.design.maxTrials, c.params.maxTrials) : c.configuredFixed),
    }),
    { expected: 0, worst: 0 },
  );
}

/**
 * What a tune may spend before anything runs, pure: the original on the tune and select cases, each iteration's
 * proposer and its candidate on both, and the holdout for the original and the winner. Expected counts take every
 * case at the rate where its design needs most trials; worst counts take each design's maximum.
 */
export function planTune(p: PreparedTune, evaluate: Config): TunePlanRow[] {
  const tune = splitTrials(evaluate, p, 'tune');
  const select = splitTrials(evaluate, p, 'select');
  const holdout = p.splits.holdout.length * p.options.holdoutTrials;
  const n = p.options.iterations;
  return [
    {
      what: `original on tune (${p.splits.tune.length} cases) and select (${p.splits.select.length})`,
      runs: 1,
      expected: tune.expected + select.expected,
      worst: tune.worst + select.worst,
    },
    { what: 'proposer calls', runs: n, expected: n, worst: n },
    {
      what: 'candidates on tune and select',
      runs: n,
      expected: n * (tune.expected + select.expected),
      worst: n * (tune.worst + select.worst),
    },
    {
      what: `holdout (${p.splits.holdout.length} cases × at most ${p.options.holdoutTrials} trials), original and winner`,
      runs: 2,
      expected: 2 * holdout,
      worst: 2 * holdout,
    },
  ];
}

/**
 * What the holdout can prove, before anything runs: its power for the gain the author names (at both ends of how a
 * gain can fall on the positives), its false IMPROVED rate, and each constraint's best chance to flag a drop of that
 * size, or that it has too few cases to.
 */
export function holdoutPlanText(p: PreparedTune): string {
  const d = holdoutDesign(p.options);
  const count = (role: CaseRole) => p.splits.holdout.filter((id) => p.roleOf(id) === role).length;
  const cap = p.options.holdoutTrials;
  const power = plannedPower(count('self'), d, cap);
  const lines = [
    `holdout: ${plural(count('self'), 'positive case')}, up to ${cap} trials each; the test stops as soon as it is decided.`,
    `  power for a recall gain of ${d.gain}: ${pctText(power.spread)} if every positive moves by ${d.gain} around 50%, ` +
      `${pctText(power.oneWay)} if every positive goes from 0% to ${pctText(d.gain)}; false IMPROVED at most ${pctText(d.alpha)}.`,
  ];
  for (const [role, name, kind] of [
    ['sibling', 'siblings', 'sibling'],
    ['none', 'negatives', 'negative'],
  ] as const) {
    const chance = dropPower(count(role) * cap, d.gain, p.options.alpha);
    lines.push(
      chance >= 1 - d.beta
        ? `  ${name}: ${plural(count(role), 'case')} can flag a drop of ${d.gain} (chance up to ${pctText(chance)}).`
        : `  ${name}: ${plural(count(role), 'case')} × ${cap} trials cannot flag a drop of ${d.gain} (chance at best ${pctText(chance)}): add ${kind} cases, or pin some with split: holdout.`,
    );
  }
  if (Math.min(power.spread, power.oneWay) < 1 - d.beta)
    lines.push(`  For more power: raise --holdout-trials, or add positive cases (pin some with split: holdout).`);
  return `${lines.join('\n')}\n`;
}

const pctText = (x: number) => `${Math.round(100 * x)}%`;

/** The plan as a table, with costs when a price per trial is known. */
export function renderTunePlan(rows: readonly TunePlanRow[], pricePerTrial: number | undefined, maxCostUsd: number | undefined): string {
  const total = rows.reduce((s, r) => ({ expected: s.expected + r.expected, worst: s.worst + r.worst }), { expected: 0, worst: 0 });
  const cost = (trials: number) => (pricePerTrial === undefined ? '—' : usd(trials * pricePerTrial));
  const lines = [
    ['step', 'runs', 'expected trials', 'worst case', 'cost (worst)'],
    ...rows.map((r) => [r.what, String(r.runs), r.expected.toFixed(0), String(r.worst), cost(r.worst)]),
    ['total', '', total.expected.toFixed(0), String(total.worst), cost(total.worst)],
  ];
  const notes = [
    'Expected counts take each case at the rate where its design needs the most trials, and every candidate through select; a candidate',
    'clearly worse on tune skips select, and a tune stops early once its best description fails no tune case.',
    pricePerTrial === undefined ? 'Pass --price-per-trial for costs.' : `At $${pricePerTrial} per trial.`,
    ...(maxCostUsd !== undefined ? [`--max-cost ${maxCostUsd} USD stops the tune there (a partial tune; --resume goes on).`] : []),
    "skill-creator's description loop (20 queries × 3 runs × (1 + 5 iterations)) spends 360 trials.",
  ];
  return `${table(lines, ['l', 'r', 'r', 'r', 'r'])}\n${notes.join('\n')}\n`;
}
