import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  aaFlipFindings,
  aaFlips,
  STUCK_TRIALS,
  storedCases,
  stuckAs,
  stuckCaseFindings,
  type StoredCase,
} from '../src/lint/suite-health.js';
import type { LintCase } from '../src/lint/types.js';
import { summariseRun } from '../src/report/runs.js';
import { caseDesign } from '../src/stats/case-design.js';
import { designOperating } from '../src/stats/sequential-design.js';
import { cleanup, makeProject, runInProcess, skillMd, testEnv } from './helpers.js';
import { DECISION, storeSyntheticRun, syntheticRun } from './run-fixtures.js';

const at = { file: 'cases/a.yaml', line: 3, col: 7 };
const kase = (id: string, expect = 'atl-jira'): LintCase => ({
  id,
  prompt: 'p',
  expect,
  against: [],
  tags: [],
  at: { id: at, prompt: at },
});
const arm = (successes: number, n: number) => ({ successes, n });

describe('suite health: a case every stored trial in every arm passed or failed cannot move', () => {
  it('29 trials per arm is the fewest at which a case 10 points short of always passing shows all-pass at most 5% of the time', () => {
    expect(STUCK_TRIALS).toBe(29);
    expect(0.9 ** 29).toBeLessThanOrEqual(0.05);
    expect(0.9 ** 28).toBeGreaterThan(0.05);
  });

  it.each<[string, StoredCase, boolean, ReturnType<typeof stuckAs>]>([
    ['every skill trial failed', { runs: 2, skill: arm(0, 29) }, true, 'floor'],
    ['too few to say', { runs: 2, skill: arm(0, 28) }, true, undefined],
    ['the skill arm alone passing: a broken skill would still drop it', { runs: 3, skill: arm(40, 40) }, true, undefined],
    ['passes with the family and without', { runs: 3, skill: arm(40, 40), ablation: arm(29, 29) }, true, 'saturated'],
    [
      'a negative case always passes without the family: no saturation',
      { runs: 3, skill: arm(40, 40), ablation: arm(29, 29) },
      false,
      undefined,
    ],
    ['fails in both arms', { runs: 2, skill: arm(0, 30), ablation: arm(0, 30) }, true, 'floor'],
    ['the ablation arm passed some', { runs: 2, skill: arm(0, 30), ablation: arm(3, 30) }, true, undefined],
    ['the ablation arm failed one', { runs: 2, skill: arm(30, 30), ablation: arm(29, 30) }, true, undefined],
    ['the ablation arm too short', { runs: 2, skill: arm(30, 30), ablation: arm(10, 10) }, true, undefined],
    ['a negative case always firing a skill', { runs: 2, skill: arm(0, 30) }, false, 'floor'],
  ])('%s', (_name, stored, positive, stuck) => {
    expect(stuckAs(stored, positive)).toBe(stuck);
  });

  it('pools each case over the runs that hold it, arm by arm, from the runs as history reads them', () => {
    const one = syntheticRun({ a: { passes: 0, n: 15 }, b: { passes: 10, n: 15 } });
    const two = syntheticRun({ a: { passes: 0, n: 14 } });
    const stored = storedCases([
      summariseRun('r1', one.manifest, one.results),
      summariseRun('r2', two.manifest, two.results),
      summariseRun('r3', one.manifest, undefined, 'unreadable'),
    ]);
    expect(stored.get('a')).toEqual({ runs: 2, skill: arm(0, 29) });
    expect(stored.get('b')).toEqual({ runs: 1, skill: arm(10, 15) });
    const found = stuckCaseFindings([kase('a'), kase('b')], stored);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      check: 'suite-health',
      severity: 'warning',
      ...at,
      what: 'case "a" failed every stored trial (29, over 2 stored runs): its rate cannot drop, so it cannot notice a broken skill',
    });
  });
});

describe("suite health: the A/A false-flip rate at the suite's design", () => {
  const design = caseDesign({ decision: DECISION });
  const flipOf = (rate: number) => {
    const pass = designOperating(design, rate).accept;
    return pass * (1 - pass);
  };

  it('is exact from each case’s design at its stored rate: PASS in one run, not in the other', () => {
    const stored = new Map<string, StoredCase>([
      ['near', { runs: 1, skill: arm(9, 10) }],
      ['sure', { runs: 1, skill: arm(20, 20) }],
      ['low', { runs: 1, skill: arm(2, 10) }],
    ]);
    const flips = aaFlips([kase('near'), kase('sure'), kase('low'), kase('unrun')], stored, () => design)!;
    expect(flips.cases.map((c) => c.caseId)).toEqual(['near', 'low', 'sure']);
    expect(flips.cases[0]!.chance).toBeCloseTo(flipOf(0.9), 12);
    expect(flips.cases[2]!.chance).toBe(0);
    expect(flips.rate).toBeCloseTo(1 - (1 - flipOf(0.9)) * (1 - flipOf(0.2)), 12);
    // A rate at the threshold flips more than one clear of it either way.
    expect(flipOf(0.9)).toBeGreaterThan(Math.max(flipOf(0.99), flipOf(0.2)));
  });

  it('warns above α at the case that flips most; says nothing at or below it, or with no design', () => {
    const cases = [kase('near'), kase('sure')];
    const stored = new Map<string, StoredCase>([
      ['near', { runs: 1, skill: arm(9, 10) }],
      ['sure', { runs: 1, skill: arm(20, 20) }],
    ]);
    const found = aaFlipFindings(
      cases,
      aaFlips(cases, stored, () => design),
      0.05,
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.what).toMatch(/^the suite's A\/A false-flip rate at its design is \d+%: .*"near" alone \d+%$/);
    expect(
      aaFlipFindings(
        cases,
        aaFlips([kase('sure')], stored, () => design),
        0.05,
      ),
    ).toEqual([]);
    expect(aaFlips(cases, stored, () => undefined)).toBeUndefined();
  });
});

describe('lint reads the transcripts folder’s stored runs', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('names the floor case and the A/A rate as warnings; a project with no stored run gets neither', async () => {
    const dir = makeProject({
      'skills/atl-jira/SKILL.md': skillMd('atl-jira', 'File and move Jira issues from the terminal with the atl CLI.'),
      'cases/main.yaml': [
        '- id: file-bug',
        '  prompt: "file a bug about the login page"',
        '  expect: { skill: atl-jira }',
        '- id: move-done',
        '  prompt: "move PROJ-7 to done"',
        '  expect: { skill: atl-jira }',
        '',
      ].join('\n'),
    });
    dirs.push(dir);
    const before = await runInProcess(['lint'], { cwd: dir, env: testEnv() });
    expect(before.stdout).not.toMatch(/suite-health|stored/);
    for (const runId of ['run-1', 'run-2'])
      await storeSyntheticRun(
        join(dir, 'transcripts'),
        runId,
        syntheticRun({ 'file-bug': { passes: 0, n: 15 }, 'move-done': { passes: 8, n: 10 } }),
      );
    const r = await runInProcess(['lint', '--json'], { cwd: dir, env: testEnv() });
    expect(r.exitCode, r.stderr).toBe(0);
    const health = (JSON.parse(r.stdout) as { check: string; what: string; line: number }[]).filter((f) => f.check === 'suite-health');
    expect(health.map((f) => f.what)).toEqual([
      expect.stringMatching(/^case "file-bug" failed every stored trial \(30, over 2 stored runs\)/),
      expect.stringMatching(/^the suite's A\/A false-flip rate at its design is \d+%.*"move-done" alone/),
    ]);
    expect(health.map((f) => f.line)).toEqual([1, 4]);
  });
});
