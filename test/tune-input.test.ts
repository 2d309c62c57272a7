import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyHash, loadSkills } from '../src/load/skills.js';
import { tuneRecordSchema, type TuneRecord } from '../src/run/tune-schema.js';
import { projectsRemovedAfterAll, runInProcess, skillMd, spyBinary, type Files } from './helpers.js';
import { MISSING_CLASS, refusedNothingSpent, tuneProject } from './tune-fixture.js';

/**
 * Every mistake in a tune's input is one line naming the file or flag and what to do, exit 2, and nothing spent: the
 * agent binary is a spy that marks the folder if it is ever started, and no tune folder is made.
 */
interface Row {
  name: string;
  change?: (f: Files) => void;
  args: string[];
  where: RegExp;
  says: RegExp;
  /** Problems the input has: one line each, under a count when more than one. */
  problems?: number;
}

const TUNE = ['tune', 'csv-report', '--sim', 'sim.yaml'];

/** Keeps only the listed cases of the fixture's case file. */
const onlyCases =
  (...ids: string[]) =>
  (f: Files) => {
    f['cases/tune.yaml'] = f['cases/tune.yaml']!.split(/(?=^- id: )/m)
      .filter((block) => ids.some((id) => block.startsWith(`- id: ${id}\n`)))
      .join('');
  };

const ROWS: Row[] = [
  {
    name: 'an unknown skill',
    args: ['tune', 'csv-reprot', '--sim', 'sim.yaml'],
    where: /csv-reprot/,
    says: /no skill of that name.*csv-report/,
  },
  { name: 'no skill named', args: ['tune', '--sim', 'sim.yaml'], where: /tune/, says: /no skill named/ },
  { name: 'no case files', args: [...TUNE, '--cases', 'missing/*.yaml'], where: /missing\/\*\.yaml/, says: /no case files matched/ },
  {
    name: 'splits too small to be honest',
    change: onlyCases('csv-totals', 'xl-revenue', 'xl-grades', 'pdf-merge', 'neg-poem'),
    args: TUNE,
    problems: 5,
    where: /cases\/tune\.yaml/,
    says: /split has \d+ cases? expecting csv-report — add \d+ more positive/,
  },
  {
    name: 'a SKILL.md whose description cannot be rewritten in place (an anchor)',
    change: (f) => void (f['skills/csv-report/SKILL.md'] = skillMd('csv-report', `&d ${MISSING_CLASS}`)),
    args: TUNE,
    where: /skills\/csv-report\/SKILL\.md/,
    says: /anchor/,
  },
  {
    name: 'a cost cap below one trial',
    args: [...TUNE, '--max-cost', '0.01', '--price-per-trial', '0.05'],
    where: /--max-cost/,
    says: /pays for no trial/,
  },
  {
    name: 'a reporter with no tune report',
    args: [...TUNE, '--reporter', 'junit'],
    where: /--reporter/,
    says: /junit reporter has no tune report/,
  },
  {
    name: '--resume of a folder that is no tune',
    args: ['tune', '--resume', 'cases', '--sim', 'sim.yaml'],
    where: /cases\/tune\.json/,
    says: /not a tune folder/,
  },
  { name: 'a flag out of range', args: [...TUNE, '--iterations', '0'], where: /--iterations/, says: /1/ },
  {
    name: 'a cost cap for an agent that reports no cost',
    change: (f) => void (f['skillprobe.config.yaml'] = `agent: codex\nmodel: sim-model\n${f['skillprobe.config.yaml']}`),
    args: [...TUNE, '--max-cost', '5'],
    where: /maxCostUsd|--max-cost/,
    says: /reports no cost/,
  },
];

describe('tune: bad input is one clear message, exit 2, nothing spent', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));

  it.each(ROWS)('$name', async (row) => {
    const lines = await refusedNothingSpent(project(), row.change, row.args);
    expect(lines, lines.join('\n')).toHaveLength(row.problems ? row.problems + 1 : 1);
    const line = lines.find((l) => row.where.test(l) && row.says.test(l));
    expect(line, lines.join('\n')).toBeDefined();
  });
});

describe('tune --cases: a subset of the case files is a selection', () => {
  const project = projectsRemovedAfterAll(() => {
    const files = tuneProject(MISSING_CLASS);
    // The example's cases in two files; the profile has a rule for a case only the second file holds.
    const [kept, other] = [[] as string[], [] as string[]];
    for (const block of files['cases/tune.yaml']!.split(/(?=^- id: )/m))
      (block.startsWith('- id: pdf-rotate\n') ? other : kept).push(block);
    files['cases/tune.yaml'] = kept.join('');
    files['cases/more.yaml'] = other.join('');
    files['sim.yaml'] += 'rules:\n  - case: pdf-rotate\n    do: [{ p: 1, skill: pdf-tools }]\n';
    return files;
  });

  it('a profile rule naming a case outside the chosen files is inactive, not an error', async () => {
    const r = await runInProcess([...TUNE, '--cases', 'cases/tune.yaml', '--plan'], { cwd: project() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/holdout \(\d+ cases/);
  });

  it('a rule naming a case in no file is still an error when the config chooses the cases', async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'sim.yaml'),
      `${readFileSync(join(dir, 'sim.yaml'), 'utf8')}  - case: pdf-rotat\n    do: [{ p: 1, answer: true }]\n`,
    );
    const r = await runInProcess([...TUNE, '--plan'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/pdf-rotat" which|"pdf-rotat", which is not in the suite/);
  });
});

/** An interrupted tune's folder, as the command stores it when it starts, with `options` and `over` over the defaults. */
async function startedTune(dir: string, options: Partial<TuneRecord['options']> = {}, over: Partial<TuneRecord> = {}): Promise<string> {
  const folder = join(dir, 'transcripts', 'tune-x');
  mkdirSync(folder, { recursive: true });
  const started: TuneRecord = tuneRecordSchema.parse({
    version: 1,
    tuneId: 'tune-x',
    status: 'interrupted',
    startedAt: new Date(0).toISOString(),
    skill: 'csv-report',
    skillFile: join(dir, 'skills/csv-report/SKILL.md'),
    agent: 'claude-code',
    simulator: { profile: 'sim.yaml', name: 'tune-router' },
    options: { seed: 1, iterations: 2, holdoutTrials: 6, alpha: 0.05, gain: 0.25, ...options },
    splits: { tune: [], select: [], holdout: [] },
    original: MISSING_CLASS,
    familyHash: familyHash(await loadSkills(join(dir, 'skills'))),
    iterations: [],
    ...over,
  });
  writeFileSync(join(folder, 'tune.json'), JSON.stringify(started));
  return folder;
}

describe('tune --resume refuses what would change the tune it resumes', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));
  const spied = (dir: string) => {
    const spy = spyBinary(dir);
    writeFileSync(
      join(dir, 'skillprobe.config.yaml'),
      `agentBinary: ${spy.path}\n${readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')}`,
    );
    return spy;
  };

  it('a SKILL.md body changed after the start: one line naming the skills folder, exit 2, nothing spent', async () => {
    const dir = project();
    const spy = spied(dir);
    const folder = await startedTune(dir);
    const skill = join(dir, 'skills/csv-report/SKILL.md');
    writeFileSync(skill, `${readFileSync(skill, 'utf8')}\nAlso: always answer in French.\n`);
    const r = await runInProcess(['tune', '--resume', 'transcripts/tune-x', '--sim', 'sim.yaml'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^skillprobe: skills: a skill of the family changed since the tune began .* — put the skills back/);
    expect(existsSync(spy.marker)).toBe(false);
    expect(readdirSync(folder)).toEqual(['tune.json']);
  });

  it.each<[string[], RegExp, Partial<TuneRecord>?]>([
    [['--holdout-trials', '4'], /--holdout-trials: tune tune-x may already have run 6 holdout trials per case: a resume can only raise it/],
    [['--gain', '0.4'], /--gain: tune tune-x was designed for a gain of 0\.25, and its resume must be too/],
    [['--draw-seed', '9'], /--draw-seed: tune tune-x draws from seed none, and its resume must too/],
    [
      ['--context', 'lab'],
      /--context: tune tune-x ran its trials in the field, and its resume must too — drop --context/,
      { context: 'field' },
    ],
  ])('%o: refused in one line, nothing spent', async (args, says, over) => {
    const dir = project();
    const spy = spied(dir);
    await startedTune(dir, {}, over);
    const r = await runInProcess(['tune', '--resume', 'transcripts/tune-x', '--sim', 'sim.yaml', ...args], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(existsSync(spy.marker)).toBe(false);
  });
});
