import { describe, expect, it } from 'vitest';
import type { StoredMutant } from '../src/run/mutate-schema.js';
import { readingOf } from '../src/report/mutate/view.js';

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
      { noticed: true, power: 0.18, trialsNeeded: 10, moves: [{ caseId: 'csv', from: 0.95, to: 0 }] },
      /^noticed \(power 18%\); 10 trials per case in each run would notice it 80% of the time$/,
    ],
    ['a kill at high power', { noticed: true, power: 0.99, moves: [{ caseId: 'csv', from: 0.95, to: 0 }] }, /^noticed \(power 99%\)$/],
    [
      'a survivor at low power: too few trials, and how many would do',
      { noticed: false, power: 0.3, trialsNeeded: 24, moves: [{ caseId: 'csv', from: 0.9, to: 0.5 }] },
      /^too few trials \(power 30%\): csv 90%→50% moved; 24 trials per case in each run would notice it 80% of the time$/,
    ],
    [
      'a survivor its power said would be seen: the prediction and what the runs saw, side by side',
      {
        noticed: false,
        power: 0.99,
        moves: [{ caseId: 'notes', from: 0.93, to: 0 }],
        observed: [{ caseId: 'notes', from: 1, to: 1 }],
      },
      /^survived though its power was 99%: predicted notes 93%→0%; the runs saw notes 100%→100%: a rate the simulator plays otherwise than predicted, or the 1% chance of missing$/,
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
