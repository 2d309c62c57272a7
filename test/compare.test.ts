import { describe, expect, it } from 'vitest';
import { boschlooTest } from '../src/stats/boschloo.js';
import { adjustPValues } from '../src/stats/multiple-testing.js';
import { compareRuns } from '../src/verdict/compare.js';
import { COMPARE_DEFAULTS } from '../src/verdict/compare-defaults.js';
import { syntheticRun as run } from './run-fixtures.js';

const byCase = (c: ReturnType<typeof compareRuns>) => Object.fromEntries(c.cases.map((x) => [x.caseId, x]));

describe('compare: constructed run pairs with known answers', () => {
  it('a clear drop is REGRESSED, with Boschloo\'s p corrected by Benjamini–Hochberg, and exits 1', () => {
    const base = run({ drop: { passes: 48, n: 50 }, same: { passes: 45, n: 50 }, up: { passes: 30, n: 50 } });
    const cand = run({ drop: { passes: 30, n: 50 }, same: { passes: 45, n: 50 }, up: { passes: 48, n: 50 } });
    const c = compareRuns(base, cand);
    const raw = [[48, 30], [45, 45], [30, 48]].map(([b, k]) => boschlooTest(b!, 50, k!, 50).twoSided);
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

  it('the same numbers twice: nothing regressed, exit 0', () => {
    const cases = { a: { passes: 18, n: 20 }, b: { passes: 10, n: 20 }, c: { passes: 20, n: 20 } };
    const c = compareRuns(run(cases), run(cases));
    expect(c.cases.map((x) => x.change).filter((k) => k === 'REGRESSED' || k === 'IMPROVED')).toEqual([]);
    expect(c.cases.every((x) => x.pValue > 0.5)).toBe(true);
    expect(c.exitCode).toBe(0);
  });

  it('few trials and a visible drop: UNDECIDED, with the trials per run that would decide it', () => {
    const c = compareRuns(run({ a: { passes: 9, n: 10 } }), run({ a: { passes: 7, n: 10 } }));
    const a = byCase(c).a!;
    expect(a.change).toBe('UNDECIDED');
    expect(a.trialsToDecide).toBeGreaterThan(10);
    expect(a.reason).toContain(`about ${a.trialsToDecide} trials in each run`);
    expect(c.exitCode).toBe(0);
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

  it('runs that stopped early (SPRT) are compared with time-uniform intervals: wider than Boschloo\'s, never narrower', () => {
    const fixed = compareRuns(run({ a: { passes: 40, n: 40 } }), run({ a: { passes: 20, n: 40 } }));
    const seq = compareRuns(run({ a: { passes: 40, n: 40 } }, { mode: 'sprt' }), run({ a: { passes: 20, n: 40 } }));
    const [f, s] = [byCase(fixed).a!, byCase(seq).a!];
    expect(s.method).toBe('anytime');
    expect(s.difference.hi - s.difference.lo).toBeGreaterThan(f.difference.hi - f.difference.lo);
    expect(s.pValue).toBeGreaterThanOrEqual(f.pValue);
    expect(s.change).toBe('REGRESSED');
  });

  it('after SPRT stopping, the direction is the paired trials\' own, never the overall rates\' (which count trials past the shorter run)', () => {
    const base = { passes: 12, n: 40, order: 'P'.repeat(12) + 'F'.repeat(28) };
    const cand = { passes: 4, n: 12, order: 'F'.repeat(8) + 'P'.repeat(4) };
    const a = byCase(compareRuns(run({ a: base }, { mode: 'sprt' }), run({ a: cand }, { mode: 'sprt' }))).a!;
    // Overall the candidate's rate is higher (0.33 vs 0.30), but the 12 pairs favour the base 8 to 0.
    expect(a.difference.diff).toBeGreaterThan(0);
    expect(a.pValue).toBeLessThan(0.05);
    expect(a.change).toBe('REGRESSED');
    expect(a.reason).toContain('(paired trials)');
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
    ['a candidate stopped after one trial', (r) => Object.assign(r.manifest, { status: 'interrupted', trials: { planned: 40, finished: 1, notStarted: 39 } }), /the candidate run \(runs\/x\) is interrupted: 1 of 40 trials ran/],
    ['a candidate with its trials gone', (r) => Object.assign(r.results, { outcomes: [], summary: { ...r.results.summary, cases: r.results.summary.cases.map((c) => ({ ...c, rate: { ...c.rate, n: 0, successes: 0, p: Number.NaN } })) } }), /the candidate run has no scored trial of 2 cases: a, b/],
    ['a candidate with damaged trial files', (r) => Object.assign(r.results, { damaged: [{ path: 'trials/a/skill/3.meta.json', problem: 'not valid JSON' }] }), /the candidate run has 1 damaged trial file: trials\/a\/skill\/3\.meta\.json/],
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
    expect(compareRuns(run({ a: { passes: 48, n: 50 }, b: { passes: 8, n: 10 } }), dropped).exitCode).toBe(dropped.results.outcomes.length ? 1 : 4);
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
    const cand = run({ a: { passes: 9, n: 10 }, fresh: { passes: 5, n: 10 } }, { model: 'claude-next', skills: { 'atl-jira': 'h9', atl: 'h2', 'atl-confluence': 'h3' } });
    const c = compareRuns(base, cand);
    expect(c.crossModel).toBe(true);
    expect(c.crossAgent).toBe(false);
    expect(c.drift.facts.find((f) => f.name === 'model requested')).toMatchObject({ base: 'claude-sonnet-4-5', candidate: 'claude-next', differs: true });
    expect(c.drift.facts.find((f) => f.name === 'CLI version')).toMatchObject({ differs: false });
    expect(Object.fromEntries(c.drift.skills.map((s) => [s.name, s.state]))).toEqual({ atl: 'same', 'atl-confluence': 'added', 'atl-jira': 'changed' });
    expect(c.onlyIn).toEqual({ base: ['gone'], candidate: ['fresh'] });
    expect(c.cases.map((x) => x.caseId)).toEqual(['a']);
  });
});
