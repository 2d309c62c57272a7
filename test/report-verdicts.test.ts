import { describe, expect, it } from 'vitest';
import { REPORTERS } from '../src/report/registry.js';
import { advice } from '../src/report/advice.js';
import { COMPARISON, designedInput, passBelowThresholdInput, reportInput } from './report-inputs.js';

/** A report's words as a reader sees them: tags, entities, markdown escapes and colour codes gone, lines joined. */
const words = (text: string) =>
  text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#10;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\\(.)/g, '$1')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\s+/g, ' ');

describe('a PASS says what it means under the design: p ≤ p1 ruled out at its β, not p ≥ p0', () => {
  const input = passBelowThresholdInput();
  const v = input.results.verdicts[0]!;
  const fail = designedInput().results.verdicts.find((x) => x.caseId === 'jira-create')!;

  it('the fixture passes with an adjusted rate between p1 and p0', () => {
    expect(v.verdict).toBe('PASS');
    expect(v.estimate!.rate).toBeGreaterThan(0.2);
    expect(v.estimate!.rate).toBeLessThan(0.5);
  });

  it.each([
    [
      "a PASS rules out p ≤ p1, at the design's β",
      v,
      `the sequential test ruled out p ≤ 0.20 (β ${v.design!.beta.toFixed(3)}) after 14 trials`,
    ],
    [
      "a FAIL rules out p ≥ p0, at the design's α",
      fail,
      `the sequential test ruled out p ≥ 0.9 (α ${fail.design!.alpha.toFixed(3)}) after 3 trials`,
    ],
  ])("the verdict's reason claims no more than the test shows: %s", (_, verdict, reason) => {
    expect(verdict.reason).toBe(reason);
  });

  it.each(['terminal', 'markdown', 'junit', 'html'] as const)('%s explains a PASS below its threshold', (name) => {
    const text = words(REPORTERS[name]({ colour: false }).render(input));
    expect(text).not.toMatch(/accepted p ≥/);
    expect(text).toContain(
      `pdf-convert passed with a rate of ${v.estimate!.rate.toFixed(2)}, below its p0 0.50: a PASS rules out p ≤ 0.20 (a case at 0.20 passes ` +
        `with chance β ${v.design!.beta.toFixed(3)}), it does not show p ≥ 0.50; to tell rates nearer 0.50 apart, narrow delta`,
    );
  });
});

describe('what to change for a case without usable trials', () => {
  it('an ERROR case is told to fix what left its trials out, not to run more of them', () => {
    const input = reportInput();
    const v = input.results.verdicts.find((x) => x.caseId === 'rate-limited')!;
    const s = input.results.summary.cases.find((x) => x.caseId === 'rate-limited' && x.arm === 'skill')!;
    expect(v.verdict).toBe('ERROR');
    expect(advice(s, v).text).toBe(
      'nothing to change in SKILL.md yet: too few trials were usable (1 infra error, 1 isolation error); fix what left them out, then run again',
    );
  });
});

describe('inline code in what the reports say: rendered as code, never as literal backticks', () => {
  const undecided = COMPARISON.cases.find((x) => x.change === 'UNDECIDED')!;

  it('the fixture reason holds a command in backticks, as compare writes it for a run stopped early', () => {
    expect(undecided.reason).toContain('(`--mode fixed -n 120`)');
  });

  it('html: the comparison page shows the command as code', () => {
    const page = REPORTERS.html({ colour: false }).renderComparison(COMPARISON);
    expect(page).toContain('run both fixed-N (<code>--mode fixed -n 120</code>) to decide it');
    expect(words(page)).not.toContain('`');
  });

  it('markdown: the comparison shows the command as a code span, its backticks not escaped', () => {
    const text = REPORTERS.markdown({ colour: false }).renderComparison(COMPARISON);
    expect(text).toContain('run both fixed-N (`--mode fixed -n 120`) to decide it');
    expect(text).not.toContain('\\`');
  });
});
