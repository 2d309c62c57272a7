import { mutateTerminal } from './mutate/text.js';
import { tuneTerminal } from './tune/text.js';
import { rejudgeTerminal } from './rejudge.js';
import { contextsTerminal } from './contexts.js';
import pc from 'picocolors';
import { advice } from './advice.js';
import { comparisonText, contextComparisonsText } from './compare-terminal.js';
import { costBreakdown } from './cost.js';
import { hasPerArm, PER_ARM_NOTE, perArmRows, perArmView } from './arm-cost.js';
import { fmt, interval, paragraph, plural, REPORT_WIDTH, short, table, usd, visibleWidth, type Wrap } from './format.js';
import type { AgentsReportInput, ReportInput, Reporter } from './reporter.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { NONE, NOTHING_TO_SCORE, transcriptPath, type ArmCostMetric, type CaseArmSummary, type CaseVerdict } from '../run/schema.js';
import { expectLabel, routeRight } from '../run/expectation.js';
import {
  ADJUSTED_MARK,
  AGENT_MATRIX_NOTE,
  missingAgentText,
  agentCellText,
  budgetStops,
  calibrationMissText,
  calibrationText,
  caseFacts,
  disagreementText,
  judgeCostText,
  judgeGates,
  judgeRequestsText,
  judgeWhoText,
  designText,
  modelText,
  needsBlock,
  noEvidence,
  passNotes,
  rateNotes,
  signedDifference,
  costNote,
  cacheText,
  settledText,
  neighboursNote,
  listingCutsFamily,
  SIMULATED_NOTE,
  simulatorText,
  skillsEditedNote,
  stabilityNote,
  trialsUsed,
  unstableText,
  untrustedJudgeMark,
  untrustedJudgeNotes,
  verdictCounts,
  verdictRate,
  FIRING_TURN_NOTE,
  firingTurnTable,
} from './wording.js';

type Colors = ReturnType<typeof pc.createColors>;
type Results = ReportInput['results'];

const fit = (rows: string[][], align: ('l' | 'r')[], wrap: Wrap[] = ['id']) => table(rows, align, { maxWidth: REPORT_WIDTH, wrap });

/** The k shown in the terminal; results.json keeps every k ≤ n. */
const SHOWN_K = [1, 3, 5, 10];

const VERDICT_COLOUR = { PASS: 'green', FAIL: 'red', INCONCLUSIVE: 'yellow', ERROR: 'magenta' } as const;

function header({ manifest, results }: ReportInput, c: Colors): string[] {
  const run = results.run;
  const lines = [
    paragraph(
      `${c.bold(`skillprobe run ${results.runId}`)} · ${run.agent.id} ${run.agent.cliVersion ?? '?'} · ${modelText(run)} · ${run.status}`,
    ),
  ];
  if (run.simulator) {
    lines.push(paragraph(c.magenta(`${c.bold('SIMULATED')} · ${simulatorText(run.simulator)}`)), paragraph(c.magenta(SIMULATED_NOTE)));
  }
  if (manifest.shard) {
    const { index, total, suiteCases } = manifest.shard;
    lines.push(
      paragraph(
        c.cyan(
          `shard ${index}/${total}: ${manifest.cases.defs.length} of the suite's ${suiteCases.length} cases; \`skillprobe merge\` joins the shards into one run`,
        ),
      ),
    );
  }
  if (manifest.skillsChangedDuringRun?.length)
    lines.push(paragraph(c.yellow(skillsEditedNote(manifest.skillsChangedDuringRun.map((e) => e.dir)))));
  const neighbours = neighboursNote(manifest);
  if (neighbours) lines.push(paragraph(listingCutsFamily(manifest) ? c.yellow(neighbours) : c.cyan(neighbours)));
  if (manifest.mergedFrom)
    lines.push(
      paragraph(
        c.dim(
          `merged from ${plural(manifest.mergedFrom.length, 'shard')}: ${manifest.mergedFrom.map((m) => `${m.shard} ${m.runId}`).join(', ')}`,
        ),
      ),
    );
  const exact = results.verdicts.some((v) => v.estimate) ? ` (exact under the sequential design where marked ${ADJUSTED_MARK})` : '';
  lines.push(
    paragraph(
      c.dim(`${Math.round(results.summary.confidence * 100)}% Wilson intervals${exact} · ${plural(manifest.trials.finished, 'trial')} run`),
    ),
  );
  return lines;
}

function verdictSection(results: Results, skillRow: Map<string, CaseArmSummary>, c: Colors): string[] {
  const pct = Math.round(results.summary.confidence * 100);
  const counts = verdictCounts(results.verdicts);
  const marked = results.verdicts.filter(
    (v) => needsBlock(v, skillRow.get(v.caseId)) && v.verdict !== 'FAIL' && v.verdict !== 'INCONCLUSIVE',
  );
  const rows = results.verdicts.map((v) => {
    const s = skillRow.get(v.caseId);
    const mark = marked.includes(v) ? ' ↓' : '';
    return [
      v.caseId,
      s ? expectLabel(s) : '',
      c[VERDICT_COLOUR[v.verdict]](v.verdict) + mark + c.yellow(untrustedJudgeMark(v)),
      fmt(v.params.threshold),
      trialsUsed(v),
      verdictRate(v, s),
    ];
  });
  const lines = [
    paragraph(c.bold(`VERDICTS · ${decisionMode(results.run.decision.mode).label} · ${counts} · exit code ${results.exitCode}`)),
    fit(
      [['case', 'expect', 'verdict', 'p0', 'trials', `rate [${pct}% CI]`].map((h) => c.bold(h)), ...rows],
      ['l', 'l', 'l', 'r', 'r', 'l'],
      // A verdict with a note on its judge wraps before any id does.
      ['id', 'id', 'word'],
    ),
  ];
  const notes = [...rateNotes(results.verdicts), ...passNotes(results.verdicts, skillRow), ...untrustedJudgeNotes(results.verdicts)];
  if (marked.length) notes.push('↓ see its block below: the agent refused some skill calls');
  lines.push(...notes.map((n) => paragraph(c.dim(n))));
  return lines;
}

/** A case's block: its verdict and why, one fact a line, and (unless `shared`, said once for several cases) what to change. */
function caseBlock(s: CaseArmSummary, v: CaseVerdict, c: Colors, fix: ReturnType<typeof advice>, shared: boolean): string[] {
  const facts = caseFacts(s).map((f) => (f.alarm ? c.red(f.text) : f.text));
  const design = designText(v);
  if (design) facts.push(`design: ${design}`);
  if (fix.example !== undefined) facts.push(`example: ${transcriptPath({ caseId: s.caseId, arm: s.arm, n: fix.example })}`);
  return [
    paragraph(
      `${c.bold(s.caseId)} · ${c[VERDICT_COLOUR[v.verdict]](v.verdict)}${untrustedJudgeMark(v)} · expects ${expectLabel(s)} · ${v.reason}`,
    ),
    ...facts.map((t) => paragraph(t, '  ')),
    ...(shared ? [] : [paragraph(c.cyan(`→ ${fix.text}`), '  ')]),
  ];
}

/**
 * The WHAT TO CHANGE blocks; advice that several cases share is said once, after them, naming the cases, rather than
 * repeated in each block.
 */
function changeSection(blocks: CaseVerdict[], skillRow: Map<string, CaseArmSummary>, input: ReportInput, c: Colors): string[] {
  const fixes = blocks.map((v) => advice(skillRow.get(v.caseId)!, v, input.agentNotes.refusalFixes, input.results.run.simulated));
  const casesOf = new Map<string, string[]>();
  blocks.forEach((v, i) => casesOf.set(fixes[i]!.text, [...(casesOf.get(fixes[i]!.text) ?? []), v.caseId]));
  const shared = [...casesOf].filter(([, ids]) => ids.length > 1);
  return [
    paragraph(c.bold('WHAT TO CHANGE · one block per case that did not pass cleanly · example paths are under the run folder')),
    ...blocks.flatMap((v, i) => ['', ...caseBlock(skillRow.get(v.caseId)!, v, c, fixes[i]!, casesOf.get(fixes[i]!.text)!.length > 1)]),
    ...shared.flatMap(([text, ids]) => ['', paragraph(c.cyan(`→ ${ids.join(', ')}: ${text}`))]),
  ];
}

/**
 * The CASES table; a run with judged cases gets a column of the trials the judge said no to, a run with neighbours one
 * of the trials a neighbour took.
 */
function caseSection(rows: CaseArmSummary[], judged: boolean, c: Colors, neighbours = false): string[] {
  const na = c.dim('·');
  // Only a field run has trials that went around the skill: a lab run's table is as it always was.
  const around = rows.some((s) => s.failures.wentAround);
  const body = rows.map((s) => {
    const f = s.failures;
    const positive = s.expect !== NONE;
    return [
      s.caseId,
      String(s.rate.n),
      String(s.rate.successes),
      positive ? String(f.didNotFire.trials) : na,
      ...(around ? [positive ? String(f.wentAround?.trials ?? 0) : na] : []),
      positive ? String(f.planWrong.trials) : na,
      ...(judged ? [String(f.judgeNo.trials)] : []),
      positive ? String(f.sibling.trials) : na,
      ...(neighbours ? [positive ? String(f.neighbour.trials) : na] : []),
      positive ? na : String(f.falseTrigger.trials),
      String(f.refused.trials),
      String(budgetStops(s).total),
      String(s.excluded),
    ];
  });
  const readOnly = rows.filter((s) => s.fired.readOnly).map((s) => `${s.caseId} ${s.fired.readOnly}`);
  const head = [
    'case',
    'n',
    'pass',
    'did not\nfire',
    ...(around ? ['went\naround'] : []),
    'plan\nwrong',
    ...(judged ? ['judge\nno'] : []),
    'sibling\nfired',
    ...(neighbours ? ['neighbour\nfired'] : []),
    'false\ntrigger',
    'refused',
    'budget\nstops',
    'left\nout',
  ];
  return [
    paragraph(c.bold('CASES · skill arm (the family installed)')),
    fit([head.map((h) => c.bold(h)), ...body], ['l', ...head.slice(1).map(() => 'r' as const)]),
    paragraph(
      c.dim(
        'did not fire: no family skill fired · ' +
          (around ? 'went around: the model acted by itself (a command, a write, a fetch, a sub-agent) before any skill fired · ' : '') +
          'plan wrong: the expected skill fired, a plan check failed · ' +
          (judged ? 'judge no: the judge said no to a judged item (scored only when it is calibrated) · ' : '') +
          'sibling fired: another ' +
          'family skill fired (instead or beside) · ' +
          (neighbours ? "neighbour fired: one of the user's other skills took the trial · " : '') +
          'false trigger: a family skill fired on a negative case (for `not X`: X fired) · refused: the agent ' +
          'refused a skill call · budget stops: timeout, max turns, max budget · left out: no evidence, or not scored (below)',
      ),
    ),
    ...(readOnly.length ? [paragraph(`read-only (fired by reading SKILL.md, not by the skill tool): ${readOnly.join(', ')}`)] : []),
  ];
}

function passKSection(rows: CaseArmSummary[], c: Colors): string[] {
  const scored = rows.filter((s) => s.rate.n > 0);
  const ks = SHOWN_K.filter((k) => scored.some((s) => s.rate.n >= k));
  if (ks.length === 0) return [];
  const body = scored.map((s) => [
    s.caseId,
    String(s.rate.n),
    ...ks.map((k) => {
      const p = s.passK.find((x) => x.k === k);
      if (!p) return c.dim('—');
      return k === 1 ? short(p.passAtK) : `${short(p.passAtK)} / ${short(p.passHatK)}`;
    }),
  ]);
  return [
    paragraph(c.bold(`pass@k / pass^k · skill arm · k = ${ks.join(', ')}`)),
    fit([['case', 'n', ...ks.map((k) => `k=${k}`)].map((h) => c.bold(h)), ...body], ['l', 'r', ...ks.map(() => 'r' as const)]),
    paragraph(
      c.dim('each cell: pass@k (at least one of k passes) / pass^k (all k pass); k=1 is the pass rate · every k ≤ n is in results.json'),
    ),
  ];
}

/** The cases with follow-ups: the share of usable trials whose skill had fired by each user turn, with joint intervals. */
function firingTurnSection(rows: CaseArmSummary[], c: Colors): string[] {
  const t = firingTurnTable(rows);
  if (!t) return [];
  return [
    paragraph(c.bold('FIRING TURN · skill arm · share of usable trials whose skill had fired by each user turn')),
    fit([t.head.map((h) => c.bold(h)), ...t.body], ['l', ...t.head.slice(1).map(() => 'r' as const)]),
    paragraph(c.dim(FIRING_TURN_NOTE)),
  ];
}

/** Columns in groups that each fit the width beside the row labels (many siblings make a wide matrix). */
function columnGroups(labels: string[], columns: string[][]): number[][] {
  const labelWidth = Math.max(...labels.map(visibleWidth));
  const groups: number[][] = [];
  let used = labelWidth;
  columns.forEach((col, i) => {
    const w = 2 + Math.max(...col.map(visibleWidth));
    if (groups.length === 0 || used + w > REPORT_WIDTH) {
      groups.push([]);
      used = labelWidth;
    }
    groups.at(-1)!.push(i);
    used += w;
  });
  return groups;
}

function confusionSection(results: Results, c: Colors): string[] {
  const m = results.summary.confusion;
  const pct = Math.round(results.summary.confidence * 100);
  const rows = m.rows.filter((r) => (m.cells[r]?.[m.columns[0]!]?.n ?? 0) > 0);
  const columns = m.columns.filter((col) => rows.some((r) => m.cells[r]![col]!.successes > 0));
  // Nothing but silence says nothing the aggregates do not.
  if (rows.length === 0 || columns.every((col) => col === NONE)) return [];
  const cell = (row: string, col: string) => {
    const x = m.cells[row]![col]!;
    if (x.successes === 0) return c.dim('0');
    const text = `${x.successes}/${x.n} ${short(x.p)}\n[${short(x.lo)}, ${short(x.hi)}]`;
    const right = routeRight(row, col, m.forbids[row]);
    return right === undefined ? text : right ? c.green(text) : c.red(text);
  };
  const grid = columns.map((col) => [c.bold(col), ...rows.map((r) => cell(r, col))]);
  const labels = [c.bold('expected \\ fired'), ...rows];
  const out = [paragraph(c.bold(`CONFUSION · skill arm · rows: expected, columns: what fired (count/n, share, ${pct}% CI)`))];
  for (const group of columnGroups(labels, grid)) {
    out.push(
      fit(
        labels.map((label, r) => [label, ...group.map((i) => grid[i]![r]!)]),
        ['l', ...group.map(() => 'r' as const)],
      ),
    );
  }
  return out;
}

function ablationSection(results: Results, c: Colors): string[] {
  const s = results.summary;
  if (s.ablation.length === 0) return [];
  const pct = Math.round(s.confidence * 100);
  const armRow = new Map(s.cases.filter((r) => r.arm === 'ablation').map((r) => [r.caseId, r]));
  const body = s.ablation.map((a) => {
    const r = armRow.get(a.caseId);
    return [
      a.caseId,
      String(a.pairs),
      fmt(a.skillRate.p),
      fmt(a.ablationRate.p),
      signedDifference(a.difference),
      a.pValue < 0.05 ? c.bold(fmt(a.pValue, 3)) : fmt(a.pValue, 3),
      r ? String(budgetStops(r).total) : '0',
      r ? String(noEvidence(r).total) : '0',
    ];
  });
  return [
    paragraph(
      c.bold('ABLATION · plan checks with the family vs without it · pairs: i-th skill trial, i-th ablation trial · McNemar exact test'),
    ),
    fit(
      [['case', 'pairs', 'skill', 'ablation', `difference [${pct}% CI]`, 'p', 'budget\nstops', 'left\nout'].map((h) => c.bold(h)), ...body],
      ['l', 'r', 'r', 'r', 'l', 'r', 'r', 'r'],
    ),
  ];
}

function aggregateSection(results: Results, c: Colors): string[] {
  const a = results.summary.aggregates;
  const rows = (
    [
      ['trigger recall (positives)', a.recall],
      ['false-trigger rate (negatives)', a.falseTriggerRate],
      ['precision', a.precision],
    ] as const
  )
    .filter(([, r]) => r.n > 0)
    .map(([name, r]) => [name, `${fmt(r.p)} ${interval(r)}`, `${r.successes}/${r.n}`]);
  if (rows.length === 0) return [];
  if (Number.isFinite(a.f1)) rows.push(['F1', fmt(a.f1), '']);
  return [paragraph(c.bold('AGGREGATES · skill arm')), fit(rows, ['l', 'l', 'r'], ['word'])];
}

function leftOutSection(results: Results, c: Colors): string[] {
  const left = results.outcomes.filter((o) => o.passed === null && o.excludedBecause && o.excludedBecause !== NOTHING_TO_SCORE);
  if (left.length === 0) return [];
  const out = [c.yellow(paragraph(`${plural(left.length, 'trial')} left out of n (never scored as "did not trigger"):`))];
  // The reason, not the status: a trial the judge gave no verdict on ran as `ok`.
  for (const o of left.slice(0, 10))
    out.push(
      paragraph(`${o.caseId}/${o.arm}#${o.n}: ${o.excludedBecause}${o.statusDetail ? ` — ${o.statusDetail.slice(0, 160)}` : ''}`, '  '),
    );
  if (left.length > 10) out.push(`  … and ${left.length - 10} more (see results.json)`);
  return out;
}

/** The trials stopped once their outcome was settled, and what that saved. */
function settledSection(results: Results, c: Colors): string[] {
  const text = settledText(results.settled, results.outcomes.length);
  return text ? [paragraph(c.bold(text))] : [];
}

/** Money and trial time, when the CLI reported costs: in all, per verdict, and the costliest cases with their verdicts. */
function costSection(results: Results, c: Colors): string[] {
  const cost = costBreakdown(results);
  const cache = cacheText({ ...results.run, trials: cost.total.trials });
  const cacheLine = cache ? [paragraph(c.bold(cache))] : [];
  if (cost.total.costUsd === undefined) return cacheLine;
  const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const byVerdict = cost.byVerdict.map((v) => [v.verdict, String(v.trials), usd(v.costUsd), secs(v.wallMs)]);
  const costliest = [...cost.byCase].sort((a, b) => (b.costUsd ?? 0) - (a.costUsd ?? 0)).slice(0, 5);
  const note = costNote(results.run);
  return [
    paragraph(
      c.bold(
        `COST · ${usd(cost.total.costUsd)} reported by the CLI for ${plural(cost.total.trials, 'trial')}${judgeCostText(results.judge)} · ` +
          `${secs(cost.total.wallMs)} of trial time`,
      ),
    ),
    ...cacheLine,
    ...(note ? [paragraph(c.magenta(note))] : []),
    fit([['verdict', 'trials', 'cost', 'trial time'].map((h) => c.bold(h)), ...byVerdict], ['l', 'r', 'r', 'r']),
    fit(
      [
        ['costliest cases', 'verdict', 'trials', 'cost', 'trial time'].map((h) => c.bold(h)),
        ...costliest.map((k) => [k.caseId, k.verdict ?? '—', String(k.trials), usd(k.costUsd), secs(k.wallMs)]),
      ],
      ['l', 'l', 'r', 'r', 'r'],
    ),
  ];
}

/** The per-arm columns whose interval a terminal has room for; results.json and the page have every one. */
const TERMINAL_INTERVALS: ReadonlySet<ArmCostMetric> = new Set(['input', 'output', 'wallMs']);

/** What a trial spends per case and arm, skill − ablation with intervals, and one "worth its tokens" line per skill. */
function perArmSection(results: Results, c: Colors): string[] {
  const costs = results.armCosts;
  if (!hasPerArm(costs)) return [];
  const { title, lines, header } = perArmView(costs);
  return [
    paragraph(c.bold(`PER ARM · ${title}`)),
    ...lines.map((line) => paragraph(line, '  ')),
    fit(
      [header.map((h) => c.bold(h)), ...perArmRows(costs, TERMINAL_INTERVALS, '\n')],
      header.map((_, i) => (i < 1 ? 'l' : 'r')),
      ['id'],
    ),
    paragraph(c.dim(PER_ARM_NOTE)),
  ];
}

/** The model judge: who judged, whether it earned trust, and how often its samples split per judged case. */
function judgeSection({ results, manifest }: ReportInput, c: Colors): string[] {
  const j = results.judge;
  if (!j) return [];
  const gate = judgeGates(manifest);
  const rows = j.stability.map((s) => {
    const unstable = unstableText(s, j, gate);
    return [s.caseId, disagreementText(s), unstable ? c.yellow(unstable) : 'stable'];
  });
  const pct = Math.round(results.summary.confidence * 100);
  return [
    paragraph(c.bold(`JUDGE · ${judgeWhoText(j)} · ${judgeRequestsText(j)}`)),
    paragraph(j.calibrated ? c.green(calibrationText(j, gate)) : c.red(calibrationText(j, gate))),
    ...j.calibration.missed.map((m) => paragraph(calibrationMissText(m), '  ')),
    ...(rows.length
      ? [
          fit(
            [['case', `disagreement [${pct}% CI]`, 'stability'].map((h) => c.bold(h)), ...rows],
            ['l', 'l', 'l'],
            ['id', undefined, 'word'],
          ),
        ]
      : []),
    paragraph(c.dim(stabilityNote(j))),
  ];
}

/** The agents × cases matrix: each agent's verdict and trigger rate per case, disagreements marked. */
function agentMatrixSection({ matrix }: AgentsReportInput, c: Colors): string[] {
  const head = ['case', 'expect', ...matrix.agents.map((a) => `${a.id} ${a.cliVersion ?? '?'}`)].map((h) => c.bold(h));
  const rows = matrix.rows.map((r) => [
    r.divergent ? c.yellow(`◆ ${r.caseId}`) : r.caseId,
    r.expect,
    ...r.cells.map((cell) => (cell ? c[VERDICT_COLOUR[cell.verdict]](agentCellText(cell, r.negative)) : '—')),
  ]);
  return [
    paragraph(
      c.bold(
        `AGENTS × CASES · ${plural(matrix.agents.length, 'agent')} · ${plural(matrix.rows.filter((r) => r.divergent).length, 'case')} where they disagree`,
      ),
    ),
    fit([head, ...rows], ['l', 'l', ...matrix.agents.map(() => 'l' as const)], ['id', 'id', ...matrix.agents.map(() => 'word' as const)]),
    paragraph(c.dim(AGENT_MATRIX_NOTE)),
  ];
}

export function terminalReporter(colour: boolean): Reporter {
  const c = pc.createColors(colour);
  const reporter: Reporter = {
    name: 'terminal',
    description: 'the report for people (default; colour on a terminal)',
    renderComparison: (comparison) => comparisonText(comparison, c),
    renderContextComparisons: (input) => contextComparisonsText(input, c),
    renderTune: tuneTerminal,
    renderMutate: mutateTerminal,
    renderRejudge: rejudgeTerminal,
    renderContexts: (input) => contextsTerminal(input, c, (r) => reporter.render(r)),
    renderAgents(input: AgentsReportInput): string {
      const each = input.runs.map(
        (r) => `${c.bold(`═══ agent ${r.results.run.agent.id} · run folder ${r.runDir}`)}\n\n${reporter.render(r)}`,
      );
      const missing = input.missing.length
        ? [
            paragraph(c.red(`MISSING · ${plural(input.missing.length, 'agent')} of this run with nothing to report`)),
            ...input.missing.map((m) => paragraph(missingAgentText(m, input.runDir))),
          ]
        : [];
      return [...each, agentMatrixSection(input, c).join('\n'), ...(missing.length ? [missing.join('\n')] : [])].join('\n') + '\n';
    },
    render(input: ReportInput): string {
      const { results } = input;
      const skillRows = results.summary.cases.filter((r) => r.arm === 'skill');
      const skillRow = new Map(skillRows.map((s) => [s.caseId, s]));
      const blocks = results.verdicts.filter((v) => needsBlock(v, skillRow.get(v.caseId)) && skillRow.has(v.caseId));
      const sections: string[][] = [
        header(input, c),
        verdictSection(results, skillRow, c),
        blocks.length ? changeSection(blocks, skillRow, input, c) : [],
        skillRows.length
          ? caseSection(
              skillRows,
              results.judge !== undefined,
              c,
              (input.manifest.neighbours?.length ?? 0) > 0 || input.manifest.cases.defs.some((d) => d.neighbours?.length),
            )
          : [],
        judgeSection(input, c),
        passKSection(skillRows, c),
        firingTurnSection(skillRows, c),
        confusionSection(results, c),
        ablationSection(results, c),
        aggregateSection(results, c),
        costSection(results, c),
        perArmSection(results, c),
        settledSection(results, c),
        leftOutSection(results, c),
      ];
      return (
        sections
          .filter((s) => s.length)
          .map((s) => s.join('\n'))
          .join('\n\n') + '\n'
      );
    },
  };
  return reporter;
}
