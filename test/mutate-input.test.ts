import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyHash, loadSkills } from '../src/load/skills.js';
import type { MutateRecord } from '../src/run/mutate-schema.js';
import { prepareMutate } from '../src/commands/mutate.js';
import { projectsRemovedAfterAll, runInProcess, spyBinary, type Files } from './helpers.js';
import { MISSING_CLASS, mutateRecord, refusedNothingSpent, tuneProject } from './tune-fixture.js';

/**
 * Every mistake in a mutate's input is one line naming the skill, flag or file and what to do, exit 2, and nothing
 * spent: the agent binary is a spy that marks the folder if it is ever started, and no mutate folder is made.
 */
interface Row {
  name: string;
  change?: (f: Files) => void;
  args: string[];
  where: RegExp;
  says: RegExp;
}

const MUTATE = ['mutate', 'csv-report', '--sim', 'sim.yaml'];

const ROWS: Row[] = [
  {
    name: 'an unknown skill',
    args: ['mutate', 'csv-reprot', '--sim', 'sim.yaml'],
    where: /csv-reprot/,
    says: /no skill of that name.*csv-report/,
  },
  {
    name: 'an unknown operator',
    args: [...MUTATE, '--operator', 'empty-body,drop-body'],
    where: /--operator/,
    says: /no operator named drop-body/,
  },
  {
    name: 'a skill no case expects',
    change: (f) => void (f['cases/tune.yaml'] = f['cases/tune.yaml']!.replace(/skill: csv-report/g, 'skill: pdf-tools')),
    args: MUTATE,
    where: /csv-report/,
    says: /no case expects this skill.*add a positive case/,
  },
  {
    name: 'a cost cap below one mutant',
    args: [...MUTATE, '--max-cost', '0.2', '--price-per-trial', '0.01'],
    where: /--max-cost/,
    says: /below one mutant.*raise --max-cost/,
  },
  {
    name: 'a reporter with no mutate report',
    args: [...MUTATE, '--reporter', 'junit'],
    where: /--reporter/,
    says: /junit reporter has no mutate report/,
  },
  {
    name: '--resume of a folder that is no mutate',
    args: ['mutate', '--resume', 'cases', '--sim', 'sim.yaml'],
    where: /cases\/mutate\.json/,
    says: /not a mutate folder/,
  },
  { name: '--base that is no run folder', args: [...MUTATE, '--base', 'cases'], where: /cases/, says: /run\.json|not a run folder/ },
];

describe('mutate: bad input is one clear message, exit 2, nothing spent', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));

  it.each(ROWS)('$name', async (row) => {
    const lines = await refusedNothingSpent(project(), row.change, row.args);
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(row.where.test(lines[0]!) && row.says.test(lines[0]!), lines[0]).toBe(true);
  });
});

describe('mutate --plan: what each mutant can see and what it costs, nothing spent', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));

  it("states each mutant's exact power and names the case kind a survivor lacks", async () => {
    const dir = project();
    const r = await runInProcess(
      [...MUTATE, '--plan', '--price-per-trial', '0.01', '--operator', 'empty-body,skill-removed,drop-use-when'],
      {
        cwd: dir,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/empty-body\s+0% \(≥0%\)\s+no case for this: .*plan check/);
    expect(r.stdout).toMatch(
      /skill-removed\s+0% \(≥0%\)\s+moves cases \(power at least 0% exactly; 0% \[0%, 0%\] simulated\): csv-totals 99%→0%/,
    );
    expect(r.stdout).toMatch(/drop-use-when\s+—\s+its description has no "use when" sentence/);
    expect(r.stdout).toMatch(/2 mutants\s+72\s+72\s+\$0\.72/);
    expect(r.stdout).toMatch(/suite health\n  no warning: no case names the skill it expects/);
    expect(existsSync(join(dir, 'transcripts'))).toBe(false);
  });

  it("names in its suite-health section a case whose prompt gives the skill's name away", async () => {
    const dir = project();
    const cases = join(dir, 'cases/tune.yaml');
    writeFileSync(
      cases,
      readFileSync(cases, 'utf8').replace(
        /prompt: "([^"]*)"\n  expect: \{ skill: csv-report \}/,
        'prompt: "use csv-report: $1"\n  expect: { skill: csv-report }',
      ),
    );
    const r = await runInProcess([...MUTATE, '--plan', '--operator', 'empty-body'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/suite health\n  cases\/tune\.yaml:\d+:\d+: case "[^"]+" names the skill it expects \(csv-report\)/);
  });
});

/** An interrupted mutate's folder, as the command stores it when it starts, with `over` over its fields. */
async function startedMutate(dir: string, over: Partial<MutateRecord> = {}): Promise<string> {
  const folder = join(dir, 'transcripts', 'mutate-x');
  mkdirSync(folder, { recursive: true });
  const started = mutateRecord({ familyHash: familyHash(await loadSkills(join(dir, 'skills'))), ...over });
  writeFileSync(join(folder, 'mutate.json'), JSON.stringify(started));
  return folder;
}

describe('mutate --resume refuses a flag that would change the mutate it resumes, never ignores it', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));
  const RESUME = ['mutate', '--resume', 'transcripts/mutate-x', '--sim', 'sim.yaml'];

  it.each<[string[], RegExp, Partial<MutateRecord>?]>([
    [
      ['--base', 'transcripts/run-1'],
      /^skillprobe: --base: mutate mutate-x runs with its own unmutated run as base, and its resume must too .* — drop --base$/,
    ],
    [
      ['--base', 'transcripts/run-2'],
      /^skillprobe: --base: mutate mutate-x runs with base transcripts\/run-1, and its resume must too .* — drop --base$/,
      { base: { dir: 'transcripts/run-1', given: true } },
    ],
    [
      ['--operator', 'empty-body'],
      /^skillprobe: --operator: mutate mutate-x runs with operators empty-body,skill-removed, .* — drop --operator$/,
    ],
    [['--draw-seed', '9'], /^skillprobe: --draw-seed: mutate mutate-x runs with draw seed 1, .* — drop --draw-seed$/],
    [['--agent', 'codex'], /^skillprobe: --agent: mutate mutate-x runs with agent claude-code, .* — drop --agent$/],
    [['--model', 'other-model'], /^skillprobe: --model: mutate mutate-x runs with model the agent's default, .* — drop --model$/],
    [['--context', 'field'], /^skillprobe: --context: mutate mutate-x runs with the lab context, .* — drop --context$/],
    [['pdf-tools'], /^skillprobe: --resume: mutate mutate-x mutates csv-report, not pdf-tools — leave the skills out/],
  ])('%o: refused in one line, exit 2, nothing spent', async (args, says, over) => {
    const dir = project();
    const spy = spyBinary(dir);
    writeFileSync(
      join(dir, 'skillprobe.config.yaml'),
      `agentBinary: ${spy.path}\n${readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')}`,
    );
    const folder = await startedMutate(dir, over);
    const r = await runInProcess([...RESUME, ...args], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(says);
    expect(existsSync(spy.marker)).toBe(false);
    expect(readdirSync(folder)).toEqual(['mutate.json']);
  });

  it('--sim on a mutate that ran against the real model is refused', async () => {
    const dir = project();
    await startedMutate(dir, { simulator: null, draws: undefined });
    const r = await runInProcess(RESUME, { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^skillprobe: --sim: mutate mutate-x ran against the real model, and its resume must too — drop --sim/);
  });
});

describe('mutate in the field: every run takes the configured context', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS, 'context: field\n'));

  it('the unmutated and each mutant run in the field, and the record keeps it for the resume', async () => {
    const dir = project();
    const p = await prepareMutate(
      { skills: ['csv-report'], sim: 'sim.yaml', overrides: {}, cwd: dir, callerEnv: {}, stderr: process.stderr },
      { run: false },
    );
    expect(p.config.context).toBe('field');
    expect(p.config.arms).toEqual(['skill']);
    expect(p.record.context).toBe('field');
  });
});
