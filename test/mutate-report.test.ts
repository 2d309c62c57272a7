import { describe, expect, it } from 'vitest';
import type { StoredMutant } from '../src/run/mutate-schema.js';
import { mutateRecord } from './tune-fixture.js';
import { plannedReadingOf, readingOf } from '../src/report/mutate/view.js';
import { htmlReporter } from '../src/report/html.js';
import { jsonReporter } from '../src/report/json.js';
import { markdownReporter } from '../src/report/markdown.js';
import { terminalReporter } from '../src/report/terminal.js';

/** A mutant of atl-jira as its run left it, `over` its fields. */
const mutant = (over: Partial<StoredMutant>): StoredMutant => ({
  skill: 'atl-jira',
  operator: 'empty-body',
  what: 'SKILL.md body emptied',
  killedBy: 'a positive case with a plan check',
  status: 'completed',
  trials: 80,
  flipped: [],
  ...over,
});

describe("a mutant's reading: what its outcome means against the power its design had", () => {
  it.each<[string, Partial<StoredMutant>, RegExp]>([
    [
      'a kill the design had little chance of names the trials that would make it the rule',
      {
        noticed: true,
        power: 0.18,
        rulePower: { p: 0.23, lo: 0.21, hi: 0.24, draws: 4000 },
        trialsNeeded: 10,
        moves: [{ caseId: 'csv', from: 0.95, to: 0 }],
      },
      /^noticed \(power at least 18% exactly; 23% \[21%, 24%\] simulated\); 10 trials per case in each run would notice it at least 80% of the time$/,
    ],
    [
      'a kill at high power, in a record begun before the whole rule was simulated: its floor alone',
      { noticed: true, power: 0.99, moves: [{ caseId: 'csv', from: 0.95, to: 0 }] },
      /^noticed \(power at least 99%\)$/,
    ],
    [
      'a survivor at low power: too few trials, and how many would do',
      {
        noticed: false,
        power: 0.3,
        rulePower: { p: 0.41, lo: 0.39, hi: 0.43, draws: 4000 },
        trialsNeeded: 24,
        moves: [{ caseId: 'csv', from: 0.9, to: 0.5 }],
      },
      /^too few trials \(power at least 30% exactly; 41% \[39%, 43%\] simulated\): csv 90%→50% moved; 24 trials per case in each run would notice it at least 80% of the time$/,
    ],
    [
      'a survivor whose floor is low but whose whole rule was likely to see it: the simulated chance decides how it reads',
      {
        noticed: false,
        power: 0.55,
        rulePower: { p: 0.86, lo: 0.85, hi: 0.87, draws: 4000 },
        moves: [{ caseId: 'csv', from: 0.9, to: 0.2 }],
        observed: [{ caseId: 'csv', from: 0.9, to: 0.8 }],
      },
      /^survived though its power was at least 55% exactly; 86% \[85%, 87%\] simulated: predicted csv 90%→20%; the runs saw csv 90%→80%: .*the 14% chance of missing$/,
    ],
    [
      'a survivor its power said would be seen: the prediction and what the runs saw, side by side',
      {
        noticed: false,
        power: 0.99,
        moves: [{ caseId: 'notes', from: 0.93, to: 0 }],
        observed: [{ caseId: 'notes', from: 1, to: 1 }],
      },
      /^survived though its power was at least 99%: predicted notes 93%→0%; the runs saw notes 100%→100%: a rate the simulator plays otherwise than predicted, or the 1% chance of missing$/,
    ],
    [
      'a survivor that moved no case: no case for this',
      { noticed: false, power: 0, moves: [{ caseId: 'csv', from: 0.9, to: 0.9 }] },
      /^no case for this: .*add a positive case with a plan check$/,
    ],
  ])('%s', (_name, over, reads) => {
    expect(readingOf(mutant(over))).toMatch(reads);
  });
});

describe("a planned mutant's reading: what its run can see, before it runs", () => {
  const planned = (over: Partial<StoredMutant>): StoredMutant => mutant({ status: undefined, trials: 0, ...over });
  it.each<[string, Partial<StoredMutant>, RegExp]>([
    [
      'a mutant its design is likely to notice reads as the cases it moves, never as a survivor',
      { power: 0.18, rulePower: { p: 0.99, lo: 0.99, hi: 1, draws: 4000 }, moves: [{ caseId: 'csv', from: 0.95, to: 0 }] },
      /^moves cases \(power at least 18% exactly; 99% \[99%, 100%\] simulated\): csv 95%→0%$/,
    ],
    [
      'one it is not names the trials that would',
      {
        power: 0.1,
        rulePower: { p: 0.2, lo: 0.19, hi: 0.21, draws: 4000 },
        trialsNeeded: 30,
        moves: [{ caseId: 'csv', from: 0.9, to: 0.6 }],
      },
      /^moves cases \(power at least 10% exactly; 20% \[19%, 21%\] simulated\): csv 90%→60%; 30 trials per case/,
    ],
    ['one that moves no case: no case for this', { power: 0, moves: [{ caseId: 'csv', from: 0.9, to: 0.9 }] }, /^no case for this: /],
    ['one refused: not run, with the reason', { refused: 'csv-report: description is 1031 characters' }, /^not run: .*1031 characters\)$/],
  ])('%s', (_name, over, reads) => {
    expect(plannedReadingOf(planned(over))).toMatch(reads);
  });
});

describe('every mutate reporter says the same: mutants × outcome, the kill rate per operator, the suite health', () => {
  const record = mutateRecord({
    status: 'completed',
    skills: ['atl-jira'],
    health: [
      {
        file: 'cases/atl.yaml',
        line: 3,
        col: 11,
        what: 'case "c" names the skill it expects (atl-jira) in its prompt',
        todo: 'drop the name',
      },
    ],
    mutants: [
      mutant({ noticed: false, power: 0.3, trialsNeeded: 24, moves: [{ caseId: 'csv', from: 0.9, to: 0.5 }] }),
      mutant({ operator: 'skill-removed', noticed: true, power: 0.99, moves: [{ caseId: 'csv', from: 0.9, to: 0 }] }),
    ],
    trials: 160,
  });
  const input = { record, dir: 'transcripts/mutate-x' };

  it.each([
    ['terminal', terminalReporter(false)],
    ['markdown', markdownReporter],
    ['html', htmlReporter],
    ['json', jsonReporter],
  ] as const)('%s', (_name, reporter) => {
    const text = reporter.renderMutate!(input);
    for (const said of ['empty-body', 'survived', 'skill-removed', 'killed', 'too few trials', 'names the skill it expects'])
      expect(text).toContain(said);
    if (reporter === jsonReporter) {
      const parsed = JSON.parse(text) as { killRates: { operator: string; killed: number; ran: number }[] };
      expect(parsed.killRates.map((k) => [k.operator, k.killed, k.ran])).toEqual([
        ['empty-body', 0, 1],
        ['skill-removed', 1, 1],
        ['overall', 1, 2],
      ]);
    } else expect(text).toMatch(/overall[^\n]*1\/2/);
  });
});
