import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/run/config-schema.js';
import { trialKey, type GradableCase, type StoredCanary, type TrialOutcome, type TrialRef } from '../src/run/schema.js';
import { sequentialVerdict } from '../src/verdict/verdict.js';
import { buildDesign } from '../src/stats/case-design.js';
import { differingPaths, resumeChanges } from '../src/runner/resume.js';
import { CostCappedScheduler, IsolationStopScheduler, ReplayingScheduler } from '../src/trials/replay.js';
import { FixedScheduler, SequentialScheduler, type TrialScheduler } from '../src/trials/schedule.js';
import { asCanaryResume, runOptionsFrom } from '../src/cli/run-options.js';
import { handMadeManifest } from './run-fixtures.js';

const DECISION = { threshold: 0.9, delta: 0.3, alpha: 0.05, beta: 0.2, minTrials: 3, maxTrials: 12 };
const CASES: GradableCase[] = ['a', 'b', 'c'].map((id) => ({ id, expect: 'alpha', exclusive: false, tags: [], decision: DECISION }));

/** A deterministic outcome per trial, as the seeded simulator gives: the same trial always ends the same. */
const outcome = (ref: TrialRef): boolean => (ref.caseId === 'a' ? true : ref.caseId === 'b' ? ref.n % 3 !== 0 : ref.n % 2 === 0);

/** Runs a scheduler to the end with `concurrency` trials in flight, finishing the oldest first; the trials it ran, in order. */
function drive(s: TrialScheduler, concurrency: number, stopAfter = Infinity): TrialRef[] {
  const ran: TrialRef[] = [];
  const running: TrialRef[] = [];
  for (;;) {
    while (running.length < concurrency && ran.length + running.length < stopAfter) {
      const ref = s.next();
      if (!ref) break;
      running.push(ref);
    }
    const done = running.shift();
    if (!done) return ran;
    s.finished(done, outcome(done));
    ran.push(done);
  }
}

const keys = (refs: TrialRef[]) => refs.map(trialKey).sort();

/** A graded outcome as verdicts read it. */
const graded = (ref: TrialRef): TrialOutcome => ({
  ...ref,
  status: 'ok',
  passed: outcome(ref),
  firings: [],
  firedColumn: 'alpha',
  fired: 'expected',
  readOnly: false,
  flags: { noop: false, clarifying: false },
  parseWarnings: 0,
});
const decisions = (refs: TrialRef[], cases = CASES) =>
  cases.map((c) => sequentialVerdict(c, refs.map(graded))).map((v) => [v.caseId, v.verdict, v.decidedAt, v.llr, v.estimate?.rate]);

/** The same cases under the design that always decides, built and stored as a run stores them. */
const UNCAPPED = { ...DECISION, maxTrials: undefined };
const DESIGNED: GradableCase[] = CASES.map((c) => {
  const built = buildDesign(UNCAPPED, 'sequential');
  return { ...c, decision: built.params, design: built.design };
});

describe('ReplayingScheduler: a resumed run takes the decisions of an uninterrupted one', () => {
  const rows = [1, 2, 4].flatMap((concurrency) => [3, 7, 11].map((cut) => ({ concurrency, cut })));

  it.each(rows)(
    'fixed design, concurrency $concurrency, interrupted after $cut trials: exactly the same trials',
    ({ concurrency, cut }) => {
      const make = () => new FixedScheduler(CASES, ['skill'], 5, 'scored');
      const whole = drive(make(), concurrency);
      const first = drive(make(), concurrency, cut);
      const stored = new Map(first.map((r) => [trialKey(r), outcome(r)]));
      const resumed = new ReplayingScheduler(make(), stored);
      const rest = drive(resumed, concurrency);
      // Nothing stored runs twice, and together they are exactly the uninterrupted run's trials.
      expect(rest.filter((r) => stored.has(trialKey(r)))).toEqual([]);
      expect(keys([...first, ...rest])).toEqual(keys(whole));
      expect(resumed.replayed).toHaveLength(cut);
      expect(resumed.exhausted()).toBe(true);
    },
  );

  it.each(rows)('SPRT, concurrency $concurrency, interrupted after $cut trials: the same decisions', ({ concurrency, cut }) => {
    const make = () => new SequentialScheduler(CASES, ['skill'], 'scored');
    const whole = drive(make(), concurrency);
    const first = drive(make(), concurrency, cut);
    expect(first.length).toBeLessThan(whole.length);
    const stored = new Map(first.map((r) => [trialKey(r), outcome(r)]));
    const rest = drive(new ReplayingScheduler(make(), stored), concurrency);
    expect(rest.filter((r) => stored.has(trialKey(r)))).toEqual([]);
    // Which in-flight trials run past a decision depends on timing, in any run; the decisions do not.
    expect(decisions([...first, ...rest])).toEqual(decisions(whole));
    expect(decisions(whole).map((d) => d[1])).toEqual(['PASS', 'INCONCLUSIVE', 'FAIL']);
  });

  it.each(rows)(
    'the design that always decides, concurrency $concurrency, interrupted after $cut trials: the same decisions, every case decided',
    ({ concurrency, cut }) => {
      const make = () => new SequentialScheduler(DESIGNED, ['skill'], 'scored');
      const whole = drive(make(), concurrency);
      const first = drive(make(), concurrency, cut);
      const stored = new Map(first.map((r) => [trialKey(r), outcome(r)]));
      const rest = drive(new ReplayingScheduler(make(), stored), concurrency);
      expect(decisions([...first, ...rest], DESIGNED)).toEqual(decisions(whole, DESIGNED));
      // Case b passes 2 in 3 and case c 1 in 2: between p1 0.6 and p0 0.9 or below, where Wald's capped test left b undecided.
      expect(decisions(whole, DESIGNED).map((d) => d[1])).toEqual(['PASS', 'FAIL', 'FAIL']);
    },
  );

  it('a trial stored without evidence is replayed as such, not run again', () => {
    const stored = new Map<string, boolean | undefined>([['a/skill/1', undefined]]);
    const s = new ReplayingScheduler(new FixedScheduler(CASES.slice(0, 1), ['skill'], 2, 'scored'), stored);
    expect(s.next()).toEqual({ caseId: 'a', arm: 'skill', n: 2 });
    expect(s.replayed).toEqual([{ caseId: 'a', arm: 'skill', n: 1 }]);
  });
});

describe('CostCappedScheduler', () => {
  it('stops handing out trials once the cost reaches the cap, and counts what was spent before', () => {
    const s = new CostCappedScheduler(new FixedScheduler(CASES, ['skill'], 5, 'scored'), 1, 0.4);
    expect(s.next()).toBeDefined();
    s.spend(0.5);
    expect(s.capped).toBe(false);
    expect(s.next()).toBeDefined();
    s.spend(0.1);
    expect(s.capped).toBe(true);
    expect(s.next()).toBeUndefined();
    expect(s.exhausted()).toBe(true);
    expect(s.spent).toBeCloseTo(1.0);
  });
  it('a trial that reports no cost spends nothing', () => {
    const s = new CostCappedScheduler(new FixedScheduler(CASES, ['skill'], 1, 'scored'), 0.5);
    s.spend(undefined);
    expect(s.capped).toBe(false);
  });
});

describe('resumeChanges names what changed since a run started', () => {
  const base = handMadeManifest(CASES, 0, { skills: [{ dir: 'alpha', name: 'alpha', hash: 'h1' }], skillsHash: 'sk1' });
  const table: [string, Partial<typeof base>, RegExp | null][] = [
    ['nothing', {}, null],
    ['a skill', { skills: [{ dir: 'alpha', name: 'alpha', hash: 'h2' }], skillsHash: 'sk2' }, /^skills \(alpha: sk1 → sk2\)$/],
    ['the case files', { cases: { ...base.cases, hash: 'z' } }, /^case files/],
    ['the selection', { cases: { ...base.cases, defs: CASES.slice(1) } }, /selected cases/],
    [
      'a decision parameter',
      { config: configSchema.parse({ arms: ['skill'], decision: { threshold: 0.8 } }) },
      /^config \(decision\.threshold\)$/,
    ],
    [
      'the timeout',
      { config: configSchema.parse({ arms: ['skill'], timeouts: { trialSeconds: 60 } }) },
      /^config \(timeouts\.trialSeconds\)$/,
    ],
    ['only the concurrency (free to change)', { config: configSchema.parse({ arms: ['skill'], concurrency: 7 }) }, null],
    ['only the cost cap (free to change)', { config: configSchema.parse({ arms: ['skill'], maxCostUsd: 3 }) }, null],
    ['the agent binary', { agent: { ...base.agent, binary: '/other/claude' } }, /^agent binary/],
    ['the simulator', { simulator: { profile: 'p.yaml', name: 'p', seed: 2 } }, /^simulator profile/],
    [
      "a case's fixtures (the user's files)",
      {
        cases: { ...base.cases, defs: CASES.map((c) => (c.id === 'b' ? { ...c, fixtures: { hash: 'f2', instructions: false } } : c)) },
        fixturesHash: 'fx2',
      },
      /^fixtures \(the user's files of b: none → fx2\)$/,
    ],
  ];
  it.each(table)('%s', (_name, over, expected) => {
    const changes = resumeChanges(base, { ...base, ...over }, '2.1.197');
    if (expected === null) expect(changes).toEqual([]);
    else {
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatch(expected);
    }
  });
  it('a shard resumed without its --shard (or with another) is named as the shard, not as a selection', () => {
    const shard = { index: 1, total: 3, suiteCases: CASES.map((c) => c.id) };
    const stored = { ...base, shard, cases: { ...base.cases, defs: CASES.slice(0, 1) } };
    expect(resumeChanges(stored, base, '2.1.197')).toEqual(['the shard (--shard 1/3 → none)']);
    expect(resumeChanges(stored, { ...stored, shard: { ...shard, index: 2 } }, '2.1.197')).toEqual(['the shard (--shard 1/3 → 2/3)']);
    expect(resumeChanges(stored, stored, '2.1.197')).toEqual([]);
  });
  it("an edited fixture is named by its case; a case's fixtures that did not change are not", () => {
    const withFixtures = (hashOfB: string, fixturesHash: string) => ({
      ...base,
      fixturesHash,
      cases: {
        ...base.cases,
        defs: CASES.map((c) => ({ ...c, fixtures: { hash: c.id === 'b' ? hashOfB : 'same', instructions: true } })),
      },
    });
    expect(resumeChanges(withFixtures('b1', 'fx1aaaaaaaa'), withFixtures('b2', 'fx2bbbbbbbb'), '2.1.197')).toEqual([
      "fixtures (the user's files of b: fx1aaaaa → fx2bbbbb)",
    ]);
    expect(resumeChanges(withFixtures('b1', 'fx1'), withFixtures('b1', 'fx1'), '2.1.197')).toEqual([]);
  });
  it('the CLI version the binary reports now', () => {
    expect(resumeChanges(base, base, '2.2.0')).toEqual(['agent CLI version (2.1.197 → 2.2.0)']);
    expect(resumeChanges(base, base, undefined)).toEqual([]);
  });
  it('a canary is checked against the --max-trials it ran under: the same cap resumes, another is named', () => {
    const canary = (maxTrials?: number): StoredCanary => ({
      base: { runId: 'base', dir: 'runs/base' },
      alpha: 0.05,
      caseAlpha: 0.05,
      margin: 0.2,
      futilityLevel: 0.95,
      stopAtFirstRegression: false,
      ...(maxTrials !== undefined ? { maxTrials } : {}),
      cases: [],
    });
    const capped = { ...base, canary: canary(8) };
    expect(resumeChanges(capped, base, '2.1.197', 8)).toEqual([]);
    expect(resumeChanges(capped, base, '2.1.197', 9)).toEqual(["the canary's cap (--max-trials 8 → 9)"]);
    expect(resumeChanges(capped, base, '2.1.197')).toEqual(["the canary's cap (--max-trials 8 → none)"]);
    expect(resumeChanges({ ...base, canary: canary() }, base, '2.1.197')).toEqual([]);
    expect(resumeChanges({ ...base, canary: canary() }, base, '2.1.197', 8)).toEqual(["the canary's cap (--max-trials none → 8)"]);
  });
  it("a canary resumed with the flags it ran with loads the config it ran with: --max-trials goes to the canary's cap", () => {
    const flags = { sim: 'sim.yaml', minTrials: 3, maxTrials: 8, threshold: 0.9 };
    const started = runOptionsFrom({ ...flags, baseline: 'runs/base' });
    const resumed = asCanaryResume(runOptionsFrom({ ...flags, resume: 'runs/canary' }).run);
    expect(resumed.overrides).toEqual(started.run.overrides);
    expect([started.baseline?.maxTrials, resumed.canaryMaxTrials]).toEqual([8, 8]);
    // A run that is no canary keeps --max-trials as its cases' cap.
    expect(runOptionsFrom({ ...flags, resume: 'runs/plain' }).run.overrides.decision).toMatchObject({ maxTrials: 8 });
  });
  it('differingPaths walks nested maps and compares the rest whole', () => {
    expect(differingPaths({ a: { b: 1, c: [1] }, d: 2 }, { a: { b: 1, c: [2] }, e: 3 })).toEqual(['a.c', 'd', 'e']);
    expect(differingPaths(1, 1)).toEqual([]);
  });
});

describe('IsolationStopScheduler: a run whose first trials all fail the isolation check stops, and only then', () => {
  const LEAK = 'skills from outside the family reached the model: skill-creator';
  const run = (statuses: string[], firstTrials = 3) => {
    const s = new IsolationStopScheduler(new FixedScheduler(CASES, ['skill'], 5, 'scored'), firstTrials);
    for (const status of statuses) {
      s.next();
      s.trialEnded(status, status === 'isolation_error' ? LEAK : undefined);
    }
    return { because: s.stoppedBecause, next: s.next(), exhausted: s.exhausted() };
  };
  it.each([
    ['the first wave all isolation errors', ['isolation_error', 'isolation_error', 'isolation_error'], LEAK],
    ['one of the first wave scored', ['isolation_error', 'ok', 'isolation_error', 'isolation_error'], undefined],
    ['fewer than the first wave so far', ['isolation_error', 'isolation_error'], undefined],
    ['isolation errors only after the first wave', ['ok', 'ok', 'ok', 'isolation_error', 'isolation_error', 'isolation_error'], undefined],
    ['an agent error among them is no isolation evidence', ['isolation_error', 'agent_error', 'isolation_error'], undefined],
  ])('%s', (_what, statuses, because) => {
    const r = run(statuses);
    expect(r.because).toBe(because);
    expect(r.exhausted).toBe(because !== undefined);
    expect(r.next === undefined).toBe(because !== undefined);
  });

  it('names each problem with how many of the first trials named it', () => {
    const s = new IsolationStopScheduler(new FixedScheduler(CASES, ['skill'], 5, 'scored'), 3);
    s.trialEnded('isolation_error', 'a');
    s.trialEnded('isolation_error', 'b');
    s.trialEnded('isolation_error', 'a');
    expect(s.stoppedBecause).toBe('a (2 of 3); b (1 of 3)');
  });
});
