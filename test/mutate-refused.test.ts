import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MutableSkill } from '../src/mutate/operator.js';
import { OPERATORS, type OperatorName } from '../src/mutate/registry.js';
import type { StoredMutant } from '../src/run/mutate-schema.js';
import { killRates, mutantRows } from '../src/report/mutate/view.js';
import { editsProblem } from '../src/runner/tune-family.js';
import { projectsRemovedAfterAll, runInProcess } from './helpers.js';
import { mutateRecord, tuneProject } from './tune-fixture.js';

/**
 * A mutant is a skill a real author could ship: one whose family breaks what a shipped skill keeps (the Agent Skills
 * spec's description limits, angle brackets a skill upload refuses, a family left empty, a listing past the CLI's
 * budget) is refused as the mutate plans it: never priced, never run, named in the report with the reason, and out of
 * the kill rate's denominator.
 */

const CLAUDE_LISTING = { cli: 'Claude Code', descriptionCap: 1536, budgetChars: 8000 };
const skill = (dir: string, description: string): MutableSkill => ({ dir, description, body: `# ${dir}\n\nRun \`${dir} go\`.\n` });
/** A description `length` characters long that names CSV files, the word near-synonym replaces by a longer one. */
const csvDescription = (length: number) => {
  const head = 'Summarise CSV files into a report with totals per column. Use when a user asks about a CSV export. ';
  return (head + 'x'.repeat(length)).slice(0, length);
};

const mutantOf = (operator: OperatorName, family: MutableSkill[], target = family[0]!) => {
  const m = OPERATORS[operator].mutate({ family, skill: target, prompts: ['total this csv', 'a csv report please'] });
  if (!('edits' in m)) throw new Error(`${operator} found nothing to break: ${m.inapplicable}`);
  return m;
};

describe('editsProblem: the mutants a shipped skill could not be, each with its reason', () => {
  const longSiblings = Array.from({ length: 7 }, (_, i) => skill(`tool-${i}`, `Tool ${i} handles its own requests. ${'y'.repeat(960)}`));
  it.each<[string, OperatorName, MutableSkill[], RegExp | undefined]>([
    [
      'near-synonym lengthens a description past the 1,024 characters of the spec',
      'near-synonym',
      [skill('csv-report', csvDescription(1020)), skill('pdf-tools', 'Merge and split PDF documents.')],
      /^csv-report: description is 10\d\d characters$/,
    ],
    [
      "sibling-description copies a sibling's description holding angle brackets, which skill uploads refuse",
      'sibling-description',
      [skill('csv-report', csvDescription(80)), skill('pdf-tools', 'Merge <PDF> documents.')],
      /^csv-report: the description holds angle brackets/,
    ],
    [
      'skill-removed takes the only skill of a family',
      'skill-removed',
      [skill('csv-report', csvDescription(80))],
      /^no skill of the family would be left$/,
    ],
    [
      "sibling-description puts a long description on a short one, and the listing passes Claude Code's budget",
      'sibling-description',
      [skill('a-short', 'Short.'), ...longSiblings],
      /^the family's listing would take 8\d{3} of the 8000 characters Claude Code gives it$/,
    ],
    [
      'first-clause on a fine description: a mutant an author could ship',
      'first-clause',
      [skill('csv-report', csvDescription(120)), skill('pdf-tools', 'Merge and split PDF documents.')],
      undefined,
    ],
    [
      'near-synonym on a short description: a mutant an author could ship',
      'near-synonym',
      [skill('csv-report', csvDescription(120)), skill('pdf-tools', 'Merge and split PDF documents.')],
      undefined,
    ],
  ])('%s', (_name, operator, family, reason) => {
    const problem = editsProblem(family, mutantOf(operator, family).edits, CLAUDE_LISTING);
    if (reason === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(reason);
  });

  it("counts the user's other skills in the listing: a mutant fine alone is refused beside them", () => {
    const family = [skill('a-short', 'Short.'), ...longSiblings.slice(0, 6)];
    const edits = mutantOf('sibling-description', family).edits;
    expect(editsProblem(family, edits, CLAUDE_LISTING)).toBeUndefined();
    expect(editsProblem(family, edits, CLAUDE_LISTING, [{ dir: 'their-own', description: 'z'.repeat(1000) }])).toMatch(
      /^the family's listing with its 1 neighbours would take/,
    );
  });
});

describe('a refused mutant in the mutate: not priced, not run, named with its reason, outside the kill rate', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(csvDescription(1020)));

  it('mutate --plan names it refused with the reason and prices only the mutants that will run', async () => {
    const dir = project();
    const r = await runInProcess(['mutate', 'csv-report', '--sim', 'sim.yaml', '--plan', '--operator', 'near-synonym,skill-removed'], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /near-synonym\s+—\s+not run: it fails the checks a shipped skill passes \(csv-report: description is 10\d\d\s+characters\)/,
    );
    expect(r.stdout).toMatch(/1 mutant\s+36\s+36/);
    expect(existsSync(join(dir, 'transcripts'))).toBe(false);
  });

  it('the kill rate counts only the mutants that ran to an answer', () => {
    const ran = (over: Partial<StoredMutant>): StoredMutant => ({
      skill: 'csv-report',
      operator: 'skill-removed',
      what: 'csv-report removed from the family',
      status: 'completed',
      trials: 40,
      flipped: [],
      ...over,
    });
    const record = mutateRecord({
      status: 'completed',
      skills: ['csv-report'],
      operators: ['near-synonym', 'skill-removed'],
      mutants: [
        ran({
          operator: 'near-synonym',
          what: '"csv" written "delimited"',
          status: undefined,
          trials: 0,
          refused: 'csv-report: description is 1031 characters',
        }),
        ran({ noticed: true }),
      ],
      trials: 40,
    });
    expect(mutantRows(record).map((x) => [x.operator, x.outcome])).toEqual([
      ['near-synonym', 'refused'],
      ['skill-removed', 'killed'],
    ]);
    expect(killRates(record).map((k) => [k.operator, k.killed, k.ran])).toEqual([
      ['near-synonym', 0, 0],
      ['skill-removed', 1, 1],
      ['overall', 1, 1],
    ]);
  });
});
