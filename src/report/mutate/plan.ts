import type { MutateRecord } from '../../run/mutate-schema.js';
import { paragraph, table, usd } from '../format.js';
import { healthLines, plannedReadingOf, POWER_NOTE, powerCell } from './view.js';

/** What a mutate will spend and what each mutant's run can see, before anything runs. */
export function renderMutatePlan(
  r: MutateRecord,
  rows: readonly { what: string; expected: number; worst: number }[],
  pricePerTrial: number | undefined,
  maxCostUsd: number | undefined,
): string {
  const total = rows.reduce((s, x) => ({ expected: s.expected + x.expected, worst: s.worst + x.worst }), { expected: 0, worst: 0 });
  const cost = (trials: number) => (pricePerTrial === undefined ? '—' : usd(trials * pricePerTrial));
  const spend = table(
    [
      ['runs', 'expected trials', 'worst case', 'cost (worst)'],
      ...rows.map((x) => [x.what, x.expected.toFixed(0), String(x.worst), cost(x.worst)]),
      ['total', total.expected.toFixed(0), String(total.worst), cost(total.worst)],
    ],
    ['l', 'r', 'r', 'r'],
  );
  const mutants = table(
    [
      ['skill', 'operator', 'power', 'what it can see'],
      ...r.mutants.map((m) => [
        m.skill,
        m.operator,
        powerCell(m),
        m.inapplicable ?? (m.power === undefined && m.refused === undefined ? (m.what ?? '') : plannedReadingOf(m)),
      ]),
    ],
    ['l', 'l', 'r', 'l'],
    { maxWidth: 140, wrap: [undefined, undefined, undefined, 'word'] },
  );
  const notes = [
    'Each run is the skill arm at the suite’s design; expected counts take each case at the rate where its design needs most trials.',
    r.simulator
      ? `${POWER_NOTE}.`
      : 'power needs the rates a simulator profile gives (--sim); without it each mutant’s observed rates are reported after its run.',
    pricePerTrial === undefined ? 'Pass --price-per-trial for costs.' : `At $${pricePerTrial} per trial.`,
    ...(maxCostUsd !== undefined ? [`--max-cost ${maxCostUsd} USD stops the mutate there (--resume goes on).`] : []),
  ];
  const health = ['suite health', ...healthLines(r).map((l) => paragraph(l, '  ').trimEnd())].join('\n');
  return `${mutants}\n\n${spend}\n${notes.join('\n')}\n\n${health}\n`;
}
