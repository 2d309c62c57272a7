import { describe, expect, it } from 'vitest';
import { mcnemarExact } from '../src/stats/mcnemar.js';
import { holdoutComparison, type HoldoutPair } from '../src/tune/holdout.js';
import { familyScore, roleChange, type CaseTally } from '../src/tune/score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune, type DropReason, type Evaluated } from '../src/tune/select.js';
import { caseRole, SPLIT_NAMES, splitCases, splitProblems, stratumCounts, type SplitCase, type SplitName } from '../src/tune/splits.js';

const SKILL = 'atl-jira';

/** n cases of one kind: ids prefix1…prefixN. */
const make = (prefix: string, n: number, expects: string, trap = false, pinned?: SplitName): SplitCase[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i + 1}`, expects, trap, ...(pinned ? { pinned } : {}) }));

const SUITE: SplitCase[] = [
  ...make('pos', 10, SKILL),
  ...make('trap', 5, SKILL, true),
  ...make('sib', 6, 'atl-confluence'),
  ...make('sibtrap', 3, 'atl-confluence', true),
  ...make('neg', 7, 'none'),
  ...make('near', 2, 'none', true),
];

const where = (split: Record<SplitName, string[]>) => new Map(SPLIT_NAMES.flatMap((s) => split[s].map((id) => [id, s] as const)));
const countIn = (split: Record<SplitName, string[]>, prefix: RegExp): Record<SplitName, number> => ({
  tune: split.tune.filter((id) => prefix.test(id)).length,
  select: split.select.filter((id) => prefix.test(id)).length,
  holdout: split.holdout.filter((id) => prefix.test(id)).length,
});

describe('caseRole', () => {
  it.each([
    ['atl-jira', 'self'],
    ['atl-confluence', 'sibling'],
    ['none', 'none'],
    ['ATL-JIRA', 'sibling'],
  ] as const)('%s seen from atl-jira is %s', (expects, role) => {
    expect(caseRole(expects, SKILL)).toBe(role);
  });
});

describe('stratumCounts: 40/30/30 by largest remainder, pins where pinned', () => {
  const none = { tune: 0, select: 0, holdout: 0 };
  it.each([
    [1, none, SPLIT_NAMES, [1, 0, 0]],
    [2, none, SPLIT_NAMES, [1, 1, 0]],
    [2, none, ['holdout', 'select', 'tune'], [1, 0, 1]],
    [3, none, SPLIT_NAMES, [1, 1, 1]],
    [5, none, SPLIT_NAMES, [2, 2, 1]],
    [6, none, SPLIT_NAMES, [2, 2, 2]],
    [7, none, SPLIT_NAMES, [3, 2, 2]],
    [10, none, SPLIT_NAMES, [4, 3, 3]],
    [3, { tune: 3, select: 0, holdout: 0 }, SPLIT_NAMES, [3, 0, 0]],
    [5, { tune: 0, select: 0, holdout: 2 }, SPLIT_NAMES, [2, 1, 2]],
    [10, { tune: 0, select: 0, holdout: 1 }, SPLIT_NAMES, [4, 3, 3]],
  ] as const)('%i cases, pinned %o, ties %o → %o', (n, pinned, order, want) => {
    const c = stratumCounts(n, pinned, order);
    expect([c.tune, c.select, c.holdout]).toEqual(want);
  });
});

describe('splitCases', () => {
  it.each([1, 2, 3, 42, 1000])('seed %i: disjoint, covers every case, and the same seed gives the same split', (seed) => {
    const a = splitCases(SUITE, SKILL, seed);
    const all = SPLIT_NAMES.flatMap((s) => a[s]);
    expect(all.sort()).toEqual(SUITE.map((c) => c.id).sort());
    expect(new Set(all).size).toBe(SUITE.length);
    expect(splitCases(SUITE, SKILL, seed)).toEqual(a);
    expect(splitCases([...SUITE].reverse(), SKILL, seed)[a.tune.length > 0 ? 'tune' : 'select'].sort()).toEqual(
      a[a.tune.length > 0 ? 'tune' : 'select'].sort(),
    );
  });

  it('different seeds give different splits', () => {
    const splits = new Set([1, 2, 3, 4, 5].map((seed) => JSON.stringify(splitCases(SUITE, SKILL, seed))));
    expect(splits.size).toBeGreaterThan(1);
  });

  it.each([
    [/^pos/, [4, 3, 3]],
    [/^trap/, [2, 2, 1]],
    [/^sib\d/, [2, 2, 2]],
    [/^sibtrap/, [1, 1, 1]],
    [/^neg/, [3, 2, 2]],
  ] as const)('stratified for every seed: %s splits %o (ties may move one case between select and holdout)', (prefix, want) => {
    for (let seed = 0; seed < 30; seed++) {
      const c = countIn(splitCases(SUITE, SKILL, seed), prefix);
      expect(c.tune).toBe(want[0]);
      expect([c.select, c.holdout].sort()).toEqual([want[1], want[2]].sort());
    }
  });

  it('keeps traps and plain positives apart: a stratum of one trap positive is not filled with plain ones', () => {
    const cases = [...make('pos', 10, SKILL), ...make('trap', 3, SKILL, true), ...make('neg', 3, 'none')];
    for (let seed = 0; seed < 20; seed++)
      expect(countIn(splitCases(cases, SKILL, seed), /^trap/)).toEqual({ tune: 1, select: 1, holdout: 1 });
  });

  it('spreads strata of two over the seeds (tune, then select or holdout by a seeded tie)', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 30; seed++) seen.add(JSON.stringify(countIn(splitCases(make('n', 2, 'none', true), SKILL, seed), /^n/)));
    expect(seen).toEqual(new Set([JSON.stringify({ tune: 1, select: 1, holdout: 0 }), JSON.stringify({ tune: 1, select: 0, holdout: 1 })]));
  });

  it.each([0, 7, 99])('seed %i: pinned cases stay where pinned and count toward their stratum', (seed) => {
    const cases = [...make('pin', 4, SKILL, false, 'holdout'), ...make('pos', 6, SKILL), ...make('neg', 3, 'none')];
    const split = splitCases(cases, SKILL, seed);
    const at = where(split);
    for (const c of cases.filter((x) => x.pinned)) expect(at.get(c.id)).toBe('holdout');
    // 10 positives → 4/3/3: holdout holds only the 4 pinned (the pins took its 3 and one more); tune and select share the 6.
    const c = countIn(split, /^(pin|pos)/);
    expect(c.holdout).toBe(4);
    expect(c.tune + c.select).toBe(6);
    expect(c.tune).toBeGreaterThanOrEqual(3);
  });
});

describe('splitProblems', () => {
  const check = (cases: SplitCase[], seed = 1) => splitProblems(splitCases(cases, SKILL, seed), cases, SKILL);

  it('says nothing when every split has 2 positives and a negative', () => {
    expect(check(SUITE)).toEqual([]);
  });

  it.each([
    [
      'three positives: one each',
      [...make('pos', 3, SKILL), ...make('neg', 3, 'none')],
      [
        'the tune split has 1 case expecting atl-jira: add 1 more positive case (or pin some with split: tune)',
        'the select split has 1 case expecting atl-jira: add 3 more positive cases (or pin some with split: select)',
        'the holdout split has 1 case expecting atl-jira: add 3 more positive cases (or pin some with split: holdout)',
      ],
    ],
    [
      'one negative: it goes to tune',
      [...make('pos', 6, SKILL), ...make('neg', 1, 'none')],
      [
        'the select split has no case expecting another skill or none: add 2 more negative cases (expecting a sibling or none; or pin some with split: select)',
        'the holdout split has no case expecting another skill or none: add 2 more negative cases (expecting a sibling or none; or pin some with split: holdout)',
      ],
    ],
    [
      'no positive at all',
      [...make('neg', 3, 'none')],
      [
        'the tune split has 0 cases expecting atl-jira: add 4 more positive cases (or pin some with split: tune)',
        'the select split has 0 cases expecting atl-jira: add 6 more positive cases (or pin some with split: select)',
        'the holdout split has 0 cases expecting atl-jira: add 6 more positive cases (or pin some with split: holdout)',
      ],
    ],
    [
      'every positive pinned to tune',
      [...make('pin', 6, SKILL, false, 'tune'), ...make('neg', 3, 'none')],
      [
        'the select split has 0 cases expecting atl-jira: add 4 more positive cases (or pin some with split: select)',
        'the holdout split has 0 cases expecting atl-jira: add 4 more positive cases (or pin some with split: holdout)',
      ],
    ],
  ])('%s', (_, cases, want) => {
    expect(check(cases)).toEqual(want);
  });

  it('the suggested number is enough: adding it clears the message for every seed', () => {
    const base = [...make('pos', 3, SKILL), ...make('neg', 3, 'none')];
    for (let seed = 0; seed < 20; seed++) expect(check([...base, ...make('more', 3, SKILL)], seed)).toEqual([]);
  });
});

const tally = (caseId: string, role: CaseTally['role'], passes: number, trials = 3, estimate?: number): CaseTally => ({
  caseId,
  role,
  passes,
  trials,
  ...(estimate !== undefined ? { estimate } : {}),
});

describe('familyScore: mean per-case rate by role, NaN where a role has no case', () => {
  it.each([
    ['one case per role', [tally('a', 'self', 3), tally('b', 'sibling', 1), tally('c', 'none', 0)], [1, 1 / 3, 0], [1, 1, 1]],
    ['each case weighs the same', [tally('a', 'self', 1, 1), tally('b', 'self', 0, 9)], [0.5, Number.NaN, Number.NaN], [2, 0, 0]],
    ['no self case', [tally('b', 'sibling', 2), tally('c', 'none', 3)], [Number.NaN, 2 / 3, 1], [0, 1, 1]],
    ['a case without a trial is left out', [tally('a', 'self', 0, 0), tally('b', 'self', 2, 4)], [0.5, Number.NaN, Number.NaN], [1, 0, 0]],
    [
      "a design's estimate replaces the rate",
      [tally('a', 'self', 3, 3, 0.8), tally('b', 'self', 0, 3)],
      [0.4, Number.NaN, Number.NaN],
      [2, 0, 0],
    ],
    ['nothing', [], [Number.NaN, Number.NaN, Number.NaN], [0, 0, 0]],
  ] as const)('%s', (_, tallies, [recall, siblings, negatives], [self, sibling, none]) => {
    const s = familyScore(tallies);
    expect([s.recall, s.siblings, s.negatives]).toEqual([recall, siblings, negatives]);
    expect(s.cases).toEqual({ self, sibling, none });
  });
});

const many = (role: CaseTally['role'], passes: number, n = 6, prefix: string = role) =>
  Array.from({ length: n }, (_, i) => tally(`${prefix}${i}`, role, passes));

describe('roleChange: candidate − base over one role, each case a stratum', () => {
  it.each([
    ['all lost', many('self', 3), many('self', 0), 'self', { diff: -1, worse: true, better: false }],
    ['all gained', many('self', 0), many('self', 3), 'self', { diff: 1, worse: false, better: true }],
    ['unchanged', many('self', 2), many('self', 2), 'self', { diff: 0, worse: false, better: false }],
    [
      'one case of six lost: not significant',
      many('self', 3),
      [...many('self', 3, 5), tally('self5', 'self', 0)],
      'self',
      { worse: false },
    ],
    [
      'another role changed',
      [...many('self', 3), ...many('none', 3)],
      [...many('self', 3), ...many('none', 0)],
      'self',
      { diff: 0, worse: false },
    ],
    ['that role', [...many('self', 3), ...many('none', 3)], [...many('self', 3), ...many('none', 0)], 'none', { diff: -1, worse: true }],
  ] as const)('%s', (_, base, candidate, role, want) => {
    expect(roleChange(base, candidate, role)).toMatchObject(want);
  });

  it('no case of the role: NaN and [−1, 1], neither worse nor better', () => {
    expect(roleChange(many('self', 3), many('self', 3), 'sibling')).toEqual({
      diff: Number.NaN,
      lo: -1,
      hi: 1,
      worse: false,
      better: false,
    });
  });

  it("uses the designs' estimates when both runs have one", () => {
    const base = [tally('a', 'self', 3, 3, 0.9)];
    expect(roleChange(base, [tally('a', 'self', 3, 3, 0.7)], 'self').diff).toBeCloseTo(-0.2, 12);
    expect(roleChange(base, [tally('a', 'self', 3, 3)], 'self').diff).toBe(0);
  });
});

const evaluated = (description: string, tune: CaseTally[], select?: CaseTally[]): Evaluated => ({
  description,
  tune,
  ...(select ? { select } : {}),
});

describe('droppedOnTune', () => {
  const original = evaluated('Jira issues and sprints', many('self', 3));
  it.each([
    ['significantly worse recall', evaluated('other', many('self', 0)), 'worse-on-tune'],
    ['the same recall', evaluated('other', many('self', 3)), undefined],
    ['better recall', evaluated('other', many('self', 3)), undefined],
    ['one case lost', evaluated('other', [...many('self', 3, 5), tally('self5', 'self', 0)]), undefined],
    ['the same text', evaluated('Jira issues and sprints', many('self', 3)), 'duplicate'],
    ['the same text but for spaces', evaluated('  Jira issues   and sprints ', many('self', 3)), 'duplicate'],
  ] as const)('%s → %s', (_, candidate, want) => {
    expect(droppedOnTune(original, candidate)).toBe(want);
  });
});

describe('droppedOnSelect', () => {
  const select = [...many('self', 1), ...many('sibling', 3), ...many('none', 3)];
  const original = evaluated('orig', [], select);
  it.each([
    ['higher recall, constraints kept', [...many('self', 2), ...many('sibling', 3), ...many('none', 3)], undefined],
    ['the same recall', select, 'not-better'],
    ['lower recall', [...many('self', 0), ...many('sibling', 3), ...many('none', 3)], 'not-better'],
    ['higher recall but siblings lost', [...many('self', 3), ...many('sibling', 0), ...many('none', 3)], 'constraint'],
    ['higher recall but negatives lost', [...many('self', 3), ...many('sibling', 3), ...many('none', 0)], 'constraint'],
    [
      'higher recall, one negative lost (not significant)',
      [...many('self', 3), ...many('sibling', 3), ...many('none', 3, 5), tally('none5', 'none', 1)],
      undefined,
    ],
  ] as const)('%s → %s', (_, candidateSelect, want) => {
    expect(droppedOnSelect(original, evaluated('cand', [], [...candidateSelect]))).toBe(want);
  });

  it('a tie on select at the ceiling is broken by the tune cases: a candidate better on tune reaches the holdout', () => {
    const ceiling = [...many('self', 3), ...many('none', 3)];
    const orig = evaluated('orig', many('self', 1), ceiling);
    const learnt = evaluated('cand', many('self', 3), ceiling);
    expect(droppedOnSelect(orig, learnt)).toBeUndefined();
    expect(chooseWinner(orig, [learnt])).toBe(0);
    // A tie on both is no better.
    expect(droppedOnSelect(orig, evaluated('same', many('self', 1), ceiling))).toBe('not-better');
    expect(chooseWinner(orig, [evaluated('same', many('self', 1), ceiling)])).toBe('original');
  });

  it('no positive in the select split: never better', () => {
    const neg = many('none', 3);
    expect(droppedOnSelect(evaluated('o', [], neg), evaluated('c', [], neg))).toBe('not-better');
  });
});

describe('chooseWinner: highest select recall; ties by fewer characters, then earlier', () => {
  const original = evaluated('original', many('self', 2), [...many('self', 1), ...many('none', 3)]);
  const cand = (description: string, selfPasses: number, dropped?: DropReason) => ({
    ...evaluated(description, many('self', 2), [...many('self', selfPasses), ...many('none', 3)]),
    ...(dropped ? { dropped } : {}),
  });
  it.each([
    ['the highest recall', [cand('aaaa', 2), cand('bbbbbbbb', 3)], 1],
    ['a tie: fewer characters', [cand('aaaaaaaa', 3), cand('bbbb', 3)], 1],
    ['a tie in characters too: the earlier', [cand('aaaa', 3), cand('bbbb', 3)], 0],
    ['a dropped candidate never wins', [cand('aaaa', 3, 'lint'), cand('bbbb', 2)], 1],
    ['none above the original', [cand('aaaa', 1), cand('bbbb', 0)], 'original'],
    ['none evaluated on select', [{ ...evaluated('aaaa', many('self', 3)) }], 'original'],
    ['all dropped', [cand('aaaa', 3, 'constraint'), cand('bbbb', 3, 'no-proposal')], 'original'],
    ['a duplicate of the original', [cand('original', 3)], 'original'],
    ['no candidate', [], 'original'],
  ] as const)('%s → %s', (_, candidates, want) => {
    expect(chooseWinner(original, candidates)).toBe(want);
  });
});

/** count pairs of (original, winner) for a role, numbered per case. */
const pairs = (role: HoldoutPair['role'], spec: [boolean | null, boolean | null, number][]): HoldoutPair[] => {
  let k = 0;
  return spec.flatMap(([original, winner, count]) =>
    Array.from({ length: count }, () => {
      k++;
      return { caseId: `${role}-${Math.floor(k / 3)}`, role, n: (k % 3) + 1, original, winner };
    }),
  );
};

describe('holdoutComparison: McNemar per role, IMPROVED only on recall with no constraint worse', () => {
  const keepSiblings = pairs('sibling', [[true, true, 6]]);
  const keepNegatives = pairs('none', [[true, true, 6]]);
  it.each([
    [
      '10 discordant, all for the winner',
      pairs('self', [
        [false, true, 10],
        [true, true, 5],
      ]),
      'IMPROVED',
    ],
    [
      '5 discordant, all for the winner: p 0.0625',
      pairs('self', [
        [false, true, 5],
        [true, true, 10],
      ]),
      'NO SIGNIFICANT CHANGE',
    ],
    [
      '10 to 1 for the winner',
      pairs('self', [
        [false, true, 10],
        [true, false, 1],
      ]),
      'IMPROVED',
    ],
    [
      '10 to 3 for the winner: p 0.092',
      pairs('self', [
        [false, true, 10],
        [true, false, 3],
      ]),
      'NO SIGNIFICANT CHANGE',
    ],
    ['10 discordant, all for the original', pairs('self', [[true, false, 10]]), 'WORSE'],
    ['recall gained, negatives lost', [...pairs('self', [[false, true, 10]]), ...pairs('none', [[true, false, 8]])], 'WORSE'],
    ['recall gained, siblings lost', [...pairs('self', [[false, true, 10]]), ...pairs('sibling', [[true, false, 8]])], 'WORSE'],
    [
      'recall gained, negatives down but not significantly',
      [...pairs('self', [[false, true, 10]]), ...pairs('none', [[true, false, 3]])],
      'IMPROVED',
    ],
    [
      'no change at all',
      pairs('self', [
        [true, true, 6],
        [false, false, 6],
      ]),
      'NO SIGNIFICANT CHANGE',
    ],
    [
      'nulls are left out, not scored as misses',
      pairs('self', [
        [null, true, 10],
        [false, false, 3],
      ]),
      'NO SIGNIFICANT CHANGE',
    ],
    [
      'a null winner is left out too',
      pairs('self', [
        [true, null, 10],
        [true, true, 3],
      ]),
      'NO SIGNIFICANT CHANGE',
    ],
  ] as const)('%s → %s', (_, own, verdict) => {
    const r = holdoutComparison([
      ...own,
      ...(own.some((p) => p.role === 'sibling') ? [] : keepSiblings),
      ...(own.some((p) => p.role === 'none') ? [] : keepNegatives),
    ]);
    expect(r.verdict).toBe(verdict);
  });

  it('counts, rates, p and interval of one role', () => {
    const r = holdoutComparison(
      pairs('self', [
        [false, true, 7],
        [true, false, 1],
        [true, true, 4],
        [false, false, 3],
        [null, true, 2],
        [false, null, 1],
      ]),
    );
    expect(r.left_out).toBe(3);
    expect(r.recall).toMatchObject({ pairs: 15, discordant: 8, original: 5 / 15, winner: 11 / 15 });
    expect(r.recall.diff).toBeCloseTo(6 / 15, 12);
    expect(r.recall.pValue).toBeCloseTo(mcnemarExact({ both: 4, skillOnly: 7, ablationOnly: 1, neither: 3 }), 12);
    expect(r.recall.lo).toBeLessThan(r.recall.diff);
    expect(r.recall.hi).toBeGreaterThan(r.recall.diff);
    expect(r.siblings.pairs).toBe(0);
    expect(r.siblings.diff).toBeNaN();
    expect(r.verdict).toBe('NO SIGNIFICANT CHANGE'); // p = 0.070
  });

  it('alpha sets both the test and the interval', () => {
    const own = pairs('self', [
      [false, true, 7],
      [true, false, 1],
    ]);
    const [at05, at10] = [holdoutComparison(own), holdoutComparison(own, 0.1)];
    expect([at05.verdict, at10.verdict]).toEqual(['NO SIGNIFICANT CHANGE', 'IMPROVED']);
    expect(at10.recall.hi - at10.recall.lo).toBeLessThan(at05.recall.hi - at05.recall.lo);
  });
});
