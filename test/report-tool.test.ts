import { describe, expect, it } from 'vitest';
import { advice } from '../src/report/advice.js';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import type { TrialOutcome } from '../src/run/schema.js';
import { OUTCOMES, reportInput } from './report-inputs.js';

/** The report run, with one of vague-sprint's trials taken by a stub MCP server's tool. */
const usedTool = (o: TrialOutcome): TrialOutcome =>
  o.caseId === 'vague-sprint' && o.arm === 'skill' && o.n === 2
    ? { ...o, passed: false, firings: [], fired: 'tool', firedColumn: 'tool:jira/create_issue' }
    : o;
const toolInput = () => reportInput({}, OUTCOMES.map(usedTool));
const vague = (input: ReturnType<typeof reportInput>) =>
  input.results.summary.cases.find((c) => c.caseId === 'vague-sprint' && c.arm === 'skill')!;

describe('an MCP tool chosen instead of the skill, in the results and every reporter', () => {
  it('a case gets the count and its own failure count, naming the tool', () => {
    const s = vague(toolInput());
    expect(s.fired).toMatchObject({ expected: 1, none: 0, tool: 1 });
    expect(s.failures.usedTool).toEqual({ trials: 1, example: 2, tools: [{ tool: 'jira/create_issue', trials: 1 }] });
    expect(s.failures.didNotFire.trials).toBe(0);
    expect(vague(reportInput()).failures).not.toHaveProperty('usedTool');
  });

  it("the confusion matrix gets the tool's column only where a trial used it", () => {
    const confusion = toolInput().results.summary.confusion;
    expect(confusion.columns).toEqual(['atl', 'atl-jira', 'atl-confluence', 'tool:jira/create_issue', 'none', 'multiple', 'other']);
    expect(confusion.cells['atl-jira']!['tool:jira/create_issue']).toMatchObject({ successes: 1 });
    expect(reportInput().results.summary.confusion.columns.some((c) => c.startsWith('tool:'))).toBe(false);
  });

  it('the advice says what to put in the description', () => {
    const input = toolInput();
    const v = input.results.verdicts.find((x) => x.caseId === 'vague-sprint')!;
    expect(advice(vague(input), v, {}).text).toBe(
      "the model used the MCP tool jira/create_issue instead: say in atl-jira's description what it adds over that tool (or expect the tool here)",
    );
  });

  it.each(REPORTER_NAMES.filter((name) => name !== 'json'))('%s says it on its own line', (name) => {
    expect(REPORTERS[name]({ colour: false }).render(toolInput())).toMatch(/used an MCP tool instead in 1 of 2 \(jira\/create\\?_issue\)/);
    expect(REPORTERS[name]({ colour: false }).render(reportInput())).not.toMatch(/used an MCP tool/);
  });
});
