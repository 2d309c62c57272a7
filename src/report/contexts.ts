import type pc from 'picocolors';
import { largestDrops, type ContextDifferenceRow } from '../verdict/context-difference.js';
import { fmt, interval, paragraph, plural, table } from './format.js';
import type { ContextsReportInput, ReportInput } from './reporter.js';
import { byHandAdvice } from './advice.js';

/** One agent's suite run in the lab and in the field (`--context lab,field`): each run, and each case's difference. */

type Colors = ReturnType<typeof pc.createColors>;

const signed = (x: number) => (x > 0 ? `+${fmt(x)}` : fmt(x));
const rateCell = (r: ContextDifferenceRow['lab']) => `${r.successes}/${r.n} ${fmt(r.p)}`;

/** What the model did by hand in a case's field trials, and what to change. */
const byHand = (d: ContextDifferenceRow) =>
  d.byHand ? `; the model did it by hand in ${d.byHand} of ${d.field.n} field trials: ${byHandAdvice(d.expect)}` : '';

/** The contexts' runs, each as its own report, then the lab→field section and the contexts missing. */
export function contextsTerminal(input: ContextsReportInput, c: Colors, render: (r: ReportInput) => string): string {
  const each = input.runs.map((r) => `${c.bold(`═══ context ${r.context} · run folder ${r.runDir}`)}\n\n${render(r)}`);
  const missing = input.missing.map((m) =>
    paragraph(c.red(`context ${m.id}: nothing to report, ${m.why} (run both again: \`skillprobe run --context lab,field\`)`)),
  );
  return [...each, contextsSection(input, c).join('\n'), ...missing].join('\n') + '\n';
}

/** The lab→field section: the largest significant drops as its headline, then every case side by side. */
export function contextsSection(input: ContextsReportInput, c: Colors): string[] {
  const pct = Math.round(input.confidence * 100);
  const drops = largestDrops(input.rows);
  const headline = drops.length
    ? [
        paragraph(c.red(c.bold(`LAB → FIELD · ${plural(drops.length, 'case')} significantly worse in the field, largest drop first`))),
        ...drops.map((d) =>
          paragraph(
            `${d.caseId}: ${rateCell(d.lab)} in the lab, ${rateCell(d.field)} in the field, ${signed(d.diff)} ${interval(d)}${byHand(d)}`,
            '  ',
          ),
        ),
      ]
    : [
        paragraph(
          c.green(c.bold(`LAB → FIELD · no case significantly worse in the field (${plural(input.rows.length, 'case')} compared)`)),
        ),
      ];
  const head = ['case', 'lab', 'field', 'field − lab', `${pct}% interval`, ''].map((h) => c.bold(h));
  const rows = input.rows.map((r) => [
    r.caseId,
    rateCell(r.lab),
    rateCell(r.field),
    signed(r.diff),
    interval(r),
    r.drop ? c.red('▼ drop') : '',
  ]);
  return [
    ...headline,
    table([head, ...rows], ['l', 'r', 'r', 'r', 'l', 'l']),
    paragraph(
      c.dim(
        `Each case's pass rate in each context (passes/scored) and the field's minus the lab's, with Newcombe's ${pct}% interval for two independent rates: each context's trials are drawn on their own, so trial i in the lab and trial i in the field are no pair (with one --draw-seed they share draws, and the unpaired interval is then wider than it need be, never narrower, when a draw that passes in the field passes in the lab too). ▼: the interval lies wholly below 0.`,
      ),
    ),
  ];
}
