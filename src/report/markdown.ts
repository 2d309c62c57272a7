import { mutateMarkdown } from './mutate/text.js';
import { tuneMarkdown } from './tune/text.js';
import { rejudgeMarkdown } from './rejudge.js';
import { join } from 'node:path';
import { advice } from './advice.js';
import { costBreakdown, type CostLine } from './cost.js';
import { hasPerArm, PER_ARM_NOTE, perArmRows, perArmView } from './arm-cost.js';
import { grouped, plural, usd } from './format.js';
import type { AgentsReportInput, RefusalFixes, ReportInput, Reporter } from './reporter.js';
import { pValueText } from '../util/text.js';
import { transcriptPath, type CaseArmSummary, type CaseVerdict, type Verdict } from '../run/schema.js';
import { expectLabel } from '../run/expectation.js';
import { CHANGES, type Change, type Comparison, type ComparedRun } from '../verdict/comparison.js';
import {
  AGENT_MATRIX_NOTE,
  agentCellText,
  calibrationMissText,
  calibrationText,
  caseFacts,
  designText,
  disagreementText,
  judgeCostText,
  judgeGates,
  judgeRequestsText,
  judgeWhoText,
  kindCounts,
  METHOD_NAME,
  movedText,
  SUITE_METHOD,
  suiteRateRows,
  missingAgentText,
  modelText,
  needsExplaining,
  passNotes,
  rateNotes,
  rateText,
  signedDifference,
  costNote,
  cacheText,
  settledText,
  SIMULATED_NOTE,
  simulatorText,
  neighboursNote,
  stabilityNote,
  trialsUsed,
  unstableText,
  verdictCounts,
  verdictRate,
  untrustedJudgeMark,
  untrustedJudgeNotes,
  unchangedLegend,
  FIRING_TURN_NOTE,
  firingTurnTable,
} from './wording.js';

/** A GitHub comment holds 65,536 characters; the rest is room for what a workflow wraps around the report. */
export const MARKDOWN_LIMIT = 65_000;

const HTML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// Control characters (tab aside) mean nothing in a comment and some break its rendering; a lone surrogate is no
// character at all (with the u flag, only unpaired surrogates match).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F\uD800-\uDFFF]/gu;

/** Text on one line: a line break could start a heading, a list or a rule, or end a table or a <details> line. */
const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').replace(CONTROL, '\uFFFD');

/** Text inside an HTML element (a <summary>): entities only, since markdown is not parsed there. */
const html = (s: string) => oneLine(s).replace(/[&<>]/g, (ch) => HTML_ENTITY[ch]!);

/** Text shown as written in a table cell or a list item: HTML as entities, what markdown or a table reads as syntax backslash-escaped. */
const inline = (s: string) => html(s).replace(/[\\`*_[\]|~#]/g, '\\$&');

/** A code span that holds any text: the fence is longer than any run of backticks inside. */
function code(s: string): string {
  const one = oneLine(s);
  const fence = '`'.repeat(Math.max(0, ...(one.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** The reports' prose, where a command stands in backticks: each `…` span a code span, the rest shown as written. */
const prose = (s: string) =>
  oneLine(s)
    .split(/`([^`]+)`/)
    .map((part, i) => (i % 2 ? code(part) : inline(part)))
    .join('');

/** The same inside an HTML element (a <summary>), where markdown is not parsed: the spans as <code>. */
const htmlProse = (s: string) =>
  oneLine(s)
    .split(/`([^`]+)`/)
    .map((part, i) => (i % 2 ? `<code>${html(part)}</code>` : html(part)))
    .join('');

/** A table of cells already escaped (`inline`). */
function table(head: string[], rows: string[][], align: ('l' | 'r')[]): string[] {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map((r) => line(r))];
}

const VERDICT_MARK: Record<Verdict, string> = { PASS: '✅ PASS', FAIL: '❌ FAIL', INCONCLUSIVE: '⚠️ INCONCLUSIVE', ERROR: '⛔ ERROR' };
const CHANGE_MARK: Record<Change, string> = {
  REGRESSED: '❌ REGRESSED',
  IMPROVED: '✅ IMPROVED',
  UNCHANGED: 'UNCHANGED',
  UNDECIDED: '⚠️ UNDECIDED',
};

const CUT_NOTE = `\n\n> ✂️ **Cut here** to fit a GitHub comment (${grouped(MARKDOWN_LIMIT)} characters): the terminal reporter prints it whole.\n`;

/**
 * Blocks (lists of lines) joined into one document; past the limit, whole lines are kept while they fit, then a note.
 * A cut never falls inside a line, so never inside a <details> block, which is a block of one line.
 */
function fit(blocks: string[][]): string {
  const full = blocks.map((b) => b.join('\n')).join('\n\n') + '\n';
  if (full.length <= MARKDOWN_LIMIT) return full;
  let out = '';
  for (const [i, block] of blocks.entries()) {
    for (const [j, line] of block.entries()) {
      const next = `${i === 0 && j === 0 ? '' : j === 0 ? '\n\n' : '\n'}${line}`;
      if (out.length + next.length + CUT_NOTE.length > MARKDOWN_LIMIT) return out + CUT_NOTE;
      out += next;
    }
  }
  return out + CUT_NOTE;
}

function header({ results, manifest }: ReportInput): string[] {
  const run = results.run;
  const lines = [
    `### skillprobe run ${inline(results.runId)} · ${inline(run.agent.id)} ${inline(run.agent.cliVersion ?? '?')} · ${inline(modelText(run))} · ${run.status}`,
  ];
  if (run.simulator) lines.push('', `> ⚠️ **SIMULATED** · ${inline(simulatorText(run.simulator))} ${inline(SIMULATED_NOTE)}`);
  const neighbours = neighboursNote(manifest);
  if (neighbours) lines.push('', `> ${inline(neighbours)}`);
  const whose = costNote(run) ?? 'as the agent CLI reported it';
  const cost =
    run.costUsd === undefined ? '' : ` · total cost $${run.costUsd.toFixed(2)}${judgeCostText(results.judge)} (${inline(whose)})`;
  lines.push(
    '',
    `**${verdictCounts(results.verdicts)}** · exit code ${results.exitCode} · ${plural(manifest.trials.finished, 'trial')} run${cost}`,
  );
  const cache = cacheText({ ...run, trials: results.outcomes.length });
  if (cache) lines.push('', inline(cache));
  const settled = settledText(results.settled, results.outcomes.length);
  if (settled) lines.push('', inline(settled));
  return lines;
}

function verdictTable({ results }: ReportInput, skillRow: Map<string, CaseArmSummary>): string[] {
  const pct = Math.round(results.summary.confidence * 100);
  const rows = results.verdicts.map((v) => {
    const s = skillRow.get(v.caseId);
    return [
      inline(v.caseId),
      inline(s ? expectLabel(s) : ''),
      VERDICT_MARK[v.verdict] + untrustedJudgeMark(v),
      inline(trialsUsed(v)),
      inline(verdictRate(v, s)),
    ];
  });
  const lines = table(['case', 'expect', 'verdict', 'trials', `rate [${pct}% CI]`], rows, ['l', 'l', 'l', 'r', 'l']);
  const notes = [...rateNotes(results.verdicts), ...passNotes(results.verdicts, skillRow), ...untrustedJudgeNotes(results.verdicts)];
  for (const note of notes) lines.push('', inline(note));
  return lines;
}

/** What the terminal's case block says, folded away: the facts, what to change, and a trial that shows it. */
function caseDetails(s: CaseArmSummary, v: CaseVerdict, runDir: string, fixes: RefusalFixes, simulated: boolean): string {
  const fix = advice(s, v, fixes, simulated);
  const design = designText(v);
  const items = [
    ...caseFacts(s).map((f) => (f.alarm ? `**${prose(f.text)}**` : prose(f.text))),
    ...(design ? [inline(`design: ${design}`)] : []),
    `→ ${prose(fix.text)}`,
    ...(fix.example !== undefined
      ? [`example trial: ${code(join(runDir, transcriptPath({ caseId: s.caseId, arm: s.arm, n: fix.example })))}`]
      : []),
  ];
  const summary = `<b>${html(v.caseId)}</b> · ${VERDICT_MARK[v.verdict]}${untrustedJudgeMark(v)} · expects ${html(expectLabel(s))} · ${htmlProse(v.reason)}`;
  return [`<details><summary>${summary}</summary>`, '', ...items.map((i) => `- ${i}`), '', '</details>'].join('\n');
}

/** What the run cost, folded away: per verdict and per case, when the agent CLI reported costs. */
function costDetails({ results }: ReportInput): string[] {
  const cost = costBreakdown(results);
  if (cost.total.costUsd === undefined) return [];
  const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const numbers = (l: CostLine) => [String(l.trials), usd(l.costUsd), secs(l.wallMs)];
  const note = costNote(results.run);
  const simulated = note ? ` (${html(note)})` : '';
  const byCase = cost.byCase.map((k) => [inline(k.caseId), k.verdict ?? '—', ...numbers(k)]);
  return [
    `<details><summary>Cost: ${usd(cost.total.costUsd)} for ${plural(cost.total.trials, 'trial')}${judgeCostText(results.judge)}, ` +
      `${secs(cost.total.wallMs)} of trial time${simulated}` +
      '</summary>',
    '',
    ...table(
      ['verdict', 'trials', 'cost', 'trial time'],
      cost.byVerdict.map((v) => [v.verdict, ...numbers(v)]),
      ['l', 'r', 'r', 'r'],
    ),
    '',
    ...table(['case', 'verdict', 'trials', 'cost', 'trial time'], byCase, ['l', 'l', 'r', 'r', 'r']),
    '',
    '</details>',
  ];
}

/** What a trial spends per arm: a "worth its tokens" line per skill in view, the per-case table folded away. */
function perArmBlock({ results }: ReportInput): string[] {
  const costs = results.armCosts;
  if (!hasPerArm(costs)) return [];
  const { title, lines, header } = perArmView(costs);
  return [
    `#### Per arm · ${title}`,
    '',
    ...lines.map((line) => `- ${inline(line)}`),
    '',
    '<details><summary>Per case and arm</summary>',
    '',
    ...table(
      header,
      perArmRows(costs).map((row) => row.map(inline)),
      header.map((_, i) => (i < 1 ? 'l' : 'r')),
    ),
    '',
    inline(PER_ARM_NOTE),
    '',
    '</details>',
  ];
}

/** The model judge: who judged, whether it earned trust (each miss named), and how often its samples split per case. */
function judgeBlock({ results, manifest }: ReportInput): string[] {
  const j = results.judge;
  if (!j) return [];
  const gate = judgeGates(manifest);
  const pct = Math.round(results.summary.confidence * 100);
  const rows = j.stability.map((s) => [inline(s.caseId), inline(disagreementText(s)), inline(unstableText(s, j, gate) ?? 'stable')]);
  return [
    `#### Judge · ${inline(judgeWhoText(j))} · ${inline(judgeRequestsText(j))}`,
    '',
    j.calibrated ? `✅ ${inline(calibrationText(j, gate))}` : `> ⚠️ ${inline(calibrationText(j, gate))}`,
    ...(j.calibration.missed.length ? ['', ...j.calibration.missed.map((m) => `- ${inline(calibrationMissText(m))}`)] : []),
    ...(rows.length ? ['', ...table(['case', `disagreement [${pct}% CI]`, 'stability'], rows, ['l', 'l', 'l'])] : []),
    '',
    inline(stabilityNote(j)),
  ];
}

/** The cases with follow-ups: the share of usable trials whose skill had fired by each user turn, with joint intervals. */
function firingTurnBlock({ results }: ReportInput): string[] {
  const t = firingTurnTable(results.summary.cases.filter((r) => r.arm === 'skill'));
  if (!t) return [];
  return [
    '#### Firing turn · share of usable trials whose skill had fired by each user turn',
    '',
    ...table(
      t.head,
      t.body.map(([id, ...cells]) => [inline(id!), ...cells]),
      ['l', ...t.head.slice(1).map(() => 'r' as const)],
    ),
    '',
    inline(FIRING_TURN_NOTE),
  ];
}

function render(input: ReportInput): string {
  const { results, runDir } = input;
  const skillRow = new Map(results.summary.cases.filter((r) => r.arm === 'skill').map((s) => [s.caseId, s]));
  const explained = results.verdicts.filter((v) => skillRow.has(v.caseId) && needsExplaining(v, skillRow.get(v.caseId)));
  return fit([
    header(input),
    verdictTable(input, skillRow),
    ...explained.map((v) => [caseDetails(skillRow.get(v.caseId)!, v, runDir, input.agentNotes.refusalFixes, results.run.simulated)]),
    ...[firingTurnBlock(input), judgeBlock(input), perArmBlock(input), costDetails(input)].filter((block) => block.length),
  ]);
}

function runRow(label: string, r: ComparedRun): string[] {
  return [
    label,
    inline(r.runId),
    inline(`${r.agent.id} ${r.agent.cliVersion ?? '?'}`),
    inline(r.model.reported ?? r.model.requested) + (r.simulated ? ' (**SIMULATED**)' : ''),
    r.decisionMode,
    String(r.trials),
    r.costUsd === undefined ? '—' : `$${r.costUsd.toFixed(2)}`,
  ];
}

function comparisonHeader(c: Comparison): string[][] {
  const counts = kindCounts(
    CHANGES,
    c.cases.map((x) => x.change),
  );
  const across = [c.crossAgent && 'different agents', c.crossModel && 'different models'].filter(Boolean).join(' and ');
  return [
    [
      `### skillprobe compare · ${inline(c.base.runId)} → ${inline(c.candidate.runId)} · suite ${c.suite.change} · ${counts || 'no cases in common'} · exit code ${c.exitCode}`,
      ...(across ? ['', `> ⚠️ **${across}**: the comparison is across them, so read the drift below with the changes.`] : []),
      ...(c.base.simulated || c.candidate.simulated ? ['', `> ⚠️ **SIMULATED** · ${inline(SIMULATED_NOTE)}`] : []),
    ],
    table(
      ['run', 'id', 'agent', 'model', 'decision', 'trials', 'cost'],
      [runRow('base', c.base), runRow('candidate', c.candidate)],
      ['l', 'l', 'l', 'l', 'l', 'r', 'r'],
    ),
  ];
}

function suiteSection(c: Comparison): string[] {
  return [
    `#### Suite · ${CHANGE_MARK[c.suite.change]}`,
    '',
    prose(c.suite.reason),
    '',
    ...table(
      ['rate', 'change [CI]', 'over'],
      suiteRateRows(c.suite).map((row) => row.map(inline)),
      ['l', 'l', 'r'],
    ),
    '',
    inline(movedText(c.suite)),
    '',
    inline(SUITE_METHOD),
  ];
}

function changeTables(c: Comparison): string[][] {
  const rows = c.cases.map((x) => [
    inline(x.caseId),
    x.arm,
    inline(rateText(x.base)),
    inline(rateText(x.candidate)),
    inline(signedDifference(x.difference)),
    pValueText(x.pAdjusted),
    CHANGE_MARK[x.change] + (x.trialsToDecide === undefined ? '' : ` (≈${x.trialsToDecide} trials per run decide)`),
    METHOD_NAME[x.method],
  ]);
  const why = c.cases
    .filter((x) => x.change !== 'UNCHANGED')
    .map((x) => `- **${inline(x.caseId)} [${x.arm}]** ${x.change}: ${prose(x.reason)}`);
  const cases = [
    ...table(['case', 'arm', 'base rate', 'candidate rate', 'difference [CI]', 'p adj.', 'change', 'test'], rows, [
      'l',
      'l',
      'l',
      'l',
      'l',
      'r',
      'l',
      'l',
    ]),
    '',
    inline(`p adj.: Benjamini–Hochberg across ${c.cases.length} comparisons at α ${c.alpha}; ${unchangedLegend(c)}`),
    ...(why.length ? ['', ...why] : []),
  ];
  const routing = c.routing.length
    ? [
        '#### Routing changes · what fired, skill arm',
        '',
        ...table(
          ['case', 'expect', 'fired', 'base', 'candidate', 'difference [CI]', 'p adj.'],
          c.routing.map((r) => [
            inline(r.caseId),
            inline(r.expect),
            inline(r.column),
            inline(rateText(r.base)),
            inline(rateText(r.candidate)),
            inline(signedDifference(r.difference)),
            pValueText(r.pAdjusted),
          ]),
          ['l', 'l', 'l', 'l', 'l', 'l', 'r'],
        ),
      ]
    : [];
  return [cases, ...(routing.length ? [routing] : [])];
}

function driftSection(c: Comparison): string[] {
  const changed = c.drift.skills.filter((s) => s.state !== 'same');
  const hashes = (s: (typeof changed)[number]) => (s.base || s.candidate ? ` (${code(s.base ?? '—')} → ${code(s.candidate ?? '—')})` : '');
  return [
    "#### Drift · what differs besides the model's behaviour",
    '',
    ...table(
      ['fact', 'base', 'candidate'],
      c.drift.facts.map((f) => [inline(f.name), inline(f.base), f.differs ? `**${inline(f.candidate)}**` : '=']),
      ['l', 'l', 'l'],
    ),
    '',
    changed.length
      ? `Skills changed: ${changed.map((s) => `${inline(s.name)} ${s.state}${hashes(s)}`).join(', ')}`
      : 'Skills: all the same.',
    ...(c.onlyIn.base.length ? ['', `Only in base (not compared): ${c.onlyIn.base.map(inline).join(', ')}`] : []),
    ...(c.onlyIn.candidate.length ? ['', `Only in candidate (not compared): ${c.onlyIn.candidate.map(inline).join(', ')}`] : []),
  ];
}

function renderComparison(c: Comparison): string {
  return fit([...comparisonHeader(c), suiteSection(c), ...changeTables(c), driftSection(c)]);
}

function agentsHeader({ runs, matrix }: AgentsReportInput): string[] {
  const agents = matrix.agents.map(
    (a, i) => `${inline(a.id)} ${inline(a.cliVersion ?? '?')} (${inline(a.model)}, exit ${runs[i]!.results.exitCode})`,
  );
  const lines = [`### skillprobe run of ${plural(agents.length, 'agent')}: ${agents.join(' · ')}`];
  const simulated = runs.find((r) => r.results.run.simulator)?.results.run.simulator;
  if (simulated) lines.push('', `> ⚠️ **SIMULATED** · ${inline(simulatorText(simulated))} ${inline(SIMULATED_NOTE)}`);
  const rows = matrix.rows.map((r) => [
    `${r.divergent ? '◆ ' : ''}${inline(r.caseId)}`,
    inline(r.expect),
    ...r.cells.map((c) => inline(agentCellText(c, r.negative))),
  ]);
  lines.push(
    '',
    ...table(['case', 'expect', ...matrix.agents.map((a) => inline(a.id))], rows, ['l', 'l', ...matrix.agents.map(() => 'l' as const)]),
    '',
    inline(AGENT_MATRIX_NOTE),
  );
  return lines;
}

function renderAgents(input: AgentsReportInput): string {
  const missing = input.missing.map((m) => `> ⚠️ **missing** · ${inline(missingAgentText(m, input.runDir))}`);
  return fit([agentsHeader(input), ...(missing.length ? [['', ...missing]] : []), ...input.runs.map((r) => ['', render(r).trimEnd()])]);
}

/** GitHub-flavoured markdown for a job's step summary or a pull-request comment. */
export const markdownReporter: Reporter = {
  name: 'markdown',
  description: 'GitHub-flavoured markdown for a step summary or a pull-request comment',
  render,
  renderComparison,
  renderAgents,
  renderTune: tuneMarkdown,
  renderMutate: mutateMarkdown,
  renderRejudge: rejudgeMarkdown,
};
