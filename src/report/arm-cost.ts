import { grouped } from './format.js';
import type { ArmCostMetric, ArmCosts, CostDifference } from '../run/schema.js';

/** Whether a run has a per-arm section: some case measured in both arms (with the skill arm alone, COST says it all). */
export const hasPerArm = (costs: ArmCosts | undefined): costs is ArmCosts =>
  costs !== undefined && costs.cases.some((c) => Object.keys(c.difference).length > 0);

/** The metrics the per-arm table shows, in its column order, with their headers. */
const PER_ARM_COLUMNS: readonly { metric: ArmCostMetric; header: string }[] = [
  { metric: 'input', header: 'input' },
  { metric: 'cached', header: 'cached' },
  { metric: 'output', header: 'output' },
  { metric: 'wallMs', header: 'time' },
  { metric: 'requests', header: 'requests' },
  { metric: 'costUsd', header: 'cost' },
];

/** A metric's value per trial as the reports show it: tokens whole, seconds and requests to a tenth, dollars to 4 places. */
function metricValue(metric: ArmCostMetric, x: number, signed = false): string {
  if (!Number.isFinite(x)) return '—';
  const sign = signed && x > 0 ? '+' : '';
  switch (metric) {
    case 'wallMs':
      return `${sign}${(x / 1000).toFixed(1)} s`;
    case 'requests':
      return `${sign}${x.toFixed(1)}`;
    case 'costUsd':
      return `${sign}${x < 0 ? '-' : ''}$${Math.abs(x).toFixed(4)}`;
    default:
      return `${sign}${grouped(x)}`;
  }
}

/**
 * Skill − ablation with its interval: `+1,840 [+1,610, +2,070]`, `+0.9 s [+0.4, +1.4]`; `unit` goes between them
 * (`+1,840 input tokens/trial [+1,610, +2,070]`).
 */
function differenceText(metric: ArmCostMetric, d: Pick<CostDifference, 'diff' | 'lo' | 'hi'>, unit = ''): string {
  const bare = (x: number) => (metric === 'wallMs' ? metricValue(metric, x, true).replace(/ s$/, '') : metricValue(metric, x, true));
  return `${metricValue(metric, d.diff, true)}${unit} [${bare(d.lo)}, ${bare(d.hi)}]`;
}

/** The columns a run has: a metric no trial reported (cost, where the CLI names none) has none. */
const shownColumns = (costs: ArmCosts) =>
  PER_ARM_COLUMNS.filter(({ metric }) => costs.cases.some((c) => c.arms.some((a) => a.metrics[metric] !== undefined)));

/** The label of a case's skill − ablation row. */
export const DIFFERENCE_ROW = 'difference';

/**
 * The per-arm table under its header (`perArmHeader`): each case on a line of its own, then its arms (mean per trial)
 * and its skill − ablation row where both arms were measured, the interval below the difference where `intervals`
 * names the metric (a terminal has room for a few; a page, for all).
 */
export function perArmRows(costs: ArmCosts, intervals: ReadonlySet<ArmCostMetric> | 'all' = 'all', between = ' '): string[][] {
  const columns = shownColumns(costs);
  const withInterval = (metric: ArmCostMetric) => intervals === 'all' || intervals.has(metric);
  return costs.cases.flatMap((c) => [
    [c.caseId],
    ...c.arms.map((a) => [
      `  ${a.arm}`,
      a.settled ? `${a.trials} (${a.settled} settled)` : String(a.trials),
      ...columns.map(({ metric }) => {
        const m = a.metrics[metric];
        return m ? metricValue(metric, m.mean) : '—';
      }),
    ]),
    ...(Object.keys(c.difference).length
      ? [
          [
            `  ${DIFFERENCE_ROW}`,
            '',
            ...columns.map(({ metric }) => {
              const d = c.difference[metric];
              if (!d) return '—';
              return withInterval(metric) ? differenceText(metric, d).replace(' [', `${between}[`) : metricValue(metric, d.diff, true);
            }),
          ],
        ]
      : []),
  ]);
}

const perArmHeader = (costs: ArmCosts): string[] => ['case, arm', 'trials', ...shownColumns(costs).map((c) => c.header)];

/** What the table counts, said once under it. */
export const PER_ARM_NOTE =
  'Means per trial over the trials that carry evidence (faults left out); input counts every input token, cached or not; ' +
  'time is the trial wall time; requests are the model requests its transcript shows (the agent turns other tools count: ' +
  'a turn here is a user turn of a conversation); settled trials, stopped once their ' +
  'outcome was settled, count as spent. ' +
  'Difference: skill − ablation per trial, with Welch intervals; per skill, each of its cases weighs the same.';

/** The family's share of the CLI's skill listing: what every skill-arm trial carries before the model answers. */
function listingText(costs: ArmCosts): string | undefined {
  const l = costs.listing;
  if (!l) return undefined;
  const entries = `the family's listing entries take ${grouped(l.chars)} characters`;
  if (l.budgetChars === undefined || l.share === undefined) return `${entries}: ${l.cli} lists every skill whole, with no budget to share`;
  return `${entries} of the ~${grouped(l.budgetChars)} ${l.cli} gives the whole skill listing (${Math.round(l.share * 100)}%)`;
}

/** What every report's per-arm section shows above its table: the title, the worth lines and the listing's share. */
export function perArmView(costs: ArmCosts): { title: string; lines: string[]; header: string[] } {
  const listing = listingText(costs);
  return {
    title: `what a trial spends with the family installed (skill) and without it (ablation) · [${Math.round(costs.confidence * 100)}% CI]`,
    lines: [...worthLines(costs), ...(listing ? [listing] : [])],
    header: perArmHeader(costs),
  };
}

/**
 * One line per skill: what its trials spend with it installed over without, and what that buys in pass rate, e.g.
 * `atl-jira: +1,840 input tokens/trial [+1,610, +2,070], +0.9 s [+0.4, +1.4], pass rate +62 pts over 2 cases → ~30 input tokens per point`.
 */
export function worthLines(costs: ArmCosts): string[] {
  return costs.skills.map((s) => {
    const input = s.difference.input;
    const parts = [
      ...(input ? [differenceText('input', input, ' input tokens/trial')] : []),
      ...(s.difference.output ? [`${metricValue('output', s.difference.output.diff, true)} output`] : []),
      ...(s.difference.wallMs ? [differenceText('wallMs', s.difference.wallMs)] : []),
      ...(s.difference.costUsd ? [`${metricValue('costUsd', s.difference.costUsd.diff, true)}/trial`] : []),
    ];
    const over = `over ${s.cases.length === 1 ? `case ${s.cases[0]}` : `${s.cases.length} cases`}`;
    const rate = s.passRate;
    const points = rate ? Math.round(rate.diff * 100) : undefined;
    const buys =
      rate === undefined
        ? 'no pass rate without it (its cases have no plan checks to score in the ablation arm)'
        : `pass rate ${points! > 0 ? '+' : ''}${points} pts`;
    const perPoint =
      input && points !== undefined && points > 0 && input.diff > 0 ? ` → ~${grouped(input.diff / points)} input tokens per point` : '';
    return `${s.skill}: ${[...parts, buys].join(', ')} ${over}${perPoint}`;
  });
}
