import { describe, expect, it } from 'vitest';
import type { TrialOutcome } from '../src/run/schema.js';
import type { TuneRecord } from '../src/run/tune-schema.js';
import {
  learn,
  next,
  recordOf,
  startTune,
  type CheckAnswer,
  type RunAnswer,
  type TuneAction,
  type TuneSetup,
  type TuneState,
} from '../src/tune/machine.js';
import { proposalAnswer, readProposalRequest } from '../src/tune/proposal.js';
import type { CaseRole } from '../src/tune/splits.js';
import { seededUniform } from '../src/util/random.js';

/**
 * The tune loop's state machine in process: its nested runs answered from tables (each case's pass rate under each
 * description, the proposer's answers, the family check), so every transition is seen without a CLI. A case's trial
 * n passes when a draw seeded by the run's name, the case and n falls below its rate: rates of 0 and 1 are certain.
 */
const SKILL = 'csv-report';
/** The tune split t…, the select split c…, the holdout p… (positives), s1 and n1. */
const ROLES: Record<string, CaseRole> = Object.fromEntries([
  ...['t1', 't2', 't3', 'c1', 'c2', 'p1', 'p2', 'p3'].map((id) => [id, 'self']),
  ...['ts', 'cs', 's1'].map((id) => [id, 'sibling']),
  ...['tn', 'cn', 'n1'].map((id) => [id, 'none']),
]);
const ORIGINAL = 'Summarise CSV files.';
const BETTER = 'Summarise CSV files and Excel workbooks.';

const setup = (options: Partial<TuneRecord['options']> = {}): TuneSetup => ({
  skill: SKILL,
  original: ORIGINAL,
  options: { seed: 1, iterations: 3, holdoutTrials: 6, alpha: 0.05, gain: 0.25, ...options },
  splits: { tune: ['t1', 't2', 't3', 'ts', 'tn'], select: ['c1', 'c2', 'cs', 'cn'], holdout: ['p1', 'p2', 'p3', 's1', 'n1'] },
  roles: ROLES,
  failureCases: ['t1', 't2', 't3', 'ts', 'tn'].map((id) => ({
    id,
    prompt: `prompt ${id}`,
    role: ROLES[id]!,
    expects: ROLES[id] === 'self' ? SKILL : ROLES[id] === 'sibling' ? 'pdf-tools' : 'none',
  })),
  family: [SKILL, 'pdf-tools'],
  siblings: [{ name: 'pdf-tools', description: 'PDF files.' }],
  maxChars: 1024,
});

/** A description's pass rate on each case; a case not named passes always. */
type Rates = Record<string, number>;
interface World {
  rates: Record<string, Rates>;
  /** The proposer's answers in turn (text; undefined: no text at all). */
  proposals: (string | undefined)[];
  /** Descriptions the family check refuses, with why. */
  refused?: Record<string, string>;
  trials?: number;
  costPerTrial?: number;
  /** What fires when a case fails (by default: nothing on a positive, the tuned skill on any other). */
  firesOnFail?: Record<string, string>;
  /** Runs that stop instead of finishing: by name, how. */
  stops?: Record<string, 'interrupted' | 'cost_capped'>;
}

const ALL_FAIL = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 0]));

function answerRun(world: World, state: TuneState, action: Exclude<TuneAction, { kind: 'done' | 'check' }>): RunAnswer {
  const description = action.kind === 'propose' ? undefined : (state.candidates[action.candidate]!.description ?? '') || ORIGINAL;
  const split = action.kind === 'evaluate' ? action.split : 'holdout';
  const ids = action.kind === 'propose' ? [] : state.setup.splits[split];
  const trials = action.kind === 'holdout' ? action.trials : (world.trials ?? 3);
  const outcomes = ids.flatMap((caseId) =>
    Array.from({ length: trials }, (_, i): TrialOutcome => {
      const rate = world.rates[description!]?.[caseId] ?? 1;
      const passed = seededUniform(1, action.name, caseId, String(i)) < rate;
      const onFail = world.firesOnFail?.[caseId] ?? (ROLES[caseId] === 'self' ? 'none' : SKILL);
      const fired = passed ? { self: SKILL, sibling: 'pdf-tools', none: 'none' }[ROLES[caseId]!] : onFail;
      return {
        caseId,
        arm: 'skill',
        n: i + 1,
        passed,
        firedColumn: fired,
        firings: fired === 'none' ? [] : [{ skill: fired }],
      } as unknown as TrialOutcome;
    }),
  );
  const verdicts = ids.map((caseId) => {
    const mine = outcomes.filter((o) => o.caseId === caseId);
    return { caseId, passes: mine.filter((o) => o.passed).length, scored: mine.length };
  });
  const ran = action.kind === 'propose' ? 1 : outcomes.length;
  const stop = world.stops?.[action.name];
  return {
    dir: action.name,
    status: stop ?? 'completed',
    trials: ran,
    ...(world.costPerTrial !== undefined ? { costUsd: ran * world.costPerTrial } : {}),
    results: { verdicts, outcomes } as unknown as RunAnswer['results'],
    ...(action.kind === 'propose' ? { text: world.proposals[action.candidate - 1] } : {}),
  };
}

/** Runs the machine against a world to its end: every action asked for, every note, the record and the end. */
function play(world: World, s = startTune(setup())) {
  const actions: TuneAction[] = [];
  const notes: string[] = [];
  let state = s;
  for (let action = next(state); ; action = next(state)) {
    actions.push(action);
    if (action.kind === 'done') return { actions, notes, record: recordOf(state), status: action.status, state };
    const answer: RunAnswer | CheckAnswer =
      action.kind === 'check'
        ? world.refused?.[action.description] !== undefined
          ? { problem: world.refused[action.description]! }
          : { ok: true }
        : answerRun(world, state, action);
    const learnt = learn(state, action, answer);
    state = learnt.state;
    notes.push(...learnt.notes);
  }
}

const names = (actions: TuneAction[]) =>
  actions.map((a) => (a.kind === 'done' ? `done ${a.status}` : a.kind === 'check' ? `check ${a.candidate}` : a.name));

/** The original misses t1–t3 and c1–c2 (and p1–p3 on the holdout); BETTER takes them all. */
const MISSING: Record<string, Rates> = { [ORIGINAL]: ALL_FAIL(['t1', 't2', 't3', 'c1', 'c2', 'p1', 'p2', 'p3']), [BETTER]: {} };

describe('tune machine: the original first, then proposals while the tune cases have something to teach', () => {
  it('evaluate → propose → check → evaluate → holdout → done: a better description is IMPROVED on the holdout', () => {
    const r = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)] });
    expect(names(r.actions)).toEqual([
      'iterations/0/tune',
      'iterations/0/select',
      'iterations/1/proposer',
      'check 1',
      'iterations/1/tune',
      'iterations/1/select',
      'holdout/1-2/original',
      'holdout/1-2/winner',
      'done completed',
    ]);
    expect(r.record).toMatchObject({ winner: 1, verdict: 'IMPROVED', result: BETTER });
    expect(r.record.iterations.map((i) => i.description)).toEqual([ORIGINAL, BETTER]);
    expect(r.record.holdout!.sequential).toMatchObject({ outcome: 'improved', rounds: 2, discordant: 6, winnerOnly: 6 });
    expect(r.notes).toEqual([
      'original: tune recall 0%, select recall 0%\n',
      'iteration 1: tune recall 100%, select recall 100%\n',
      'the tune cases have nothing left to learn from (no failure of iteration 1): no further iteration\n',
      'holdout: 2 trials per case, 6 of 6 discordant pairs for the winner\n',
    ]);
  });

  it("the proposer is shown the best description's tune failures, the siblings and every attempt, and only the tune cases", () => {
    const r = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)] });
    const propose = r.actions.find((a) => a.kind === 'propose')!;
    const request = readProposalRequest(propose.kind === 'propose' ? propose.prompt : '')!;
    expect(request.current).toBe(ORIGINAL);
    expect(request.failures.map((f) => [f.kind, f.prompt, f.rate])).toEqual([
      ['missed', 'prompt t1', '0/3'],
      ['missed', 'prompt t2', '0/3'],
      ['missed', 'prompt t3', '0/3'],
    ]);
    expect(request.siblings).toEqual([{ name: 'pdf-tools', description: 'PDF files.' }]);
    expect(request.attempts).toEqual([{ description: ORIGINAL, tuneScore: 0 }]);
  });

  it('an original that fails no tune case: no proposal, the holdout untouched, NO SIGNIFICANT CHANGE', () => {
    const r = play({ rates: {}, proposals: [] });
    expect(names(r.actions)).toEqual(['iterations/0/tune', 'iterations/0/select', 'done completed']);
    expect(r.record).toMatchObject({ winner: 0, verdict: 'NO SIGNIFICANT CHANGE', result: ORIGINAL });
    expect(r.record.holdout).toBeUndefined();
    expect(r.notes.at(-1)).toBe('the tune cases have nothing left to learn from (no failure of the original): no further iteration\n');
  });

  it('a negative failed only because a sibling fired: nothing to learn, and the note says why', () => {
    const r = play({ rates: { [ORIGINAL]: { tn: 0 } }, proposals: [], firesOnFail: { tn: 'pdf-tools' } });
    expect(names(r.actions)).toEqual(['iterations/0/tune', 'iterations/0/select', 'done completed']);
    expect(r.notes.at(-1)).toBe(
      'the tune cases have nothing left to learn from (no failure of the original; tn fails only because a sibling fires where no skill may, which no description of csv-report can fix (write `expect: { not: csv-report }` where a sibling may take the request)): no further iteration\n',
    );
  });

  it('the proposer learns from the best description on the tune cases, the earliest on a tie', () => {
    const [a, b] = [`${ORIGINAL} A`, `${ORIGINAL} B`];
    const partly = ALL_FAIL(['t3', 'c1', 'c2', 'p1', 'p2', 'p3']);
    const r = play({ rates: { ...MISSING, [a]: partly, [b]: partly }, proposals: [a, b, BETTER].map(proposalAnswer) });
    const currents = r.actions.flatMap((x) => (x.kind === 'propose' ? [readProposalRequest(x.prompt)!.current] : []));
    expect(currents).toEqual([ORIGINAL, a, a]);
  });

  it('--iterations caps the proposals: every one worse leaves the original, after exactly that many', () => {
    const proposals = ['a', 'b', 'c', 'd'].map((w) => proposalAnswer(`${ORIGINAL} ${w}`));
    const rates = { ...MISSING, ...Object.fromEntries(['a', 'b', 'c', 'd'].map((w) => [`${ORIGINAL} ${w}`, MISSING[ORIGINAL]!])) };
    const r = play({ rates, proposals }, startTune(setup({ iterations: 2 })));
    expect(r.actions.filter((a) => a.kind === 'propose')).toHaveLength(2);
    expect(r.record.iterations.map((i) => i.dropped)).toEqual([undefined, 'not-better', 'not-better']);
    expect(r.record).toMatchObject({ winner: 0, verdict: 'NO SIGNIFICANT CHANGE' });
  });
});

describe('tune machine: why a candidate is dropped, and what it still costs', () => {
  const worse = `${ORIGINAL} worse`;
  const lossy = `${ORIGINAL} and Excel, stealing PDFs`;
  it.each<[string, World, string, string[]]>([
    ['no <description> in the answer', { rates: MISSING, proposals: ['I would rather not.'] }, 'no-proposal', ['iterations/1/proposer']],
    ['no text at all', { rates: MISSING, proposals: [undefined] }, 'no-proposal', ['iterations/1/proposer']],
    ['the original again', { rates: MISSING, proposals: [proposalAnswer(ORIGINAL)] }, 'duplicate', ['iterations/1/proposer']],
    [
      'refused by the family check (lint, the listing budget)',
      { rates: MISSING, proposals: [proposalAnswer(BETTER)], refused: { [BETTER]: 'angle brackets' } },
      'lint',
      ['iterations/1/proposer', 'check 1'],
    ],
    [
      'significantly worse on tune: select is never run',
      { rates: { [ORIGINAL]: { tn: 0 }, [worse]: ALL_FAIL(['t1', 't2', 't3']) }, proposals: [proposalAnswer(worse)] },
      'worse-on-tune',
      ['iterations/1/proposer', 'check 1', 'iterations/1/tune'],
    ],
    [
      'better recall, siblings lost on select',
      {
        rates: { ...MISSING, [lossy]: { cs: 0, ts: 0 } },
        proposals: [proposalAnswer(lossy)],
        trials: 6,
      },
      'constraint',
      ['iterations/1/proposer', 'check 1', 'iterations/1/tune', 'iterations/1/select'],
    ],
  ])('%s → %s', (_, world, reason, runs) => {
    const r = play({ ...world }, startTune(setup({ iterations: 1 })));
    expect(r.record.iterations[1]).toMatchObject({ index: 1, dropped: reason });
    expect(names(r.actions).filter((n) => n.includes('/1/') || n === 'check 1')).toEqual(runs);
    expect(r.notes).toContain(`iteration 1: dropped (${reason}): ${r.record.iterations[1]!.detail}\n`);
    expect(r.record).toMatchObject({ winner: 0, verdict: 'NO SIGNIFICANT CHANGE', result: ORIGINAL });
    // The proposer's run is paid for and kept, whatever became of its answer.
    expect(r.record.iterations[1]!.proposer).toEqual({ dir: 'iterations/1/proposer', trials: 1 });
  });

  it('a repeat of an earlier proposal costs no trial, and the proposer is told it repeated itself', () => {
    const first = `${ORIGINAL} again`;
    const r = play({
      rates: { ...MISSING, [first]: MISSING[ORIGINAL]! },
      proposals: [proposalAnswer(first), proposalAnswer(first), proposalAnswer(BETTER)],
    });
    expect(r.record.iterations.map((i) => i.dropped)).toEqual([undefined, 'not-better', 'duplicate', undefined]);
    expect(r.record.iterations[2]!.detail).toBe('the same description as iteration 1; its trials are not run again');
    expect(names(r.actions)).not.toContain('iterations/2/tune');
    const third = r.actions.filter((a) => a.kind === 'propose')[2]!;
    expect(readProposalRequest(third.kind === 'propose' ? third.prompt : '')!.attempts).toEqual([
      { description: ORIGINAL, tuneScore: 0 },
      { description: first, tuneScore: 0 },
      // The repeat is listed again (the prompt shows a scored attempt's score, not why it was refused).
      { description: first, tuneScore: 0 },
    ]);
    expect(r.record).toMatchObject({ winner: 3, verdict: 'IMPROVED' });
  });

  it('a tie on select at the ceiling goes to the holdout when the candidate is better on tune', () => {
    const tied = `${ORIGINAL} tied`;
    // The original misses on tune only; the candidate takes tune too; both take every select case.
    const rates = { [ORIGINAL]: ALL_FAIL(['t1', 't2', 't3', 'p1', 'p2', 'p3']), [tied]: {} };
    const r = play({ rates, proposals: [proposalAnswer(tied)] }, startTune(setup({ iterations: 1 })));
    expect(r.record.iterations[1]!.dropped).toBeUndefined();
    expect(r.record).toMatchObject({ winner: 1, verdict: 'IMPROVED' });
  });
});

describe('tune machine: the holdout, sequentially', () => {
  // The draws of test/tune-holdout.test.ts's cases, which this replaces: the same case ids and run names.
  const same: Rates = { p1: 0.9, p2: 0.5, p3: 0.2, s1: 0.9, n1: 0.9 };
  /** The winner is chosen (it takes every tune and select case); on the holdout each side has its own rates. */
  const holdoutWorld = (original: Rates, winner: Rates): World => ({
    rates: { [ORIGINAL]: { ...ALL_FAIL(['t1', 't2', 't3', 'c1', 'c2']), ...original }, [BETTER]: { ...winner } },
    proposals: [proposalAnswer(BETTER)],
  });
  const holdoutRuns = (actions: TuneAction[]) => names(actions).filter((n) => n.startsWith('holdout/'));

  it('a winner that behaves as the original: sampled to the cap, NO SIGNIFICANT CHANGE with the power it had', () => {
    const r = play({ ...holdoutWorld(same, same), costPerTrial: 0.01 }, startTune(setup({ iterations: 1 })));
    expect(holdoutRuns(r.actions)).toEqual(
      [2, 4, 6].flatMap((to) => [`holdout/${to - 1}-${to}/original`, `holdout/${to - 1}-${to}/winner`]),
    );
    expect(r.record.verdict).toBe('NO SIGNIFICANT CHANGE');
    expect(r.record.result).toBe(ORIGINAL);
    const s = r.record.holdout!.sequential!;
    expect(s).toMatchObject({ outcome: 'cap', rounds: 6, cap: 6 });
    expect(s.power).toBeGreaterThan(0);
    expect(s.power).toBeLessThan(0.8);
    expect(s.dropPower.negatives).toBeLessThan(0.8);
    expect(r.record.holdout!.original).toEqual({ dir: 'holdout', trials: 30, costUsd: expect.closeTo(0.3, 12) });
    expect(r.record.holdout!.winner).toEqual({ dir: 'holdout', trials: 30, costUsd: expect.closeTo(0.3, 12) });
  });

  it('a winner far worse than the gain: the gain is ruled out before the cap, WORSE', () => {
    const r = play(
      holdoutWorld({ ...same, p1: 1, p2: 1, p3: 1 }, { ...same, p1: 0, p2: 0, p3: 0 }),
      startTune(setup({ iterations: 1, holdoutTrials: 40 })),
    );
    expect(r.record.holdout!.sequential!.outcome).toBe('ruled-out');
    expect(r.record.holdout!.sequential!.rounds).toBeLessThan(40);
    expect(r.record.verdict).toBe('WORSE');
  });

  it('--holdout-trials raised on a resume: the looks go on where the last cap stopped, in the same batches', () => {
    const r = play(holdoutWorld(same, same), startTune(setup({ iterations: 1, holdoutTrials: 9, holdoutCapsBefore: [5] })));
    expect(holdoutRuns(r.actions).filter((n) => n.endsWith('/original'))).toEqual(
      ['1-2', '3-4', '5-5', '6-7', '8-9'].map((b) => `holdout/${b}/original`),
    );
    expect(r.record.holdout!.sequential).toMatchObject({ rounds: 9, cap: 9 });
  });

  it('--gain sets the design: a winner no better is ruled out early against a gain of 0.9, not against 0.25', () => {
    const at = (gain: number) =>
      play(holdoutWorld(same, same), startTune(setup({ iterations: 1, holdoutTrials: 6, gain }))).record.holdout!.sequential!;
    expect(at(0.25)).toMatchObject({ gain: 0.25, outcome: 'cap', rounds: 6 });
    expect(at(0.9)).toMatchObject({ gain: 0.9, outcome: 'ruled-out' });
    expect(at(0.9).rounds).toBeLessThan(6);
  });
});

describe('tune machine: stopping, and replaying on resume', () => {
  it.each(['iterations/0/select', 'iterations/1/proposer', 'iterations/1/tune', 'holdout/1-2/winner'])(
    'a run interrupted at %s ends the tune there, its trials counted, no answer',
    (at) => {
      const r = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)], stops: { [at]: 'interrupted' }, costPerTrial: 0.01 });
      expect(r.status).toBe('interrupted');
      expect(names(r.actions).at(-2)).toBe(at);
      expect(r.record.verdict).toBeUndefined();
      expect(r.record.result).toBeUndefined();
      const full = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)], costPerTrial: 0.01 });
      const upTo = full.actions.findIndex((a) => a.kind !== 'done' && a.kind !== 'check' && a.name === at);
      const ran = full.actions.slice(0, upTo + 1).filter((a) => a.kind !== 'check');
      expect(r.record.trials).toBeGreaterThan(0);
      expect(ran.length).toBe(r.actions.filter((a) => a.kind !== 'check' && a.kind !== 'done').length);
    },
  );

  it('--max-cost: no run starts once the trials reported the cap, each run gets what is left, and the tune is cost_capped', () => {
    const r = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)], costPerTrial: 0.01 }, startTune(setup({ maxCostUsd: 0.2 })));
    expect(r.status).toBe('cost_capped');
    const runs = r.actions.filter((a): a is Extract<TuneAction, { kind: 'evaluate' }> => a.kind === 'evaluate');
    // 15 trials of the original on tune, 12 on select: the cap of 0.20 is passed after the first run.
    expect(runs.map((a) => [a.name, a.maxCostUsd])).toEqual([
      ['iterations/0/tune', 0.2],
      ['iterations/0/select', expect.closeTo(0.05, 12)],
    ]);
    expect(r.record.costUsd).toBeCloseTo(0.27, 12);
    expect(r.record.verdict).toBeUndefined();
  });

  it('a run stopped by its own share of the cap ends the tune cost_capped', () => {
    const r = play({ rates: MISSING, proposals: [proposalAnswer(BETTER)], stops: { 'iterations/1/tune': 'cost_capped' } });
    expect(r.status).toBe('cost_capped');
  });

  it('a resume replays the stored runs and reaches the uninterrupted answer: the same runs asked for, the same record', () => {
    const world: World = { rates: MISSING, proposals: ['no answer', proposalAnswer(BETTER)], costPerTrial: 0.01 };
    const uninterrupted = play(world);
    // Interrupted at the holdout: the runs before it are stored; the resume starts the machine afresh over them.
    const stopped = play({ ...world, stops: { 'holdout/1-2/winner': 'interrupted' } });
    expect(stopped.status).toBe('interrupted');
    const resumed = play(world);
    expect(names(resumed.actions)).toEqual(names(uninterrupted.actions));
    expect(resumed.record).toEqual(uninterrupted.record);
    expect(resumed.notes).toEqual(uninterrupted.notes);
    // And replaying learns only from the answers: the state holds no clock, no path, no random draw of its own.
    expect(JSON.parse(JSON.stringify(resumed.state))).toEqual(JSON.parse(JSON.stringify(uninterrupted.state)));
  });

  it('learn never changes the state it is given', () => {
    const s = startTune(setup());
    const before = JSON.stringify(s);
    const action = next(s);
    learn(s, action, answerRun({ rates: MISSING, proposals: [] }, s, action as Extract<TuneAction, { kind: 'evaluate' }>));
    expect(JSON.stringify(s)).toBe(before);
  });
});
