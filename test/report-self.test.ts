import { describe, expect, it } from 'vitest';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import { advice } from '../src/report/advice.js';
import type { TrialOutcome } from '../src/run/schema.js';
import { OUTCOMES, reportInput } from './report-inputs.js';

/** The report run, with vague-sprint's trials made field trials where the model acted by itself. */
const wentAround = (o: TrialOutcome): TrialOutcome =>
  o.caseId === 'vague-sprint' && o.arm === 'skill' && o.n === 2
    ? { ...o, passed: false, firings: [], fired: 'self', firedColumn: 'self' }
    : o;
const fieldInput = () => reportInput({}, OUTCOMES.map(wentAround));
const vague = (input: ReturnType<typeof reportInput>) =>
  input.results.summary.cases.find((c) => c.caseId === 'vague-sprint' && c.arm === 'skill')!;

describe('going around the skill in the results and every reporter', () => {
  it('a case gets the count, its rate with an interval, and its own failure count', () => {
    const s = vague(fieldInput());
    expect(s.fired).toMatchObject({ expected: 1, none: 0, self: 1 });
    expect(s.wentAround).toMatchObject({ successes: 1, n: 2, p: 0.5 });
    expect(s.wentAround!.lo).toBeLessThan(0.5);
    expect(s.wentAround!.hi).toBeGreaterThan(0.5);
    expect(s.failures.wentAround).toEqual({ trials: 1, example: 2 });
    expect(s.failures.didNotFire.trials).toBe(0);
  });

  it('the confusion matrix gets a self column only when a trial went around the skill', () => {
    const field = fieldInput().results.summary.confusion;
    expect(field.columns).toEqual(['atl', 'atl-jira', 'atl-confluence', 'none', 'self', 'multiple', 'other']);
    expect(field.cells['atl-jira']!.self).toMatchObject({ successes: 1 });
    expect(reportInput().results.summary.confusion.columns).not.toContain('self');
  });

  it('a lab run stores no trace of it (its results read as before)', () => {
    const s = vague(reportInput());
    expect(s.fired).not.toHaveProperty('self');
    expect(s).not.toHaveProperty('wentAround');
    expect(s.failures).not.toHaveProperty('wentAround');
  });

  it('the advice says what to put in the description', () => {
    const input = fieldInput();
    const v = input.results.verdicts.find((x) => x.caseId === 'vague-sprint')!;
    expect(advice(vague(input), v, {}).text).toBe(
      "the model did it by hand in 50% of trials: say in atl-jira's description what the skill adds over doing it by hand",
    );
  });

  it.each(REPORTER_NAMES.filter((name) => name !== 'json'))('%s says it on its own line', (name) => {
    const text = REPORTERS[name]({ colour: false }).render(fieldInput());
    expect(text).toMatch(/went around the skill in 1 of 2 \(rate 0\.50 \\?\[/);
    expect(REPORTERS[name]({ colour: false }).render(reportInput())).not.toMatch(/went around the skill/);
  });

  it("the terminal's CASES table gets a went-around column only in a run that has one", () => {
    const table = (input: ReturnType<typeof reportInput>) => REPORTERS.terminal({ colour: false }).render(input).split('CASES')[1]!;
    expect(table(fieldInput())).toMatch(/went around: the model acted by itself/);
    expect(table(fieldInput())).toMatch(/\nvague-sprint +2 +1 +0 +1 /);
    expect(table(reportInput())).not.toMatch(/went/);
  });

  it('json carries it as stored', () => {
    const shown = JSON.parse(REPORTERS.json({ colour: false }).render(fieldInput()));
    expect(
      shown.summary.cases.find((c: { caseId: string; arm: string }) => c.caseId === 'vague-sprint' && c.arm === 'skill').fired.self,
    ).toBe(1);
  });
});
