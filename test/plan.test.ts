import { afterAll, describe, expect, it } from 'vitest';
import { planSuite } from '../src/verdict/suite-plan.js';
import { capWarnings, renderPlan } from '../src/report/plan.js';
import { baseTrialsFor, planComparison } from '../src/report/plan-compare.js';
import { gradableCase } from '../src/trials/stored-case.js';
import type { Case } from '../src/load/cases.js';

/** A loaded case as the loader gives it, for the stages that take one. */
const loadedCase = (id: string): Case =>
  ({
    id,
    prompt: 'p',
    expect: { skill: 'x' },
    exclusive: false,
    tags: [],
    source: { file: 'c.yaml', line: 1, at: { id: { line: 1, col: 1 }, prompt: { line: 1, col: 1 } } },
  }) as Case;
import { trialsToDetect } from '../src/stats/sample-size.js';
import { configSchema } from '../src/run/config-schema.js';
import { baseProject, cleanup, makeProject, runInProcess } from './helpers.js';

describe('skillprobe plan', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('gives exact expected trials at p0 and p1, the fixed-N equivalent and costs, before spending anything', () => {
    const config = configSchema.parse({ decision: { minTrials: 5, maxTrials: 50 } });
    const decision = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
    const plan = planSuite(config, [{ id: 'a', expect: 'x', exclusive: false, tags: [], decision }]);
    expect(plan.cases[0]!.fixedN).toBe(78);
    expect(plan.cases[0]!.asnAtP0).toBeCloseTo(31.0, 1);
    expect(plan.cases[0]!.asnAtP1).toBeCloseTo(36.0, 1);
    expect(plan.cases[0]!.asnAtP0).toBeLessThan(78);
  });

  it("counts the judge's trials: each judged trial's items and every control, times the samples", () => {
    const config = configSchema.parse({
      trials: 4,
      arms: ['skill'],
      decision: { mode: 'fixed' },
      judge: { samples: 3, calibration: [{ item: 'a', answer: 'b', expect: 'no' }] },
    });
    const decision = { threshold: 0.9, delta: 0.2, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 4 };
    const c = (id: string, judge?: string[]) => ({ id, expect: 'x', exclusive: false, tags: [], decision, ...(judge ? { judge } : {}) });
    const plan = planSuite(config, [c('one', ['i']), c('two', ['i', 'j']), c('none')]);
    // Trial items: 4 × 1 + 4 × 2 = 12; controls: 1 × 3 + 2 × 4, plus one example = 12; three samples each.
    expect(plan.judge).toEqual({ samples: 3, trialItems: 12, controls: 12, trials: 72 });
    expect(renderPlan(plan, 0.01).replace(/\s+/g, ' ')).toContain(
      'judge: ~72 judge trials beside them (12 judged items of those trials and 12 controls and examples, 3 samples each) · $0.72',
    );
    expect(planSuite(config, [c('none')]).judge).toBeUndefined();
  });

  it('prints per case and totals, with costs from --price-per-trial, and spawns nothing', async () => {
    const config = 'decision:\n  delta: 0.1\n  maxTrials: 50\n  tags:\n    happy: { threshold: 0.95, delta: 0.1 }\n';
    const withPlan = baseProject()['cases/main.yaml']!.replace('  tags: [happy]', '  tags: [happy]\n  plan: { matches: ["alpha"] }');
    const dir = makeProject({ ...baseProject(), 'cases/main.yaml': withPlan, 'skillprobe.config.yaml': config });
    dirs.push(dir);
    const r = await runInProcess(['plan', '--price-per-trial', '0.5'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    // A positive case with plan checks runs both arms; a negative case runs only the skill arm, and is priced so.
    expect(r.stdout).toMatch(/pos-alpha\s+0\.95 vs 0\.85\s+0\.05\/0\.2\s+\S+\s+5–50 \(of \d+\)\s+2\s/);
    // maxTrials 50 caps a design that decides by ~100: said per case, with the odds of INCONCLUSIVE and the best β at 50.
    // Each case has a row in the design table, then one in the table of expected trials and costs.
    const [design, trials] = r.stdout.split('\n').filter((l) => l.startsWith('neg-weather'));
    const [, exactAlpha, exactBeta, designMax] = /0\.05\/0\.2\s+([\d.]+)\/([\d.]+)\s+5–50 \(of (\d+)\)/.exec(design!)!;
    expect(Number(exactAlpha)).toBeLessThanOrEqual(0.05);
    expect(Number(exactBeta)).toBeLessThanOrEqual(0.2);
    expect(Number(designMax)).toBeGreaterThan(78);
    expect(trials).toMatch(/\s78\s+\$[\d.]+\s+\$39\.00$/);
    // The warning is prose, wrapped to the report's width.
    const prose = r.stdout.replace(/\s*\n\s*/g, ' ');
    const warning = `warning: case neg-weather: maxTrials 50 is below the ${designMax} by which its design decides`;
    expect(prose).toMatch(new RegExp(`${warning}: it ends INCONCLUSIVE with chance \\d+% at p0`));
    expect(prose).toMatch(/no test of 50 trials holds α 0\.05 with β below 0\.34/);
    expect(r.stdout).toMatch(/total: sequential \$[\d.]+ vs fixed N \$[\d.]+/);
  });

  it('without a cap every case is decided by its design: no INCONCLUSIVE, exact α and β at or under nominal, no warning', () => {
    const config = configSchema.parse({ decision: { threshold: 0.9, delta: 0.1, minTrials: 5 } });
    const c = gradableCase(loadedCase('a'), config);
    const plan = planSuite(config, [c]);
    const row = plan.cases[0]!;
    expect(row.design).toMatchObject({ kind: 'optimal' });
    expect(row.params.maxTrials).toBe(row.design.maxTrials);
    expect([row.inconclusiveAtP0, row.inconclusiveAtP1]).toEqual([0, 0]);
    expect(row.alpha).toBeLessThanOrEqual(0.05);
    expect(row.beta).toBeLessThanOrEqual(0.2);
    expect(row.worst.expectedTrials).toBeLessThanOrEqual(0.7 * 78);
    expect(capWarnings(plan)).toEqual([]);
    expect(renderPlan(plan)).not.toMatch(/warning/);
  });
});

describe('fixed mode with a delta finer than any sequential design', () => {
  it('is allowed, and its cases store no design (building one would take minutes)', () => {
    const config = configSchema.parse({ decision: { mode: 'fixed', threshold: 0.99, delta: 0.005 } });
    const c = gradableCase(loadedCase('tight'), config);
    expect(c.design).toBeUndefined();
    expect(c.decision.maxTrials).toBeGreaterThan(1000);
    // Within the limit, a fixed-mode case stores the sequential design, which `plan` shows beside fixed N.
    expect(
      gradableCase(loadedCase('ok'), configSchema.parse({ decision: { mode: 'fixed', threshold: 0.9, delta: 0.2 } })).design,
    ).toMatchObject({ kind: 'optimal' });
  });
});

describe('skillprobe plan beyond the fixed-N search', () => {
  it('prices a case with no fixed N at the limit and marks the totals as lower bounds, never NaN', () => {
    const config = configSchema.parse({});
    const decision = { threshold: 0.99, delta: 0.002, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
    const text = renderPlan(planSuite(config, [{ id: 'tight', expect: 'x', exclusive: false, tags: [], decision }]), 0.01);
    expect(text).not.toMatch(/NaN/);
    expect(text).toMatch(/tight .* >5000 .*\$\d+\.\d\d\s+>\$50\.00/);
    expect(text).toMatch(/total: sequential \$[\d.]+ vs fixed N ≥ \$50\.00/);
  });
});

describe('skillprobe plan --compare', () => {
  const dir = makeProject(baseProject());
  afterAll(() => cleanup(dir));

  it("gives the trials per case in each run to catch a drop, alone and corrected across the suite's cases", async () => {
    const r = await runInProcess(['plan', '--compare', '--from', '0.9', '--to', '0.75', '--price-per-trial', '0.01'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const perCase = trialsToDetect(0.9, 0.75, 0.05, 0.8);
    const across = trialsToDetect(0.9, 0.75, 0.05 / 2, 0.8);
    expect(across).toBeGreaterThan(perCase);
    expect(r.stdout).toContain(`${perCase} trials per case in each run, for one case tested alone`);
    expect(r.stdout).toContain(`${across} trials per case in each run, when the drop is in one of 2 cases`);
    expect(r.stdout).toContain(`(both runs, 2 case-arms each: $${(2 * across * 2 * 0.01).toFixed(2)})`);
    expect(r.stdout).toContain(`skillprobe run --mode fixed -n ${across}`);
    // The suite runs sequentially: the suite-level canary on those runs is priced beside the fixed-N one.
    expect(r.stdout).toMatch(/suite-level canary, on the runs the suite makes anyway/);
    expect(r.stdout).toMatch(/about \d+ trials per run at 0\.9 \(both runs: \$\d+\.\d\d\)/);
    expect(r.stdout).toMatch(
      /flags the drop in every case with power \d+(\.\d)?%, in one case alone with \d+(\.\d)?% \(exact, at α 0\.05\)/,
    );
  });

  it('prices the baseline canary against the base --for-baseline makes (at least the fixed-N size): fewer candidate trials, the power its exact programme gives', async () => {
    const r = await runInProcess(['plan', '--compare', '--from', '0.9', '--to', '0.6'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    const across = trialsToDetect(0.9, 0.6, 0.05 / 2, 0.8);
    const m =
      /baseline canary .* against a base of (\d+) per case: about (\d+) candidate trials when every case passes at 0\.9 and nothing moved, (\d+) when one case drops \((\d+) case-arms: the ablation arm's trials included; at most (\d+) per case and arm; exact, every case run to its end\), against (\d+) for the fixed-N candidate.* flags the drop in one case with power (\d+)%/.exec(
        text,
      );
    expect(m, text).not.toBeNull();
    const [base, unchanged, oneDrop, caseArms, cap, fixed, power] = m!.slice(1).map(Number) as number[] as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    // The base: enough to flag the drop as the fixed-N canary does, and to rule every case UNCHANGED under no change.
    expect(base).toBe(baseTrialsFor(2, 0.9, 0.6, 0.05, 0.8));
    expect(base).toBeGreaterThanOrEqual(across);
    expect(fixed).toBe(caseArms * across);
    expect(unchanged).toBeLessThan(fixed);
    expect(oneDrop).toBeLessThan(fixed);
    // The candidate trials per case and arm: no more than the cap.
    expect(unchanged / caseArms).toBeLessThanOrEqual(cap);
    expect(cap).toBeLessThanOrEqual(4 * base);
    expect(power).toBeGreaterThanOrEqual(80);
    expect(text).toContain('skillprobe run --baseline BASE --margin 0.30');
    expect(text).toContain(`skillprobe run --for-baseline --margin 0.30 (once: the base, ${base} per case)`);
    expect(text).toMatch(/against a run at the default design it cannot rule out a drop of 0\.30, and its cases end UNDECIDED \(exit 3\)/);
  });

  it("counts the ablation arm's candidate trials: where it scores, each candidate trial runs in both arms", () => {
    const skillOnly = planComparison(0.9, 0.6, 0.05, 0.8, { cases: 4, caseArms: 4, minTrials: 6 });
    const withAblation = planComparison(0.9, 0.6, 0.05, 0.8, { cases: 4, caseArms: 7, minTrials: 6 });
    expect(withAblation.baseline.unchangedTrials).toBeCloseTo((7 / 4) * skillOnly.baseline.unchangedTrials, 9);
    expect(withAblation.baseline.oneDropTrials).toBeCloseTo((7 / 4) * skillOnly.baseline.oneDropTrials, 9);
  });

  it.each<[string, string[], RegExp]>([
    ['a drop that rises', ['--compare', '--from', '0.7', '--to', '0.9'], /--to: a drop must end below where it starts/],
    ['--from without --compare', ['--from', '0.7'], /--from: only means something with --compare/],
    ['a power of 1', ['--compare', '--power', '1'], /--power must be a number strictly between 0 and 1/],
  ])('%s: exit 2', async (_, args, says) => {
    const r = await runInProcess(['plan', ...args], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(says);
  });
});
