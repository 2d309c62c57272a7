import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join, relative } from 'node:path';
import { ROOT, runInProcess, spyBinary, type Files } from './helpers.js';
import { mutateRecordSchema, type MutateRecord } from '../src/run/mutate-schema.js';
import { tuneRecordSchema, type TuneRecord } from '../src/run/tune-schema.js';

/**
 * The `tune` example (examples/tune): csv-report's description says nothing of Excel workbooks and spreadsheets, a
 * whole class of requests it should take; under the simulator's description router those requests mostly get no
 * skill. Tests take its files, with the description and the config as each scenario needs.
 */
const EXAMPLE = join(ROOT, 'examples/tune');
const SKILL = 'skills/csv-report/SKILL.md';

export const MISSING_CLASS = 'Summarise CSV files into a report with totals per column.';

function exampleFiles(dir = EXAMPLE): Files {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const file = join(e.parentPath, e.name);
        return [relative(EXAMPLE, file), readFileSync(file, 'utf8')];
      }),
  );
}

/**
 * The example with csv-report's description replaced, `config` put before the example's config, and `trials` per case
 * on the tune and select cases (the example's 2 by default).
 */
export function tuneProject(description: string, config = '', trials?: number): Files {
  const files = exampleFiles();
  files[SKILL] = files[SKILL]!.replace(`description: ${MISSING_CLASS}`, `description: ${description}`);
  const example = files['skillprobe.config.yaml']!;
  files['skillprobe.config.yaml'] = config + (trials === undefined ? example : example.replace(/^trials: \d+$/m, `trials: ${trials}`));
  return files;
}

/**
 * Runs `args` in `dir` over the tune example changed by `change`, its agent binary a spy that marks the folder if it is
 * ever started: a refusal is exit 2, no stack trace, nothing started and nothing written under transcripts/. Returns
 * the refusal's non-empty lines, for the caller to check what they name.
 */
export async function refusedNothingSpent(dir: string, change: ((f: Files) => void) | undefined, args: string[]): Promise<string[]> {
  const spy = spyBinary(dir);
  const files: Files = tuneProject(MISSING_CLASS);
  change?.(files);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), rel === 'skillprobe.config.yaml' ? `agentBinary: ${spy.path}\n${text}` : text);
  }
  const r = await runInProcess(args, { cwd: dir });
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(spy.marker)).toBe(false);
  expect(existsSync(join(dir, 'transcripts')) ? readdirSync(join(dir, 'transcripts')) : []).toEqual([]);
  return r.stderr.split('\n').filter((l) => l.trim() !== '');
}

const comparison = (original: number, winner: number, p: number) => ({
  original,
  winner,
  diff: winner - original,
  lo: winner - original - 0.2,
  hi: Math.min(1, winner - original + 0.2),
  pValue: p,
  pairs: 12,
  discordant: 9,
});

/** A finished tune: the original, a candidate refused by lint, and a winner proved on the holdout. */
export const TUNE_RECORD: TuneRecord = tuneRecordSchema.parse({
  version: 1,
  tuneId: 'tune-1',
  status: 'completed',
  startedAt: '2026-12-02T10:00:00Z',
  endedAt: '2026-12-02T10:05:00Z',
  skill: 'csv-report',
  skillFile: '/nowhere/skills/csv-report/SKILL.md',
  agent: 'claude-code',
  model: 'sonnet',
  simulator: { profile: 'sim.yaml', name: 'tune-router' },
  options: { seed: 1, iterations: 2, holdoutTrials: 4, alpha: 0.05 },
  splits: { tune: ['a', 'b'], select: ['c', 'd'], holdout: ['e', 'f'] },
  original: MISSING_CLASS,
  iterations: [
    {
      index: 0,
      description: MISSING_CLASS,
      tune: { dir: 'iterations/0/tune', score: { recall: 0.4, siblings: 1, negatives: 1 }, trials: 16, costUsd: 0.5 },
      select: { dir: 'iterations/0/select', score: { recall: 0.33, siblings: 1, negatives: null }, trials: 10 },
    },
    {
      index: 1,
      description: 'Use <this> & that',
      proposer: { dir: 'iterations/1/proposer', trials: 1 },
      dropped: 'lint',
      detail: 'angle brackets',
    },
    {
      index: 2,
      description: `${MISSING_CLASS} Also excel workbooks.`,
      proposer: { dir: 'iterations/2/proposer', trials: 1 },
      tune: { dir: 'iterations/2/tune', score: { recall: 1, siblings: 1, negatives: 1 }, trials: 16 },
      select: { dir: 'iterations/2/select', score: { recall: 0.83, siblings: 1, negatives: null }, trials: 10 },
    },
  ],
  winner: 2,
  holdout: {
    original: { dir: 'holdout/original', trials: 20 },
    winner: { dir: 'holdout/winner', trials: 20 },
    recall: comparison(0.08, 0.92, 0.004),
    siblings: comparison(1, 1, 1),
    negatives: comparison(0.75, 0.75, 1),
    leftOut: 1,
  },
  verdict: 'IMPROVED',
  result: `${MISSING_CLASS} Also excel workbooks.`,
  written: false,
  trials: 94,
  costUsd: 4.2,
});

/** A mutate's record of csv-report under the simulator, interrupted before any mutant ran, `over` its fields. */
export const mutateRecord = (over: Partial<MutateRecord> = {}): MutateRecord =>
  mutateRecordSchema.parse({
    version: 1,
    mutateId: 'mutate-x',
    status: 'interrupted',
    startedAt: new Date(0).toISOString(),
    agent: 'claude-code',
    context: 'lab',
    simulator: { profile: 'sim.yaml', name: 'tune-router' },
    draws: { seed: 1, given: true },
    skills: ['csv-report'],
    operators: ['empty-body', 'skill-removed'],
    familyHash: 'h',
    alpha: 0.05,
    base: { dir: 'original', given: false },
    mutants: [],
    trials: 0,
    ...over,
  });
