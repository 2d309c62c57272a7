import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { agentNotes } from '../src/runner/reports.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { loadCases } from '../src/load/cases.js';
import { InputError } from '../src/util/input-error.js';
import { loadSkills } from '../src/load/skills.js';
import { explainOutcome } from '../src/report/explain.js';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import { agentCellText, caseFacts } from '../src/report/wording.js';
import { configSchema } from '../src/run/config-schema.js';
import { routeRight } from '../src/run/expectation.js';
import { resultsSchema, type GradableCase, type TrialOutcome } from '../src/run/schema.js';
import { failedBySiblingsOnly, proposalFailures, type FailureCase } from '../src/tune/failures.js';
import { familyScore } from '../src/tune/score.js';
import { caseRole } from '../src/tune/splits.js';
import { agentMatrix } from '../src/verdict/agent-matrix.js';
import { buildResults } from '../src/verdict/results.js';
import { routingRates } from '../src/verdict/suite-change.js';
import { ClaudeStream } from './claude-stream.js';
import { baseProject, projectsRemovedAfterAll } from './helpers.js';
import { ATL_FAMILY, DECISION, handMadeManifest, trialMeta } from './run-fixtures.js';

/**
 * skill-creator's `should_trigger: false` means "this skill must not fire": a case that says so (`expect: { not: X }`)
 * fails only when X fires, while `expect: { skill: none }` keeps "no skill may fire". Graded, summarised, reported
 * and tuned exactly, from hand-built transcripts.
 */
const OPTS: GradeOptions = {
  family: ATL_FAMILY,
  skillsFolder: claudeCode.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: claudeCode.grading,
};
const notJira: GradableCase = { id: 'not-jira', expect: 'none', not: 'atl-jira', exclusive: false, tags: [], decision: DECISION };
const noSkill: GradableCase = { id: 'no-skill', expect: 'none', exclusive: false, tags: [], decision: DECISION };
const jira: GradableCase = { id: 'jira', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION };
const s = () => new ClaudeStream();
const fires = (...skills: string[]) =>
  skills
    .reduce((st, k) => st.skill(k), s())
    .text('ok')
    .result();

const grade = (c: GradableCase, stream: ClaudeStream, n = 1): TrialOutcome =>
  gradeTrial(parseClaudeStream(stream.raw()), trialMeta(), c, 'skill', n, OPTS);

describe('grading a "not this skill" case', () => {
  it.each<[string, GradableCase, ClaudeStream, Partial<TrialOutcome>]>([
    ['nothing fired: pass', notJira, fires(), { passed: true, fired: 'none', firedColumn: 'none' }],
    [
      'the skill it forbids fired: a false trigger',
      notJira,
      fires('atl-jira'),
      { passed: false, fired: 'sibling', firedColumn: 'atl-jira' },
    ],
    [
      'a sibling rightly took the request: pass',
      notJira,
      fires('atl-confluence'),
      { passed: true, fired: 'other', firedColumn: 'atl-confluence' },
    ],
    [
      'the forbidden skill beside a sibling: a false trigger',
      notJira,
      fires('atl-confluence', 'atl-jira'),
      { passed: false, fired: 'sibling' },
    ],
    ['a skill outside the family: pass', notJira, fires('pdf'), { passed: true, fired: 'other', firedColumn: 'other' }],
    [
      'reading the forbidden SKILL.md counts as firing it',
      notJira,
      s().read('/ws/.claude/skills/atl-jira/SKILL.md').text('ok').result(),
      { passed: false, fired: 'sibling' },
    ],
    ['no skill may fire: a sibling is a false trigger', noSkill, fires('atl-confluence'), { passed: false, fired: 'sibling' }],
    ['no skill may fire: a skill outside the family is none of the family', noSkill, fires('pdf'), { passed: true, fired: 'other' }],
    ['no skill may fire: nothing fired', noSkill, fires(), { passed: true, fired: 'none' }],
  ])('%s', (_, c, stream, want) => {
    expect(grade(c, stream)).toMatchObject(want);
  });
});

/** A run of hand-built trials, graded. */
function runOf(trials: [GradableCase, ClaudeStream][]) {
  const seen = new Map<string, number>();
  const outcomes = trials.map(([c, stream]) => {
    seen.set(c.id, (seen.get(c.id) ?? 0) + 1);
    return grade(c, stream, seen.get(c.id));
  });
  const manifest = handMadeManifest([...new Set(trials.map(([c]) => c))], trials.length);
  return { dir: 'runs/r1', manifest, outcomes, results: buildResults(manifest, outcomes, [], new Date('2026-12-01T00:00:00.000Z')) };
}

/** A run of the three kinds of case: what each reporter, the summary and the agent matrix make of it. */
const mixedRun = () =>
  runOf([
    [notJira, fires('atl-confluence')],
    [notJira, fires('atl-jira')],
    [notJira, fires()],
    [noSkill, fires('atl-confluence')],
    [jira, fires('atl-jira')],
    [jira, fires('atl-jira')],
  ]);

describe('summarising "not this skill" cases', () => {
  it('a sibling on a "not this skill" case is no false trigger in the rate, the precision or the case breakdown', () => {
    const { results } = mixedRun();
    const a = results.summary.aggregates;
    // False triggers: atl-jira on not-jira (1 of 3), atl-confluence on no-skill (1 of 1).
    expect(a.falseTriggerRate).toMatchObject({ successes: 2, n: 4 });
    expect(a.precision).toMatchObject({ successes: 2, n: 4 });
    const row = results.summary.cases.find((c) => c.caseId === 'not-jira')!;
    expect(row).toMatchObject({ expect: 'none', not: 'atl-jira', rate: { successes: 2, n: 3 } });
    expect(row.failures.falseTrigger.trials).toBe(1);
    expect(results.summary.cases.find((c) => c.caseId === 'no-skill')!.failures.falseTrigger.trials).toBe(1);
  });

  it('the confusion matrix gives a "not this skill" case a row of its own, naming the skill it forbids', () => {
    const m = mixedRun().results.summary.confusion;
    expect(m.rows).toEqual(['atl-jira', 'none', 'not atl-jira']);
    expect(m.forbids).toEqual({ 'not atl-jira': 'atl-jira' });
    expect(m.cells['not atl-jira']!['atl-confluence']).toMatchObject({ successes: 1, n: 3 });
    expect(m.cells['none']!['atl-confluence']).toMatchObject({ successes: 1, n: 1 });
  });

  it.each<[string, string, string | undefined, boolean | undefined]>([
    ['atl-jira', 'atl-jira', undefined, true],
    ['atl-jira', 'atl', undefined, false],
    ['none', 'none', undefined, true],
    ['none', 'atl', undefined, false],
    ['not atl-jira', 'atl', 'atl-jira', true],
    ['not atl-jira', 'none', 'atl-jira', true],
    ['not atl-jira', 'other', 'atl-jira', true],
    ['not atl-jira', 'atl-jira', 'atl-jira', false],
    ['not atl-jira', 'multiple', 'atl-jira', undefined],
  ])('row %s, column %s (forbids %s): right route %s', (row, column, forbids, right) => {
    expect(routeRight(row, column, forbids)).toBe(right);
  });

  it('a results.json of format 3 (no `forbids`) still reads', () => {
    const { results } = mixedRun();
    const { forbids: _, ...confusion } = results.summary.confusion;
    const old = resultsSchema.parse(JSON.parse(JSON.stringify({ ...results, version: 3, summary: { ...results.summary, confusion } })));
    expect(old.summary.confusion.forbids).toEqual({});
  });
});

describe('reporting "not this skill" cases', () => {
  it.each(REPORTER_NAMES)('the %s reporter names what the case expects as "not atl-jira"', (name) => {
    const { manifest, results } = mixedRun();
    const text = REPORTERS[name]({ colour: false }).render({ manifest, results, runDir: 'runs/r1', agentNotes: agentNotes(manifest) });
    expect(text).toContain(name === 'json' ? '"not": "atl-jira"' : 'not atl-jira');
  });

  it('the case facts split the false trigger from the sibling that may take the request', () => {
    const row = mixedRun().results.summary.cases.find((c) => c.caseId === 'not-jira')!;
    const facts = caseFacts(row).map((f) => f.text);
    expect(facts).toContain('false trigger: atl-jira fired in 1 of 3');
    expect(facts).toContain('siblings may take it (not atl-jira): atl-confluence fired in 1 of 3');
  });

  it('each trial is explained by what it forbids', () => {
    const { outcomes } = mixedRun();
    expect(outcomes.slice(0, 3).map((o) => explainOutcome(o, notJira))).toEqual(['pass', 'fail: false trigger: atl-jira fired', 'pass']);
  });

  it('the agents matrix counts only the forbidden skill as a false trigger', () => {
    const row = agentMatrix([mixedRun().results]).rows.find((r) => r.caseId === 'not-jira')!;
    expect(row).toMatchObject({ expect: 'not atl-jira', negative: true });
    expect(agentCellText(row.cells[0], row.negative)).toMatch(/ 2\/3 · false triggers 33%$/);
  });

  it("compare's suite false-trigger rate leaves out the siblings a case allows, and counts the skill it forbids", () => {
    const quiet = runOf([1, 2, 3].map(() => [notJira, fires()]));
    const siblingTakes = runOf([1, 2, 3].map(() => [notJira, fires('atl-confluence')]));
    const forbiddenFires = runOf([1, 2, 3].map(() => [notJira, fires('atl-jira')]));
    expect(routingRates(quiet, siblingTakes, 0.95).falseTriggers.diff).toBe(0);
    expect(routingRates(quiet, forbiddenFires, 0.95).falseTriggers.diff).toBe(1);
  });
});

describe('tune and "not this skill" cases', () => {
  it.each<[string, string, string | undefined, string]>([
    ['atl-jira', 'atl-jira', undefined, 'self'],
    ['none', 'atl-jira', undefined, 'none'],
    ['none', 'atl-jira', 'atl-jira', 'none'],
    ['none', 'atl-jira', 'atl-confluence', 'sibling'],
    ['atl', 'atl-jira', undefined, 'sibling'],
  ])('a case expecting %s, tuning %s, forbidding %s, is role %s', (expects, skill, not, role) => {
    expect(caseRole(expects, skill, not)).toBe(role);
  });

  it('an imported near miss a sibling takes scores as a negative that passed, and shows no failure: the score and the failures agree', () => {
    const imported: GradableCase = { ...notJira, id: 'quiet' };
    const outcomes = [1, 2, 3, 4].map((n) => grade(imported, fires('atl-confluence'), n));
    const family = new Set(ATL_FAMILY.map((m) => m.dir));
    const failureCase: FailureCase = {
      id: 'quiet',
      prompt: 'p',
      role: caseRole('none', 'atl-jira', 'atl-jira'),
      expects: 'none',
      not: 'atl-jira',
    };
    expect(proposalFailures([failureCase], outcomes, 'atl-jira', family)).toEqual([]);
    const passes = outcomes.filter((o) => o.passed).length;
    expect(familyScore([{ caseId: 'quiet', role: failureCase.role, passes, trials: outcomes.length }]).negatives).toBe(1);
    // The tuned skill firing on it is a false trigger the proposer is shown.
    const ours = [1, 2].map((n) => grade(imported, fires('atl-jira'), n));
    expect(proposalFailures([failureCase], ours, 'atl-jira', family)).toEqual([{ kind: 'false-trigger', prompt: 'p', rate: '0/2' }]);
  });

  it('a case where no skill may fire, failed only by a sibling, is named as one no description of the tuned skill can fix', () => {
    const family = new Set(ATL_FAMILY.map((m) => m.dir));
    const strict: FailureCase = { id: 'no-skill', prompt: 'p', role: caseRole('none', 'atl-jira'), expects: 'none' };
    const taken = [1, 2].map((n) => grade(noSkill, fires('atl-confluence'), n));
    expect(proposalFailures([strict], taken, 'atl-jira', family)).toEqual([]);
    expect(failedBySiblingsOnly([strict], taken, 'atl-jira')).toEqual(['no-skill']);
    // Once the tuned skill fires on it too, it is the proposer's to fix, not a sibling's.
    const ours = [...taken, grade(noSkill, fires('atl-jira'), 3)];
    expect(failedBySiblingsOnly([strict], ours, 'atl-jira')).toEqual([]);
    expect(proposalFailures([strict], ours, 'atl-jira', family)).toEqual([{ kind: 'false-trigger', prompt: 'p', rate: '0/3' }]);
  });

  it("a case that forbids only a sibling is no failure of the tuned skill's description when the tuned skill takes it", () => {
    const notConfluence: GradableCase = { ...notJira, id: 'nc', not: 'atl-confluence' };
    const outcomes = [grade(notConfluence, fires('atl-jira'))];
    const c: FailureCase = {
      id: 'nc',
      prompt: 'p',
      role: caseRole('none', 'atl-jira', 'atl-confluence'),
      expects: 'none',
      not: 'atl-confluence',
    };
    expect(outcomes[0]!.passed).toBe(true);
    expect(proposalFailures([c], outcomes, 'atl-jira', new Set(ATL_FAMILY.map((m) => m.dir)))).toEqual([]);
  });
});

describe('writing "not this skill" in a case file', () => {
  const project = projectsRemovedAfterAll();
  const decision = configSchema.parse({}).decision;
  const load = (yaml: string) => {
    const dir = project();
    writeFileSync(join(dir, 'cases/main.yaml'), yaml);
    return loadCases(join(dir, 'cases/*.yaml'), loadSkills(join(dir, 'skills')), decision);
  };

  it('`expect: { not: alpha }` loads as a negative case forbidding alpha; `skill: none` keeps forbidding every skill', () => {
    const suite = load(`${baseProject()['cases/main.yaml']}- id: quiet\n  prompt: list beta records\n  expect: { not: alpha }\n`);
    expect(suite.cases.map((c) => [c.id, c.expect])).toEqual([
      ['pos-alpha', { skill: 'alpha' }],
      ['neg-weather', { skill: 'none' }],
      ['quiet', { skill: 'none', not: 'alpha' }],
    ]);
  });

  it.each<[string, string, RegExp]>([
    [
      'neither skill nor not',
      'expect: { judge: ["is it polite?"] }',
      /main\.yaml:3:\d+: case "x" `expect`: names no skill — write `skill: <skill>`/,
    ],
    [
      'both skill and not',
      'expect: { skill: alpha, not: alpha-beta }',
      /main\.yaml:3:\d+: case "x" `expect`: has both `skill` and `not` — keep one/,
    ],
    [
      'an unknown skill',
      'expect: { not: gamma }',
      /main\.yaml:3:\d+: case "x" says skill "gamma" must not fire, but it is not in the skills folder — use one of alpha, alpha-beta/,
    ],
    ['plan checks', 'expect: { not: alpha }\n  plan: { verb: create }', /case "x" is negative but has plan checks/],
  ])('refuses %s with file:line', (_, expectLine, message) => {
    let error: unknown;
    try {
      load(`- id: x\n  prompt: list records\n  ${expectLine}\n`);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(message);
  });
});
