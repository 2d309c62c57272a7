import { plural } from '../../util/text.js';
import { paragraph, table } from '../format.js';
import { comparisonText, curseText, iterationRows, roundsText, spendText, splitText, verdictText, type TuneReportInput } from './view.js';

const ROLE_NOTE =
  'scores are recall · siblings · negatives: the mean pass rate of the cases expecting the skill, a sibling, and that it stays quiet (no skill, or not this one)';

/** The tune for a terminal. */
export function tuneTerminal({ record: r, dir, diff }: TuneReportInput): string {
  const head = `skillprobe tune ${r.skill} — ${r.agent}${r.model ? ` (${r.model})` : ''}${r.simulator ? ` — model SIMULATOR, profile "${r.simulator.name}": no real model answered` : ''}`;
  const rows = iterationRows(r).map((x) => [x.index, x.description, x.tune, x.select, x.trials, x.cost, x.outcome]);
  const out = [
    head,
    splitText(r),
    '',
    table([['iteration', 'description', 'tune', 'select', 'trials', 'cost', ''], ...rows], ['l', 'l', 'r', 'r', 'r', 'r', 'l'], {
      maxWidth: 140,
      wrap: [undefined, 'word', undefined, undefined, undefined, undefined, 'word'],
    }),
    ROLE_NOTE,
  ];
  if (r.holdout) {
    out.push(
      '',
      `holdout (original vs winner, ${roundsText(r).rounds}; paired by case and trial):`,
      `  recall     ${comparisonText(r.holdout.recall)}`,
      `  siblings   ${comparisonText(r.holdout.siblings)}`,
      `  negatives  ${comparisonText(r.holdout.negatives)}`,
      ...roundsText(r).thin.map((t) => `  ${t}`),
    );
    if (r.holdout.leftOut)
      out.push(`  ${plural(r.holdout.leftOut, 'pair')} left out: a trial without evidence (error, timeout) is never scored as a miss`);
    const curse = curseText(r);
    if (curse) out.push(paragraph(curse, '  ').trimEnd());
  }
  out.push('', `${r.verdict ?? r.status.toUpperCase()}: ${verdictText(r, dir)}`);
  if (diff) out.push('', diff.trimEnd());
  out.push('', `spent ${spendText(r)}; tune folder: ${dir}`);
  return out.join('\n') + '\n';
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The tune as GitHub-flavoured markdown. */
export function tuneMarkdown({ record: r, dir, diff }: TuneReportInput): string {
  const rows = iterationRows(r).map(
    (x) => `| ${[x.index, x.description, x.tune, x.select, x.trials, x.cost, x.outcome].map(cell).join(' | ')} |`,
  );
  const out = [
    `## skillprobe tune \`${r.skill}\` — ${r.verdict ?? r.status}`,
    '',
    ...(r.simulator ? [`> ⚠️ **model SIMULATOR** (profile "${r.simulator.name}"): no real model answered.`, ''] : []),
    `${r.agent}${r.model ? ` (${r.model})` : ''} · ${splitText(r)} · ${spendText(r)}`,
    '',
    '| iteration | description | tune | select | trials | cost | |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    `_${ROLE_NOTE}._`,
  ];
  if (r.holdout) {
    out.push(
      '',
      `**Holdout** (original vs winner, ${roundsText(r).rounds}; paired):`,
      '',
      `- recall: ${comparisonText(r.holdout.recall)}`,
      `- siblings: ${comparisonText(r.holdout.siblings)}`,
      `- negatives: ${comparisonText(r.holdout.negatives)}`,
      ...roundsText(r).thin.map((t) => `- ${t}`),
    );
    if (r.holdout.leftOut) out.push(`- ${plural(r.holdout.leftOut, 'pair')} left out (no evidence: never scored as a miss)`);
    const curse = curseText(r);
    if (curse) out.push(`- ${curse}`);
  }
  out.push('', `**${r.verdict ?? r.status}**: ${verdictText(r, dir)}`);
  if (diff) out.push('', '```diff', diff.trimEnd(), '```');
  return out.join('\n') + '\n';
}
