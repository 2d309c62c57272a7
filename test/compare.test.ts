import { describe, expect, it } from 'vitest';
import { boschlooTest } from '../src/stats/boschloo.js';
import { adjustPValues } from '../src/stats/multiple-testing.js';
import { truncatedProduct } from '../src/stats/combine-p-values.js';
import { anytimeDifference } from '../src/stats/confidence-sequence.js';
import { decideSequential } from '../src/stats/sequential-design.js';
import { waldDesign } from '../src/stats/sprt.js';
import { fixedTrialsDesign } from '../src/stats/stopped-binomial.js';
import { stoppedTwoSampleTest } from '../src/stats/stopped-two-sample.js';
import { compareRuns } from '../src/verdict/compare.js';
import { COMPARE_DEFAULTS, SUITE_TRUNCATION } from '../src/verdict/compare-defaults.js';
import { DECISION, syntheticRun as run } from './run-fixtures.js';

const byCase = (c: ReturnType<typeof compareRuns>) => Object.fromEntries(c.cases.map((x) => [x.caseId, x]));

describe('compare: constructed run pairs with known answers', () => {
  it("a clear drop is REGRESSED, with Boschloo's p corrected by Benjamini–Hochberg, and exits 1", () => {
    const base = run({ drop: { passes: 48, n: 50 }, same: { passes: 45, n: 50 }, up: { passes: 30, n: 50 } });
    const cand = run({ drop: { passes: 30, n: 50 }, same: { passes: 45, n: 50 }, up: { passes: 48, n: 50 } });
    const c = compareRuns(base, cand);
    const raw = [
      [48, 30],
      [45, 45],
      [30, 48],
    ].map(([b, k]) => boschlooTest(b!, 50, k!, 50).twoSided);
    const adjusted = adjustPValues(raw, 'bh');
    const x = byCase(c);
    expect(x.drop).toMatchObject({ change: 'REGRESSED', method: 'boschloo' });
    expect(x.drop!.pValue).toBeCloseTo(raw[0]!, 10);
    expect(x.drop!.pAdjusted).toBeCloseTo(adjusted[0]!, 10);
    expect(x.drop!.difference.diff).toBeCloseTo(-0.36, 10);
    expect(x.drop!.difference.hi).toBeLessThan(0);
    expect(x.up!.change).toBe('IMPROVED');
    expect(x.same!.change).not.toMatch(/REGRESSED|IMPROVED/);
    expect(c.exitCode).toBe(1);
  });

  it('the same numbers twice on 20 trials: nothing regressed, yet the cases a change of the margin is not ruled out in leave it INCONCLUSIVE (exit 3)', () => {
    const cases = { a: { passes: 18, n: 20 }, b: { passes: 10, n: 20 }, c: { passes: 20, n: 20 } };
    const c = compareRuns(run(cases), run(cases));
    expect(c.cases.map((x) => x.change).filter((k) => k === 'REGRESSED' || k === 'IMPROVED')).toEqual([]);
    expect(c.cases.every((x) => x.pValue > 0.5)).toBe(true);
    expect(byCase(c).b!.change).toBe('UNDECIDED');
    expect(c.suite).toMatchObject({ change: 'UNDECIDED' });
    expect(c.suite.reason).toMatch(/not ruled out in \d of 3 cases \(.*b.*\)/);
    expect(c.exitCode).toBe(3);
  });

  it('few trials and a visible drop: UNDECIDED, with the trials per run that would decide it', () => {
    const c = compareRuns(run({ a: { passes: 9, n: 10 } }), run({ a: { passes: 7, n: 10 } }));
    const a = byCase(c).a!;
    expect(a.change).toBe('UNDECIDED');
    expect(a.trialsToDecide).toBeGreaterThan(10);
    expect(a.reason).toContain(`about ${a.trialsToDecide} trials in each run`);
    // Never a clean pass: an undecided case is the run gate's INCONCLUSIVE.
    expect(c.exitCode).toBe(3);
  });

  it('many trials and no change: UNCHANGED, the difference interval inside ±margin', () => {
    const c = compareRuns(run({ a: { passes: 196, n: 200 } }), run({ a: { passes: 195, n: 200 } }));
    const a = byCase(c).a!;
    expect(a.change).toBe('UNCHANGED');
    expect(a.difference.lo).toBeGreaterThan(-COMPARE_DEFAULTS.margin);
    expect(a.difference.hi).toBeLessThan(COMPARE_DEFAULTS.margin);
  });

  it('a p-value significant alone is not a regression once corrected across the cases', () => {
    const steady = { passes: 25, n: 50 };
    const base = run({ hit: { passes: 40, n: 50 }, b: steady, c: steady, d: steady, e: steady, f: steady, g: steady, h: steady });
    const cand = run({ hit: { passes: 30, n: 50 }, b: steady, c: steady, d: steady, e: steady, f: steady, g: steady, h: steady });
    const hit = byCase(compareRuns(base, cand)).hit!;
    expect(hit.pValue).toBeLessThan(0.05);
    expect(hit.pAdjusted).toBeGreaterThan(0.05);
    expect(hit.change).not.toBe('REGRESSED');
  });

  it('a case stopped by its stored design is tested exactly under the design', () => {
    const wald = waldDesign({ ...DECISION, maxTrials: 200 });
    const stoppedAt = decideSequential(new Array<boolean>(40).fill(true), wald).trials;
    const fixed = compareRuns(run({ a: { passes: 40, n: 40 } }), run({ a: { passes: 20, n: 40 } }));
    const seq = compareRuns(run({ a: { passes: stoppedAt, n: stoppedAt } }, { mode: 'sprt' }), run({ a: { passes: 20, n: 40 } }));
    const [f, s] = [byCase(fixed).a!, byCase(seq).a!];
    expect(f.method).toBe('boschloo');
    expect(s.method).toBe('design');
    expect(s.base).toMatchObject({ successes: stoppedAt, n: stoppedAt });
    const exact = stoppedTwoSampleTest(
      { design: wald, trials: stoppedAt, passes: stoppedAt },
      { design: fixedTrialsDesign(40), trials: 40, passes: 20 },
    );
    expect(s.pValue).toBeCloseTo(exact.twoSided, 12);
    expect(s.change).toBe('REGRESSED');
    expect(s.reason).toContain('(under both stopping rules)');
  });

  it("a case a run stopped short of its design (interrupted) keeps the anytime-valid tests, never the design's", () => {
    const base = run({ a: { passes: 40, n: 40 } });
    // Three failures: the design cannot decide before its minimum, so the run stopped this case short of its rule.
    const cand = run({ a: { passes: 0, n: 3 } }, { mode: 'sprt' });
    const a = byCase(compareRuns(base, cand)).a!;
    expect(a.method).toBe('anytime');
    expect(a.candidate).toMatchObject({ successes: 0, n: 3 });
    const anytime = anytimeDifference(40, 40, 0, 3, 0.95);
    expect(a.difference.lo).toBeCloseTo(anytime.lo, 12);
  });

  it('a run that did not complete keeps the anytime tests for every case, also those that happened to decide', () => {
    const cand = run({ a: { passes: 0, n: 5 } }, { mode: 'sprt' });
    Object.assign(cand.manifest, { status: 'interrupted' });
    const a = byCase(compareRuns(run({ a: { passes: 14, n: 14 } }, { mode: 'sprt' }), cand)).a!;
    expect(a.method).toBe('anytime');
  });

  it('a sibling newly stealing a case is a routing change, named by column', () => {
    const base = run({ a: { passes: 38, n: 40, failedColumn: 'none' } });
    const cand = run({ a: { passes: 20, n: 40, failedColumn: 'atl-confluence' } });
    const c = compareRuns(base, cand);
    const stolen = c.routing.find((r) => r.column === 'atl-confluence');
    expect(stolen).toMatchObject({ caseId: 'a', expect: 'atl-jira' });
    expect(stolen!.base.successes).toBe(0);
    expect(stolen!.candidate.successes).toBe(20);
    expect(stolen!.pAdjusted).toBeLessThanOrEqual(0.05);
    // `none` went from 2 to 0 of 40: too small a move to be significant, so it is not listed.
    expect(c.routing.find((r) => r.column === 'none')).toBeUndefined();
  });

  it.each<[string, (r: ReturnType<typeof run>) => void, RegExp]>([
    [
      'a candidate stopped after one trial',
      (r) => Object.assign(r.manifest, { status: 'interrupted', trials: { planned: 40, finished: 1, notStarted: 39 } }),
      /the candidate run \(runs\/x\) is interrupted: 1 of 40 trials ran/,
    ],
    [
      'a candidate with its trials gone',
      (r) =>
        Object.assign(r.results, {
          outcomes: [],
          summary: {
            ...r.results.summary,
            cases: r.results.summary.cases.map((c) => ({ ...c, rate: { ...c.rate, n: 0, successes: 0, p: Number.NaN } })),
          },
        }),
      /the candidate run has no scored trial of 2 cases: a, b/,
    ],
    [
      'a candidate with damaged trial files',
      (r) => Object.assign(r.results, { damaged: [{ path: 'trials/a/skill/3.meta.json', problem: 'not valid JSON' }] }),
      /the candidate run has 1 damaged trial file: trials\/a\/skill\/3\.meta\.json/,
    ],
  ])('missing data is named and never a clean pass: %s', (_, damage, says) => {
    const cases = { a: { passes: 9, n: 10 }, b: { passes: 8, n: 10 } };
    const cand = run(cases);
    damage(cand);
    const c = compareRuns(run(cases), cand);
    expect(c.missingData.join('\n')).toMatch(says);
    expect(c.exitCode).toBe(4);
    // A regression still says so first.
    const dropped = run({ a: { passes: 2, n: 50 }, b: { passes: 8, n: 10 } });
    damage(dropped);
    expect(compareRuns(run({ a: { passes: 48, n: 50 }, b: { passes: 8, n: 10 } }), dropped).exitCode).toBe(
      dropped.results.outcomes.length ? 1 : 4,
    );
  });

  it('a run with no trial reports no model: that is no model change', () => {
    const cand = run({ a: { passes: 9, n: 10 } });
    cand.results.run.model = { requested: 'claude-sonnet-4-5' };
    const base = run({ a: { passes: 9, n: 10 } });
    base.results.run.model = { requested: 'claude-sonnet-4-5', reported: 'claude-sonnet-4-5-20250929' };
    expect(compareRuns(base, cand).crossModel).toBe(false);
    cand.results.run.model = { requested: 'claude-opus-4-1' };
    expect(compareRuns(base, cand).crossModel).toBe(true);
  });

  it('drift is always reported: a different model is named, changed and added skills are listed, cases only in one run are not compared', () => {
    const base = run({ a: { passes: 9, n: 10 }, gone: { passes: 5, n: 10 } }, { skills: { 'atl-jira': 'h1', atl: 'h2' } });
    const cand = run(
      { a: { passes: 9, n: 10 }, fresh: { passes: 5, n: 10 } },
      { model: 'claude-next', skills: { 'atl-jira': 'h9', atl: 'h2', 'atl-confluence': 'h3' } },
    );
    const c = compareRuns(base, cand);
    expect(c.crossModel).toBe(true);
    expect(c.crossAgent).toBe(false);
    expect(c.drift.facts.find((f) => f.name === 'model requested')).toMatchObject({
      base: 'claude-sonnet-4-5',
      candidate: 'claude-next',
      differs: true,
    });
    expect(c.drift.facts.find((f) => f.name === 'CLI version')).toMatchObject({ differs: false });
    expect(Object.fromEntries(c.drift.skills.map((s) => [s.name, s.state]))).toEqual({
      atl: 'same',
      'atl-confluence': 'added',
      'atl-jira': 'changed',
    });
    expect(c.onlyIn).toEqual({ base: ['gone'], candidate: ['fresh'] });
    expect(c.cases.map((x) => x.caseId)).toEqual(['a']);
    expect(c.drift.facts.map((f) => f.name)).not.toContain('judge');
  });

  it("changed fixtures (the user's files) are named as drift; runs without any show no such row", () => {
    const [base, cand] = [run({ a: { passes: 9, n: 10 } }), run({ a: { passes: 9, n: 10 } })];
    expect(compareRuns(base, cand).drift.facts.map((f) => f.name)).not.toContain('fixtures hash');
    base.manifest.fixturesHash = 'a'.repeat(64);
    cand.manifest.fixturesHash = 'b'.repeat(64);
    expect(compareRuns(base, cand).drift.facts.find((f) => f.name === 'fixtures hash')).toEqual({
      name: 'fixtures hash',
      base: 'a'.repeat(12),
      candidate: 'b'.repeat(12),
      differs: true,
    });
    cand.manifest.fixturesHash = undefined;
    expect(compareRuns(base, cand).drift.facts.find((f) => f.name === 'fixtures hash')).toMatchObject({ candidate: 'none', differs: true });
  });

  it('a changed judge (its CLI, model or samples) is named as drift; a judge in one run only too', () => {
    const judge = {
      agent: 'claude-code',
      cliVersion: '2.1.197',
      model: 'judge-a',
      self: false,
      samples: 3,
      maxFlipRate: 0.1,
      calibration: { asked: 4, missed: [] },
      calibrated: true,
      requests: 10,
      unanswered: 0,
      stability: [],
    };
    const [base, cand] = [run({ a: { passes: 9, n: 10 } }), run({ a: { passes: 9, n: 10 } })];
    base.results.judge = judge;
    cand.results.judge = { ...judge, model: 'judge-b' };
    expect(compareRuns(base, cand).drift.facts.find((f) => f.name === 'judge')).toEqual({
      name: 'judge',
      base: 'claude-code 2.1.197 · judge-a · 3 samples',
      candidate: 'claude-code 2.1.197 · judge-b · 3 samples',
      differs: true,
    });
    cand.results.judge = undefined;
    expect(compareRuns(base, cand).drift.facts.find((f) => f.name === 'judge')).toMatchObject({ candidate: 'none', differs: true });
  });
});

describe('compare: the suite-level verdict', () => {
  const cases = (n: number, passes: (i: number) => number, count = 8) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { passes: passes(i), n }]));

  it('a model update that moves every case a little: no case is significant alone, the suite REGRESSED, exit 1', () => {
    const c = compareRuns(run(cases(20, () => 20)), run(cases(20, () => 17)));
    expect(c.cases.filter((x) => x.change === 'REGRESSED')).toEqual([]);
    expect(c.suite.change).toBe('REGRESSED');
    expect(c.suite.pRegressed).toBeLessThanOrEqual(0.05);
    expect(c.suite.cases).toBe(8);
    expect(c.suite.rates.passRate.diff).toBeCloseTo(-0.15, 12);
    expect(c.suite.rates.passRate.hi).toBeLessThan(0);
    expect(c.suite.reason).toMatch(/dropped in the suite \(in one case or more\): combined p <?0\.\d+ ≤ 0\.05 over 8 cases/);
    expect(c.exitCode).toBe(1);
  });

  it('the same numbers twice: UNCHANGED, the suite pass rate within the margin, exit 0', () => {
    const same = cases(40, (i) => 36 + (i % 4));
    const c = compareRuns(run(same), run(same));
    expect(c.suite.change).toBe('UNCHANGED');
    expect(c.suite.pRegressed).toBeGreaterThan(0.5);
    expect(c.suite.pImproved).toBeGreaterThan(0.5);
    expect(c.suite.rates.passRate.lo).toBeGreaterThan(-0.15);
    expect(c.exitCode).toBe(0);
  });

  it('a few trials and no visible change: UNDECIDED, never UNCHANGED, as a change of the margin is not ruled out', () => {
    const c = compareRuns(run(cases(4, () => 3, 2)), run(cases(4, () => 3, 2)));
    expect(c.suite.change).toBe('UNDECIDED');
    expect(c.suite.reason).toContain('is not ruled out in 2 of 2 cases (c0, c1)');
    expect(c.exitCode).toBe(3);
  });

  it('every case a little better on 20 trials: IMPROVED, yet exit 3 while a case is left undecided', () => {
    const c = compareRuns(run(cases(20, () => 16)), run(cases(20, () => 20)));
    expect(c.suite.change).toBe('IMPROVED');
    expect(c.suite.pImproved).toBeLessThanOrEqual(0.05);
    expect(c.cases.some((x) => x.change === 'UNDECIDED')).toBe(true);
    expect(c.exitCode).toBe(3);
  });

  it('every case much better on 200 trials: IMPROVED, every drop ruled out, exit 0', () => {
    const c = compareRuns(run(cases(200, () => 150)), run(cases(200, () => 196)));
    expect(c.cases.every((x) => x.change === 'IMPROVED')).toBe(true);
    expect(c.suite.change).toBe('IMPROVED');
    expect(c.exitCode).toBe(0);
  });

  it('two of eleven cases break and the rest hold: never a suite UNCHANGED (its mean moves less than the margin)', () => {
    // The partial break seen through a small base: two cases 6/6 → 3/6, nine the same on 200 trials each.
    const at = (broken: number) =>
      Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`c${i}`, i < 2 ? { passes: broken, n: 6 } : { passes: 196, n: 200 }]));
    const c = compareRuns(run(at(6)), run(at(3)));
    // The mean change (−0.09) lies within ±0.15 and no drop is significant: the old rule said UNCHANGED, exit 0.
    expect(c.suite.rates.passRate.lo).toBeGreaterThan(-0.15);
    expect(c.suite.pRegressed).toBeGreaterThan(0.05);
    expect(c.suite.change).toBe('UNDECIDED');
    expect(c.suite.reason).toContain('a drop of 0.15 is not ruled out in 2 of 11 cases (c0, c1)');
    expect(c.exitCode).toBe(3);
  });

  it('no verdict contradicts another: a REGRESSED case makes the suite REGRESSED, though the combined test and the mean say nothing', () => {
    const steady = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`s${i}`, { passes: 190, n: 200 }]));
    const c = compareRuns(run({ ...steady, hit: { passes: 196, n: 200 } }), run({ ...steady, hit: { passes: 150, n: 200 } }));
    expect(byCase(c).hit!.change).toBe('REGRESSED');
    expect(c.suite.rates.passRate.lo).toBeGreaterThan(-0.15);
    expect(c.suite.change).toBe('REGRESSED');
    expect(c.suite.reason).toContain('hit REGRESSED');
    expect(c.exitCode).toBe(1);
  });

  it('names the cases that moved most, largest first', () => {
    const c = compareRuns(
      run({ a: { passes: 20, n: 20 }, b: { passes: 20, n: 20 }, d: { passes: 20, n: 20 } }),
      run({ a: { passes: 19, n: 20 }, b: { passes: 10, n: 20 }, d: { passes: 20, n: 20 } }),
    );
    expect(c.suite.moved.map((m) => m.caseId)).toEqual(['b', 'a']);
    expect(c.suite.moved[0]).toMatchObject({ diff: -0.5, change: 'REGRESSED' });
  });

  it('trigger recall and sibling confusion come from what fired: a sibling stealing trials moves both', () => {
    const c = compareRuns(
      run(cases(20, () => 20, 3)),
      run(Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`c${i}`, { passes: 14, n: 20, failedColumn: 'atl-confluence' }]))),
    );
    expect(c.suite.rates.recall.diff).toBeCloseTo(-0.3, 12);
    expect(c.suite.rates.siblingConfusion.diff).toBeCloseTo(0.3, 12);
    // No negative case: no false-trigger rate to compare.
    expect(c.suite.rates.falseTriggers.cases).toBe(0);
  });

  it('sequential runs: each case adds its exact null, less by chance than the uniform the χ² reference assumes', () => {
    // Each run stopped where its design decided: the base after 14 passes, the candidate after 8 trials.
    const base = run(
      cases(14, () => 14),
      { mode: 'sprt', maxTrials: 40 },
    );
    const cand = run(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`c${i}`, { passes: 3, n: 8, order: 'PPFPFFFF' }])), {
      mode: 'sprt',
      maxTrials: 40,
    });
    const c = compareRuns(base, cand);
    expect(c.cases.every((x) => x.method === 'design')).toBe(true);
    expect(c.suite.change).toBe('REGRESSED');
    // Each case's one-sided p-value is half its two-sided one here (the other side is 1).
    const asUniform = truncatedProduct(
      c.cases.map((k) => ({ p: k.pValue / 2 })),
      SUITE_TRUNCATION,
    );
    expect(c.suite.pRegressed).toBeLessThan(asUniform / 2);
  });
});
