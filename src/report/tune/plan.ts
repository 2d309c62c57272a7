import type { TuneRecord } from '../../run/tune-schema.js';
import { dropPower, plannedPower } from '../../tune/holdout-design.js';
import { holdoutDesign } from '../../tune/holdout-look.js';
import type { CaseRole, SplitName } from '../../tune/splits.js';
import { plural } from '../../util/text.js';
import { table, usd } from '../format.js';

/** A line of a tune's plan: what runs, how often, and the trials it takes. */
export interface TunePlanRow {
  what: string;
  runs: number;
  expected: number;
  worst: number;
}

/**
 * What the holdout can prove, before anything runs: its power for the gain the author names (at both ends of how a
 * gain can fall on the positives), its false IMPROVED rate, and each constraint's best chance to flag a drop of that
 * size, or that it has too few cases to.
 */
export function holdoutPlanText(p: {
  splits: Record<SplitName, string[]>;
  options: TuneRecord['options'];
  roleOf: (caseId: string) => CaseRole;
}): string {
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
