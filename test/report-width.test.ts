import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { renderCaseHistory, renderHistory, summariseRun, type RunSummary } from '../src/report/runs.js';
import { agentNotes } from '../src/runner/reports.js';
import { planComparison, renderComparisonPlan } from '../src/report/plan-compare.js';
import { planSuite } from '../src/verdict/suite-plan.js';
import { renderPlan } from '../src/report/plan.js';
import { comparisonText } from '../src/report/compare-terminal.js';
import { wrapText } from '../src/report/format.js';
import type { ReportInput } from '../src/report/reporter.js';
import { terminalReporter } from '../src/report/terminal.js';
import { configSchema } from '../src/run/config-schema.js';
import type { GradableCase, TrialOutcome } from '../src/run/schema.js';
import { agentMatrix } from '../src/verdict/agent-matrix.js';
import { buildResults } from '../src/verdict/results.js';
import pc from 'picocolors';
import { CASES, COMPARISON, judgedInput, OUTCOMES, RUN_DIR } from './report-inputs.js';
import { handMadeManifest } from './run-fixtures.js';

/*
 * Every text report at 100 columns, with the long ids real suites have: skill folders of three words, and the trap
 * ids `init` scaffolds from them (`trap-<skill>-not-<sibling>`). Widths are display widths (a wide character takes
 * two columns), colour codes excluded; an id that wraps breaks only after one of its separators, never mid-word.
 */

const WIDTH = 100;
const SKILL: Record<string, string> = {
  'atl-jira': 'document-converter-pdf',
  'atl-confluence': 'document-converter-docx',
  atl: 'document-converter',
};
const ID: Record<string, string> = {
  'jira-create': 'trap-document-converter-pdf-not-document-converter-docx',
  'neg-weather': 'neg-document-converter-docx-near-miss-weather-forecast',
  'vague-sprint': 'document-converter-pdf-vague-convert-the-quarterly-report',
  'rate-limited': 'trap-document-converter-docx-not-document-converter-pdf',
};
const RUN = '20261201-093000-4f2a9c';
const OLDER = '20261130-170512-9b1d3e';
const FAMILY = Object.values(SKILL).map((dir) => ({ dir, name: dir }));
const skill = (s: string) => SKILL[s] ?? s;

const WIDE_DETAIL = 'used 创建问题 (the model wrote the verb in Chinese)';
const CASES_LONG: GradableCase[] = CASES.map((c) => ({ ...c, id: ID[c.id]!, expect: skill(c.expect) }));
/** The fixture's trials under the long names; a plan check's detail in a script two columns wide per character. */
const OUTCOMES_LONG: TrialOutcome[] = OUTCOMES.map((o) => ({
  ...o,
  caseId: ID[o.caseId]!,
  firedColumn: skill(o.firedColumn),
  firings: o.firings.map((f) => ({ ...f, skill: f.skill && skill(f.skill), requested: skill(f.requested) })),
  ...(o.plan ? { plan: { ...o.plan, checks: o.plan.checks.map((k) => (k.detail ? { ...k, detail: WIDE_DETAIL } : k)) } } : {}),
}));

function longInput(agent = { id: 'claude-code', binary: 'claude', cliVersion: '2.1.197' }): ReportInput {
  const config = configSchema.parse({ arms: ['skill', 'ablation'] });
  const over = { runId: RUN, config, family: FAMILY, agent, model: 'claude-sonnet-4-5-20260929' };
  const manifest = handMadeManifest(CASES_LONG, OUTCOMES_LONG.length, over);
  const results = buildResults(manifest, OUTCOMES_LONG, [], new Date('2026-12-01T10:00:00.000Z'));
  results.run.agent = { id: agent.id, cliVersion: agent.cliVersion };
  return { manifest, results, runDir: RUN_DIR, agentNotes: agentNotes(manifest) };
}

const plain = (text: string) => text.split('\n').map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));

function expectFits(text: string): void {
  const over = plain(text).filter((l) => stringWidth(l) > WIDTH);
  expect(over, over.join('\n')).toEqual([]);
}

/**
 * The first column of the table under `head`, line by line, down to the first blank line (notes may follow the
 * table's rows).
 */
function firstColumn(text: string, head: RegExp): string[] {
  const lines = plain(text);
  const at = lines.findIndex((l) => head.test(l));
  expect(at, `no table headed ${head}`).toBeGreaterThanOrEqual(0);
  // The first column ends where the header's second column starts.
  const width = /^\S+\s+/.exec(lines[at]!)![0].length;
  const body = lines.slice(at + 1);
  const end = body.findIndex((l) => l.trim() === '');
  // An indented line is a row's second line (what ran it, under a run id), not an id.
  return (end < 0 ? body : body.slice(0, end))
    .filter((l) => !l.startsWith(' '))
    .map((l) => l.slice(0, width).trim())
    .filter(Boolean);
}

/** The first column holds the ids in order, each whole on one line or in pieces that each end at a separator. */
function expectWholeIds(pieces: string[], ids: string[]): void {
  const rest = [...pieces];
  for (const id of ids) {
    let row = (rest.shift() ?? '').replace(/^◆ /, '');
    while (row !== id) {
      // A row goes on only after a separator of its id: never inside a word.
      expect(id.startsWith(row) && /[-_./]$/.test(row), `"${row}" is not a whole-word start of ${id}`).toBe(true);
      row += rest.shift() ?? '';
    }
  }
}

describe('wrapText: whole words, never mid-word', () => {
  const red = (t: string) => `\u001b[31m${t}\u001b[39m`;
  it.each<[string, string, number, string[]]>([
    ['prose at spaces', 'the model asked a clarifying question', 16, ['the model asked', 'a clarifying', 'question']],
    ['an id after its hyphens', ID['jira-create']!, 24, ['trap-document-converter-', 'pdf-not-document-', 'converter-docx']],
    ['a hyphenated name moves to the next line whole', 'fired claude-sonnet-4-5 twice', 20, ['fired', 'claude-sonnet-4-5', 'twice']],
    ['a nested run id at its slash', `${RUN}/${RUN}-codex`, 40, [`${RUN}/`, `${RUN}-codex`]],
    ['numbers stay whole', 'rate 0.95 [-0.03, 0.27]', 8, ['rate', '0.95', '[-0.03,', '0.27]']],
    ['colour codes take no room', red('sibling fired twice'), 13, [`${red('sibling fired').slice(0, -5)}`, `twice${'\u001b[39m'}`]],
    ['a wide character takes two columns', 'used 创建问题 then', 10, ['used', '创建问题', 'then']],
    ['a wrapped line keeps its indentation', '  passed 1 of 4 trials', 12, ['  passed 1', '  of 4', '  trials']],
    ['a word wider than the line is cut, the last resort', 'abcdefghij', 4, ['abcd', 'efgh', 'ij']],
  ])('%s', (_, text, width, lines) => {
    expect(wrapText(text, width)).toEqual(lines);
    for (const line of wrapText(text, width)) expect(stringWidth(line)).toBeLessThanOrEqual(width);
  });
});

describe('text reports at 100 columns, with long realistic ids', () => {
  const input = longInput();
  const ids = CASES_LONG.map((c) => c.id);

  it('the run report: every line fits, and the verdicts table keeps each case id whole', () => {
    const text = terminalReporter(true).render(input);
    expectFits(text);
    expectWholeIds(firstColumn(text, /^case\s+expect\s+verdict/), ids);
  });

  it.each(['uncalibrated', 'unstable'] as const)(
    'a run with a %s judge: every line fits, and the CASES and JUDGE tables keep each case id whole',
    (kind) => {
      const caseIds = { 'files-bug': ID['jira-create']!, 'plans-call': ID['vague-sprint']! };
      const text = terminalReporter(true).render(judgedInput(kind, { gate: true, caseIds }));
      expectFits(text);
      expectWholeIds(firstColumn(text, /^case\s+n\s+pass\s+did not\s+plan\s+judge/), Object.values(caseIds));
      // The judge's table lists its cases in id order.
      expectWholeIds(firstColumn(text, /^case\s+disagreement/), Object.values(caseIds).sort());
    },
  );

  it('the agents × cases matrix of three agents: every line fits, each case id whole', () => {
    const runs = [
      longInput(),
      longInput({ id: 'codex', binary: 'codex', cliVersion: '0.169.0' }),
      longInput({ id: 'gemini', binary: 'gemini', cliVersion: '0.61.0' }),
    ];
    const text = terminalReporter(false).renderAgents({
      runDir: RUN_DIR,
      runs,
      matrix: agentMatrix(runs.map((r) => r.results)),
      missing: [],
    });
    expectFits(text);
    const matrix = text.slice(text.indexOf('AGENTS × CASES'));
    expectWholeIds(firstColumn(matrix, /^case\s+expect\s+claude-code/), ids);
  });

  it('plan, sequential with a cap and priced: every line fits, each case id whole', () => {
    const config = configSchema.parse({ decision: { threshold: 0.9, delta: 0.1, minTrials: 5 } });
    // The first case capped below its design's maximum, so the plan warns about it.
    const cases = CASES_LONG.map((c, i) => ({ ...c, decision: { ...config.decision, maxTrials: i === 0 ? 40 : 200 } }));
    const text = renderPlan(planSuite(config, cases), 0.03);
    expectFits(text);
    expectWholeIds(firstColumn(text, /^case\s+p0 vs p1/), ids);
  });

  it('plan --compare: every line fits', () => {
    expectFits(renderComparisonPlan(planComparison(0.9, 0.75, 0.05, 0.8, { cases: 12, caseArms: 20, minTrials: 5 }), 0.03));
  });

  it('compare: every line fits', () => {
    const long = { ...COMPARISON, cases: COMPARISON.cases.map((x) => ({ ...x, caseId: ID[x.caseId] ?? x.caseId })) };
    expectFits(comparisonText(long, pc.createColors(true)));
  });

  const agentRun = (agent: string): RunSummary => {
    const r = longInput({ id: agent, binary: agent, cliVersion: agent === 'codex' ? '0.169.0' : '2.1.197' });
    const simulator = { profile: 'sim/skillprobe.profile.yaml', name: 'starter', seed: 7 };
    return summariseRun(`${RUN}/${RUN}-${agent}`, { ...r.manifest, simulator }, r.results);
  };
  const rows: RunSummary[] = [
    agentRun('claude-code'),
    agentRun('codex'),
    summariseRun(OLDER, longInput().manifest, undefined, `results.json is missing: \`skillprobe grade transcripts/${OLDER}\``),
  ];

  it('history: every line fits, each run id whole', () => {
    const text = renderHistory(rows);
    expectFits(text);
    expectWholeIds(
      firstColumn(text, /^run\s+verdicts/),
      rows.map((r) => r.runId),
    );
  });

  it('history --case: every line fits, each run id whole', () => {
    const text = renderCaseHistory(rows, ID['jira-create']!);
    expectFits(text);
    expectWholeIds(
      firstColumn(text, /^run\s+verdict\s/),
      rows.slice(0, 2).map((r) => r.runId),
    );
  });
});
