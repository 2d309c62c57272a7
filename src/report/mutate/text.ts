import { fmt, interval, paragraph, table } from '../format.js';
import { aaFlipText, headText, healthLines, killRates, mutantRows, POWER_NOTE, statusText, type MutateReportInput } from './view.js';

/** The mutate for a terminal: mutants × outcome, then the kill rate per operator. */
export function mutateTerminal({ record: r, dir }: MutateReportInput): string {
  const rows = mutantRows(r).map((x) => [x.skill, x.operator, x.outcome, x.power, x.flipped, x.reading]);
  const rates = killRates(r).map((k) => [k.operator, `${k.killed}/${k.ran}`, fmt(k.rate.p), interval(k.rate)]);
  return (
    [
      headText(r),
      '',
      table([['skill', 'operator', 'outcome', 'power', 'flips', 'why'], ...rows], ['l', 'l', 'l', 'r', 'r', 'l'], {
        maxWidth: 140,
        wrap: [undefined, undefined, undefined, undefined, undefined, 'word'],
      }),
      paragraph(`${aaFlipText(r)}; ${POWER_NOTE}`).trimEnd(),
      '',
      table([['operator', 'killed', 'kill rate', '95% interval'], ...rates], ['l', 'r', 'r', 'l']),
      '',
      'suite health',
      ...healthLines(r).map((l) => paragraph(l, '  ').trimEnd()),
      '',
      statusText(r, dir),
    ].join('\n') + '\n'
  );
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The mutate as Markdown (a pull request comment, a job summary). */
export function mutateMarkdown({ record: r, dir }: MutateReportInput): string {
  const rows = mutantRows(r).map((x) => `| ${x.skill} | ${x.operator} | ${x.outcome} | ${x.power} | ${x.flipped} | ${cell(x.reading)} |`);
  const rates = killRates(r).map((k) => `| ${k.operator} | ${k.killed}/${k.ran} | ${fmt(k.rate.p)} | ${interval(k.rate)} |`);
  return [
    `## ${headText(r)}`,
    '',
    '| skill | operator | outcome | power | flips | why |',
    '| --- | --- | --- | ---: | ---: | --- |',
    ...rows,
    '',
    `${aaFlipText(r)}; ${POWER_NOTE}.`,
    '',
    '| operator | killed | kill rate | 95% interval |',
    '| --- | ---: | ---: | --- |',
    ...rates,
    '',
    '### Suite health',
    '',
    ...healthLines(r).map((l) => `- ${l}`),
    '',
    statusText(r, dir),
    '',
  ].join('\n');
}
