import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsRemovedAfterAll, runInProcess, type Files } from './helpers.js';
import { MISSING_CLASS, refusedNothingSpent, tuneProject } from './tune-fixture.js';

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
    expect(r.stdout).toMatch(/empty-body\s+0%\s+no case for this: .*plan check/);
    expect(r.stdout).toMatch(/skill-removed\s+0%\s+moves cases \(power 0%\): csv-totals 99%→0%/);
    expect(r.stdout).toMatch(/drop-use-when\s+—\s+its description has no "use when" sentence/);
    expect(r.stdout).toMatch(/2 mutants\s+72\s+72\s+\$0\.72/);
    expect(existsSync(join(dir, 'transcripts'))).toBe(false);
  });
});
