import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/run/config-schema.js';
import type { GradableCase, RunManifest, TrialOutcome } from '../src/run/schema.js';
import { baseModelChanges, planBaseTopUp, priceCanaryTopUp, priceText, type ConfiguredModel } from '../src/runner/base-top-up.js';
import type { Profile } from '../src/sim/profile.js';
import { valueHash } from '../src/util/json.js';
import { decideSequential } from '../src/stats/sequential-design.js';
import { planCanary, prescribedBaseTrials, toppedUpCap } from '../src/verdict/canary.js';
import { compareRuns } from '../src/verdict/compare.js';
import { COMPARE_DEFAULTS } from '../src/verdict/compare-defaults.js';
import { runOptionsFrom } from '../src/cli/run-options.js';
import { DECISION, syntheticRun } from './run-fixtures.js';

const defsOf = (ids: string[]): GradableCase[] =>
  ids.map((id) => ({ id, expect: 'atl-jira', exclusive: false, tags: [], decision: { ...DECISION, minTrials: 5 } }));
const options = { alpha: 0.05, margin: 0.15, power: 0.8, stopAtFirstRegression: false };
const atThreshold = () => DECISION.threshold;

describe('--top-up-baseline: the cases a base bounds, and the trials each lacks', () => {
  const ids = ['a', 'b', 'c'];
  const need = prescribedBaseTrials(3, DECISION.threshold, 0.15, 0.05, 0.8);

  it('is the size run --for-baseline gives the same cases (447 per case on the demo eleven)', () => {
    expect(prescribedBaseTrials(11, 0.9, 0.15, 0.05, 0.8)).toBe(447);
    expect(need).toBeGreaterThan(300);
  });

  it.each([
    {
      name: "a base at the default design's size: every case, each lacking up to the prescribed size; the top-up adds the largest lack",
      cases: { a: { passes: 6, n: 6 }, b: { passes: 9, n: 12 }, c: { passes: 20, n: 20 } },
      bounded: ['a', 'b', 'c'],
      lacks: { a: need - 6, b: need - 12, c: need - 20 },
    },
    {
      name: 'a base of the prescribed size, at any rate: none',
      cases: { a: { passes: need, n: need }, b: { passes: Math.round(need / 2), n: need }, c: { passes: Math.round(0.9 * need), n: need } },
      bounded: [],
      lacks: {},
    },
    {
      name: "a large base: the case near ½ it bounds, not the cases near 1 the same size rules on (the old base of 186's case)",
      cases: { a: { passes: 186, n: 186 }, b: { passes: 93, n: 186 }, c: { passes: 185, n: 186 } },
      bounded: ['b'],
      lacks: { b: need - 186 },
    },
  ])('$name', ({ cases, bounded, lacks }) => {
    const base = syntheticRun(cases);
    const planned = planCanary(base, defsOf(ids), options);
    expect(planned.boundedByBase).toEqual(bounded);
    const plan = planBaseTopUp(planned.canary, planned.boundedByBase, atThreshold, options.power);
    const expected = Object.entries(lacks);
    if (expected.length === 0) return expect(plan).toBeUndefined();
    expect(plan?.lacking.map((c) => [c.caseId, c.needs - c.trials])).toEqual(expected);
    expect(plan?.addTrials).toBe(Math.max(...Object.values(lacks)));
  });

  it('after the top-up no case is bounded, and the candidate is priced at the caps against the larger base', () => {
    const base = syntheticRun({ a: { passes: 6, n: 6 }, b: { passes: 3, n: 6 } });
    const small = planCanary(base, defsOf(['a', 'b']), options);
    const plan = planBaseTopUp(small.canary, small.boundedByBase, atThreshold, 0.8)!;
    const n = 6 + plan.addTrials;
    const topped = planCanary(syntheticRun({ a: { passes: n, n }, b: { passes: n / 2, n } }), defsOf(['a', 'b']), options);
    expect(topped.boundedByBase).toEqual([]);
    for (const [i, entry] of small.canary.cases.entries()) {
      const cap = toppedUpCap(small.canary, entry, { added: plan.addTrials, threshold: DECISION.threshold, power: 0.8 });
      expect(cap).toBe(topped.canary.cases[i]!.design.maxTrials);
      // Against the small base the same case was capped at 4 × its 6 trials or less.
      expect(cap).toBeGreaterThan(entry.design.maxTrials);
    }
    expect(toppedUpCap(small.canary, small.canary.cases[0]!, { added: plan.addTrials, threshold: 0.9, power: 0.8, maxTrials: 50 })).toBe(
      50,
    );
  });
});

describe("--top-up-baseline tops up only a base of this configuration's agent, CLI and model", () => {
  const profile = { name: 'demo', seed: 7, rules: [] } as unknown as Profile;
  const base: Pick<RunManifest, 'agent' | 'model' | 'simulator'> = {
    agent: { id: 'claude-code', binary: 'claude', cliVersion: '2.1.0' },
    model: 'sonnet',
    simulator: { profile: 'sim.yaml', name: 'demo', seed: 7, behaviourHash: valueHash(profile) },
  };
  const same: ConfiguredModel = { agent: 'claude-code', cliVersion: '2.1.0', model: 'sonnet', profile };
  it.each<[string, Partial<ConfiguredModel>, Partial<typeof base>, RegExp | undefined]>([
    ['the same agent, CLI, model and profile', {}, {}, undefined],
    ['another agent', { agent: 'codex' }, {}, /^agent claude-code → codex$/],
    ['another CLI version', { cliVersion: '2.2.0' }, {}, /^CLI 2\.1\.0 → 2\.2\.0$/],
    [
      'a base that did not record its CLI version',
      {},
      { agent: { id: 'claude-code', binary: 'claude' } },
      /^CLI version unknown → 2\.1\.0$/,
    ],
    ['another model', { model: 'opus' }, {}, /^model sonnet → opus$/],
    [
      'another simulator profile',
      { profile: { ...profile, seed: 8 } as Profile },
      {},
      /^simulator profile demo → demo \(its behaviour differs\)$/,
    ],
    ['a real model now', { profile: undefined }, {}, /^the simulator \(profile demo\) → a real model$/],
    ['a base of a real model', {}, { simulator: null }, /^a real model → the simulator \(profile demo\)$/],
  ])('%s', (_name, now, stored, says) => {
    const changes = baseModelChanges({ ...base, ...stored }, { ...same, ...now });
    if (!says) return expect(changes).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatch(says);
  });
});

describe('--top-up-baseline is priced before it runs, with the candidate', () => {
  const trial = (caseId: string, arm: 'skill' | 'ablation', costUsd?: number) =>
    ({ caseId, arm, ...(costUsd === undefined ? {} : { costUsd }) }) as TrialOutcome;
  const stored = [trial('a', 'skill', 0.1), trial('a', 'ablation', 0.1), trial('b', 'skill', 0.1)];

  it("adds the top-up's trials and cost to the candidate's most, at the base's mean cost per trial", () => {
    const price = priceCanaryTopUp('runs/base/run.json', stored, 10, 40, 10);
    expect(price.topUp).toEqual({ trials: 30, costUsd: expect.closeTo(3, 9) });
    expect(price.candidate).toEqual({ trials: 40, costUsd: expect.closeTo(4, 9) });
    const plan = { lacking: [{ caseId: 'a', trials: 6, needs: 16 }], addTrials: 10 };
    expect(priceText(plan, price, 2)).toMatch(
      /it lacks trials of the 16 per case a canary needs \(a 10\); it takes 10 more in each of its 2 cases: 30 trials \(about \$3\.00 .*\), then the candidate at most 40 trials \(about \$4\.00 .*\): at most 70 in all, about \$7\.00/,
    );
  });

  it('refuses, before anything is recorded or spawned, a top-up that passes --max-cost, naming its price', () => {
    expect(() => priceCanaryTopUp('runs/base/run.json', stored, 100, 40, 20)).toThrow(
      /runs\/base\/run\.json: --top-up-baseline adds 300 trials to the base, about \$30\.00 at its mean cost per trial, past --max-cost 20 .* raise --max-cost to at least 30/,
    );
  });

  it('a base whose trials report no cost is priced in trials only, and no cap can refuse it', () => {
    expect(priceCanaryTopUp('run.json', [trial('a', 'skill')], 10, 5, 1)).toEqual({ topUp: { trials: 10 }, candidate: { trials: 5 } });
  });
});

describe("a canary row the base bounds names the trials the base lacks of the canary's size", () => {
  it('lacks = the prescribed size − the base’s trials (not the fixed-N count of the old base size)', () => {
    const base = syntheticRun({ a: { passes: 6, n: 6 }, b: { passes: 6, n: 6 } }, { dir: 'runs/base' });
    const defs = defsOf(['a', 'b']);
    const { canary } = planCanary(base, defs, options);
    const outcomes = Array<boolean>(60).fill(true);
    const ran = Object.fromEntries(
      canary.cases.map((e) => {
        const d = decideSequential(outcomes, { p0: 0.9, p1: 0.75, ...e.design });
        return [e.caseId, { passes: d.passes, n: d.trials }];
      }),
    );
    const run = syntheticRun(ran, { mode: 'sprt', dir: 'runs/candidate' });
    const config = configSchema.parse({ arms: ['skill'], decision: { mode: 'sequential', minTrials: 5 } });
    const candidate = { ...run, manifest: { ...run.manifest, config, cases: { ...run.manifest.cases, defs }, canary } };
    const cmp = compareRuns(base, candidate, COMPARE_DEFAULTS);
    const need = prescribedBaseTrials(2, DECISION.threshold, COMPARE_DEFAULTS.margin, COMPARE_DEFAULTS.alpha, COMPARE_DEFAULTS.power);
    for (const row of cmp.cases) {
      expect(row).toMatchObject({ method: 'canary', change: 'UNDECIDED', trialsToDecide: need });
      expect(row.reason).toContain(`the base lacks ${need - 6} of the ${need} per case a canary needs`);
      expect(row.reason).toContain(`skillprobe run --resume runs/base --add-trials ${need - 6}`);
    }
  });
});

describe('--top-up-baseline on the command line', () => {
  it('only means something with --baseline, and reaches the canary when it is given', () => {
    expect(() => runOptionsFrom({ topUpBaseline: true })).toThrow(/--top-up-baseline: only means something with --baseline/);
    expect(runOptionsFrom({ baseline: 'runs/base', topUpBaseline: true }).baseline).toMatchObject({ topUpBaseline: true });
    expect(runOptionsFrom({ baseline: 'runs/base' }).baseline).toMatchObject({ topUpBaseline: false });
  });
});
