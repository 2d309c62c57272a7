import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ReportInput } from '../src/report/reporter.js';
import { terminalReporter } from '../src/report/terminal.js';
import { renderCaseHistory } from '../src/commands/history.js';
import { designText, verdictRate } from '../src/report/wording.js';
import type { CaseVerdict } from '../src/run/schema.js';
import { adjustedText, designedInput, designFacts, rateCellCases, reportInput, withoutEstimates } from './report-inputs.js';

const render = (input: ReportInput) => stripVTControlCharacters(terminalReporter(false).render(input));
/** Lines of the report with their wrapping undone: a paragraph wrapped at 100 columns reads as one line again. */
const unwrapped = (text: string) => text.replace(/\n(?=[a-z'(])/g, ' ');

const ADJUSTED_NOTE =
  "† adjusted for stopping early: median-unbiased estimate and exact 95% interval under the sequential design's stopping rule";
const DESCRIPTIVE_NOTE = '* descriptive only: the case stopped early by a sequential rule, which biases the interval';

describe('terminal report: the rate beside a verdict, adjusted for stopping early where the design gives it', () => {
  // Per input: each case's rate cell (`adjusted`: its verdict's adjusted rate, then †), and the notes under the table.
  const table = rateCellCases((text) => text).map(
    ([name, input, cells, mark]) => [name, input, cells, mark === 'adjusted' ? [ADJUSTED_NOTE] : [DESCRIPTIVE_NOTE]] as const,
  );

  it.each(table)('%s', (_, input, cells, notes) => {
    const text = render(input);
    const verdicts = text.split('\n\n').find((s) => s.startsWith('VERDICTS · '))!;
    const verdict = new Map(input.results.verdicts.map((v) => [v.caseId, v]));
    for (const [id, cell] of Object.entries(cells)) {
      const row = verdicts.split('\n').find((l) => l.startsWith(`${id} `))!;
      expect(row.trimEnd().endsWith(`  ${cell === 'adjusted' ? `${adjustedText(verdict.get(id)!)}†` : cell}`), row).toBe(true);
    }
    // One meaning per mark: a note is there exactly when its mark is, and the header says which intervals are exact.
    const prose = unwrapped(verdicts);
    for (const note of [ADJUSTED_NOTE, DESCRIPTIVE_NOTE]) expect(prose.includes(note), note).toBe(notes.includes(note));
    expect(unwrapped(text.split('\n\n')[0]!).includes('95% Wilson intervals (exact under the sequential design where marked †)')).toBe(
      notes.includes(ADJUSTED_NOTE),
    );
  });

  it.each([
    ['the optimal design: its maximum and exact error rates', designedInput(), true],
    ["Wald's design, rebuilt for a run from before designs were stored", reportInput(), true],
    ['no design in the results: no line', withoutEstimates(reportInput()), false],
  ] as const)("a case's block names the design that decided it: %s", (_, input, shown) => {
    const text = render(input);
    const block = text.split('\n\n').find((b) => b.startsWith('jira-create · FAIL'))!;
    const fail = input.results.verdicts.find((v) => v.caseId === 'jira-create')!;
    expect(
      unwrapped(block)
        .split('\n')
        .filter((l) => l.startsWith('  design: ')),
    ).toEqual(shown ? [`  design: ${designFacts(fail)}`] : []);
  });
});

describe('wording: a verdict rate and its design, in words every text report shares', () => {
  const base: CaseVerdict = designedInput().results.verdicts.find((v) => v.caseId === 'jira-create')!;
  const design = base.design!;

  it.each([
    [
      'the optimal design, run to its own maximum',
      { ...base, params: { ...base.params, maxTrials: 19 }, design: { ...design, maxTrials: 19, alpha: 0.0499, beta: 0.1961 } },
      'decides by 19 trials · exact α 0.050 β 0.196',
    ],
    [
      'the optimal design cut short by maxTrials',
      { ...base, params: { ...base.params, maxTrials: 12 }, design: { ...design, maxTrials: 19, alpha: 0.031, beta: 0.25 } },
      'decides by 19 trials, cut at 12 by maxTrials · exact α 0.031 β 0.250',
    ],
    [
      "Wald's test",
      { ...base, params: { ...base.params, maxTrials: 50 }, design: { kind: 'wald' as const, maxTrials: 50, alpha: 0.0274, beta: 0.1608 } },
      "Wald's SPRT, at most 50 trials · exact α 0.027 β 0.161",
    ],
    ['no design (fixed N, or results written before designs)', { ...base, design: undefined }, undefined],
  ])('%s', (_, v, expected) => {
    expect(designText(v)).toBe(expected);
  });

  it.each([
    [
      'an adjusted rate wins over the Wilson interval and its *',
      { ...base, estimate: { rate: 0.871, lower: 0.714, upper: 0.952, level: 0.95 }, descriptiveInterval: true },
      '0.87 [0.71, 0.95]†',
    ],
    [
      'a sequential stop without an adjusted rate: the Wilson interval, *',
      { ...base, estimate: undefined, descriptiveInterval: true },
      '0.25 [0.05, 0.70]*',
    ],
    ['no stop: the Wilson interval, unmarked', { ...base, estimate: undefined, descriptiveInterval: false }, '0.25 [0.05, 0.70]'],
  ])('%s', (_, v, expected) => {
    const skill = designedInput().results.summary.cases.find((s) => s.caseId === 'jira-create' && s.arm === 'skill')!;
    expect(verdictRate(v, skill)).toBe(expected);
  });
});

describe("history --case: the rate each run's verdict stands on, as its report shows it", () => {
  const table = rateCellCases((text) => text).map(
    ([name, input, cells, mark]) => [name, input, cells, mark === 'adjusted' ? ADJUSTED_NOTE : DESCRIPTIVE_NOTE] as const,
  );

  it.each(table)('%s', (_, input, cells, note) => {
    const verdict = new Map(input.results.verdicts.map((v) => [v.caseId, v]));
    for (const [id, cell] of Object.entries(cells)) {
      const text = renderCaseHistory([{ runId: 'r1', manifest: input.manifest, results: input.results }], id);
      const row = text.split('\n').find((l) => l.startsWith('r1 '))!;
      const expected = cell === 'adjusted' ? `${adjustedText(verdict.get(id)!)}†` : cell;
      expect(row, text).toMatch(new RegExp(`\\s${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s`));
      // A mark on the row, and the note that says what it means under the table; no mark, no note.
      const marked = /[†*]$/.test(expected);
      expect(unwrapped(text).includes(note), text).toBe(marked);
    }
  });
});
