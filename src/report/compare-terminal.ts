import type pc from 'picocolors';
import { CHANGES, type Change, type ChangeMethod, type Comparison, type ComparedRun } from '../verdict/comparison.js';
import { paragraph, plural, REPORT_WIDTH, table } from './format.js';
import type { ContextComparisons } from './reporter.js';
import { pValueText } from '../util/text.js';
import { kindCounts, METHOD_NAME, movedText, signedDifference, SUITE_METHOD, suiteRateRows, unchangedLegend } from './wording.js';

type Colors = ReturnType<typeof pc.createColors>;

/** A row's test, in the table's narrow column. */
const TEST_LABEL: Record<ChangeMethod, string> = { boschloo: 'exact', design: 'design', anytime: 'anytime', canary: 'canary' };
const CHANGE_COLOUR: Record<Change, 'red' | 'green' | 'yellow' | 'dim'> = {
  REGRESSED: 'red',
  IMPROVED: 'green',
  UNDECIDED: 'yellow',
  UNCHANGED: 'dim',
};
const runLine = (label: string, r: ComparedRun) =>
  `${label} ${r.runId} · ${r.agent.id} ${r.agent.cliVersion ?? '?'} · ${r.model.reported ?? r.model.requested} · ${r.decisionMode}, ${plural(r.trials, 'trial')}` +
  (r.costUsd !== undefined ? `, $${r.costUsd.toFixed(2)}` : '') +
  (r.simulated ? ' · SIMULATED' : '');

/** The terminal's comparison: changes first, then what moved in routing, then drift. */
export function comparisonText(c: Comparison, colors: Colors): string {
  const fit = (rows: string[][], align: ('l' | 'r')[]) => table(rows, align, { maxWidth: REPORT_WIDTH, wrap: ['id'] });
  const counts = kindCounts(
    CHANGES,
    c.cases.map((x) => x.change),
  );
  const across = [c.crossAgent && 'DIFFERENT AGENTS', c.crossModel && 'DIFFERENT MODELS'].filter(Boolean).join(' · ');
  const head = [
    paragraph(colors.bold(`skillprobe compare · suite ${c.suite.change} · ${counts || 'no cases in common'} · exit code ${c.exitCode}`)),
    paragraph(runLine('base     ', c.base)),
    paragraph(runLine('candidate', c.candidate)),
    ...(across ? [paragraph(colors.magenta(`${across}: the comparison is across them (a canary's point); read the drift below`))] : []),
  ];
  const suite = [
    paragraph(colors.bold(`SUITE · `) + colors[CHANGE_COLOUR[c.suite.change]](c.suite.change) + ` · ${c.suite.reason}`),
    fit(
      suiteRateRows(c.suite).map(([name, change, cases]) => [`  ${name}`, change, cases]),
      ['l', 'l', 'r'],
    ),
    paragraph(movedText(c.suite), '  '),
    paragraph(colors.dim(SUITE_METHOD), '  '),
  ];
  const methods = [...new Set(c.cases.map((x) => x.method))].map((m) => `${TEST_LABEL[m]}: ${METHOD_NAME[m]}`);
  const rows = c.cases.map((x) => [
    x.arm === 'skill' ? x.caseId : `${x.caseId} [${x.arm}]`,
    `${x.base.successes}/${x.base.n}`,
    `${x.candidate.successes}/${x.candidate.n}`,
    signedDifference(x.difference),
    pValueText(x.pAdjusted),
    TEST_LABEL[x.method],
    colors[CHANGE_COLOUR[x.change]](x.change) + (x.trialsToDecide !== undefined ? ` (n≈${x.trialsToDecide})` : ''),
  ]);
  const caseTable = fit(
    [['case', 'base', 'candidate', 'difference', 'p adj.', 'test', 'change'].map((h) => colors.bold(h)), ...rows],
    ['l', 'r', 'r', 'l', 'r', 'l', 'l'],
  );
  const legend = paragraph(colors.dim(`${methods.join(' · ')} · Benjamini–Hochberg at ${c.alpha} · ${unchangedLegend(c)}`));
  // What decided each case that moved, and what would decide each the gate waits on (the advice a top-up is).
  const reasons = c.cases
    .filter((x) => x.change === 'REGRESSED' || x.change === 'IMPROVED' || (x.change === 'UNDECIDED' && x.arm === 'skill'))
    .map((x) => paragraph(`${x.caseId} [${x.arm}] ${x.change}: ${x.reason}`, '  '));
  const routing = c.routing.length
    ? [
        paragraph(colors.bold('ROUTING · confusion-matrix cells that moved significantly (skill arm)')),
        fit(
          [
            ['case', 'expect', 'fired', 'base', 'candidate', 'difference', 'p adj.'].map((h) => colors.bold(h)),
            ...c.routing.map((r) => [
              r.caseId,
              r.expect,
              r.column,
              `${r.base.successes}/${r.base.n}`,
              `${r.candidate.successes}/${r.candidate.n}`,
              signedDifference(r.difference),
              pValueText(r.pAdjusted),
            ]),
          ],
          ['l', 'l', 'l', 'r', 'r', 'l', 'r'],
        ),
      ]
    : [];
  const changedSkills = c.drift.skills.filter((s) => s.state !== 'same');
  const drift = [
    paragraph(colors.bold("DRIFT · what differs besides the model's behaviour")),
    ...c.drift.facts.filter((f) => f.differs).map((f) => paragraph(colors.yellow(`${f.name}: ${f.base} → ${f.candidate}`), '  ')),
    paragraph(
      `the same in both: ${
        c.drift.facts
          .filter((f) => !f.differs)
          .map((f) => `${f.name} ${f.base}`)
          .join('; ') || 'nothing'
      }`,
      '  ',
    ),
    paragraph(
      changedSkills.length ? `skills: ${changedSkills.map((s) => `${s.name} ${s.state}`).join(', ')}` : 'skills: all the same',
      '  ',
    ),
    ...(c.onlyIn.base.length ? [paragraph(`only in base (not compared): ${c.onlyIn.base.join(', ')}`, '  ')] : []),
    ...(c.onlyIn.candidate.length ? [paragraph(`only in candidate (not compared): ${c.onlyIn.candidate.join(', ')}`, '  ')] : []),
  ];
  return (
    [head, suite, [caseTable, legend, ...reasons], routing, drift]
      .filter((s) => s.length)
      .map((s) => s.join('\n'))
      .join('\n\n') + '\n'
  );
}

/** Two lab,field runs compared: each context's comparison under its own heading, then the contexts not compared. */
export function contextComparisonsText(input: ContextComparisons, colors: Colors): string {
  const each = input.comparisons.map(
    ({ context, comparison: cmp }) =>
      `${colors.bold(`═══ context ${context} · base ${cmp.base.dir} · candidate ${cmp.candidate.dir}`)}\n\n${comparisonText(cmp, colors)}`,
  );
  const missing = input.missing.map((m) => paragraph(colors.red(`context ${m.context}: not compared, ${m.why}`)));
  return [...each, ...(missing.length ? [missing.join('\n') + '\n'] : [])].join('\n');
}
