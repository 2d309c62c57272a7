import { describe, expect, it } from 'vitest';
import { runHoldout, type TuneStepRunner } from '../src/commands/tune-holdout.js';
import type { Case } from '../src/load/cases.js';
import type { Skill } from '../src/load/skills.js';
import type { Config } from '../src/run/config-schema.js';
import type { TuneRecord } from '../src/run/tune-schema.js';
import type { NestedRun as StepResult } from '../src/runner/nested-run.js';
import { seededUniform } from '../src/util/random.js';
import type { CaseRole } from '../src/tune/splits.js';

/**
 * The holdout's loop in process, its steps faked: each trial passes with the chance its description has on its case,
 * drawn from the step's name, case and trial. What is run, when it stops, and what the record says.
 */
const ROLES: Record<string, CaseRole> = { p1: 'self', p2: 'self', p3: 'self', s1: 'sibling', n1: 'none' };
const CASES = Object.keys(ROLES).map((id) => ({ id }) as Case);
const ORIGINAL = [{ dir: 'original' }] as Skill[];
const WINNER = [{ dir: 'winner' }] as Skill[];

/** A step runner whose trials pass with `rates[side][case]`, recording the steps asked for. */
function fakeSteps(rates: Record<'original' | 'winner', Record<string, number>>, stopAt?: string) {
  const asked: string[] = [];
  const step: TuneStepRunner = async (name, skills, cases, config) => {
    asked.push(name);
    if (name === stopAt) return undefined;
    const side = skills === WINNER ? 'winner' : 'original';
    const outcomes = cases.flatMap((c) =>
      Array.from({ length: config.trials }, (_, i) => ({
        caseId: c.id,
        arm: 'skill',
        n: i + 1,
        passed: seededUniform(1, name, c.id, String(i)) < rates[side][c.id]!,
      })),
    );
    return { dir: name, trials: outcomes.length, costUsd: outcomes.length / 100, results: { outcomes } } as unknown as StepResult;
  };
  return { step, asked };
}

const options = (holdoutTrials: number, holdoutCapsBefore?: number[]): TuneRecord['options'] => ({
  seed: 1,
  iterations: 1,
  holdoutTrials,
  alpha: 0.05,
  gain: 0.25,
  ...(holdoutCapsBefore ? { holdoutCapsBefore } : {}),
});
const holdout = (o: TuneRecord['options'], steps: ReturnType<typeof fakeSteps>) =>
  runHoldout(steps.step, {
    options: o,
    config: { trials: 1 } as Config,
    cases: CASES,
    original: ORIGINAL,
    winner: WINNER,
    roleOf: (id) => ROLES[id]!,
    say: () => {},
  });

const same = { p1: 0.9, p2: 0.5, p3: 0.2, s1: 0.9, n1: 0.9 };

describe('runHoldout: rounds until decided, or the cap', () => {
  it('a winner that takes what the original never does: IMPROVED at the first look, nothing more run', async () => {
    const steps = fakeSteps({ original: { ...same, p1: 0, p2: 0, p3: 0 }, winner: { ...same, p1: 1, p2: 1, p3: 1 } });
    const r = await holdout(options(20), steps);
    expect(steps.asked).toEqual(['holdout/1-2/original', 'holdout/1-2/winner']);
    expect(r!.verdict).toBe('IMPROVED');
    expect(r!.holdout!.sequential).toMatchObject({ outcome: 'improved', rounds: 2, discordant: 6, winnerOnly: 6, cap: 20 });
    expect(r!.holdout!.original).toEqual({ dir: 'holdout', trials: 10, costUsd: 0.1 });
  });

  it('a winner that behaves as the original: sampled to the cap, NO SIGNIFICANT CHANGE with the power it had', async () => {
    const steps = fakeSteps({ original: same, winner: same });
    const r = await holdout(options(6), steps);
    expect(steps.asked).toEqual([2, 4, 6].flatMap((to) => [`holdout/${to - 1}-${to}/original`, `holdout/${to - 1}-${to}/winner`]));
    expect(r!.verdict).toBe('NO SIGNIFICANT CHANGE');
    const s = r!.holdout!.sequential!;
    expect(s.outcome).toBe('cap');
    expect(s.rounds).toBe(6);
    expect(s.power).toBeGreaterThan(0);
    expect(s.power).toBeLessThan(0.8);
    // One sibling and one negative case × 6 trials: too few pairs to flag a drop of 0.25.
    expect(s.dropPower.negatives).toBeLessThan(0.8);
  });

  it('a winner far worse than the gain: the gain is ruled out before the cap', async () => {
    const steps = fakeSteps({ original: { ...same, p1: 1, p2: 1, p3: 1 }, winner: { ...same, p1: 0, p2: 0, p3: 0 } });
    const r = await holdout(options(40), steps);
    expect(r!.holdout!.sequential!.outcome).toBe('ruled-out');
    expect(r!.holdout!.sequential!.rounds).toBeLessThan(40);
    expect(r!.verdict).toBe('WORSE');
  });

  it('a resume that raised the cap goes on where the last cap stopped, its rounds read back in the same batches', async () => {
    const steps = fakeSteps({ original: same, winner: same });
    await holdout(options(9, [5]), steps);
    expect(steps.asked.filter((n) => n.endsWith('/original'))).toEqual(
      ['1-2', '3-4', '5-5', '6-7', '8-9'].map((b) => `holdout/${b}/original`),
    );
  });

  it('a tune stopped mid-holdout (Ctrl-C, the cost cap) has no answer yet', async () => {
    const steps = fakeSteps({ original: same, winner: same }, 'holdout/3-4/winner');
    expect(await holdout(options(6), steps)).toBeUndefined();
  });
});
