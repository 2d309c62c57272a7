import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planMutants, mutatedFamily } from '../src/mutate/mutants.js';
import type { MutableSkill } from '../src/mutate/operator.js';
import { OPERATOR_NAMES, OPERATORS } from '../src/mutate/registry.js';
import { passChance, type RatedCase } from '../src/mutate/rates.js';
import { profileSchema } from '../src/sim/profile.js';
import { ROOT } from './helpers.js';

/** The demo family as operators read it: each SKILL.md's description and body. */
const skill = (dir: string): MutableSkill => {
  const text = readFileSync(join(ROOT, 'skills', dir, 'SKILL.md'), 'utf8');
  const [, front, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)!;
  return { dir, description: /^description: (.*)$/m.exec(front!)![1]!, body: body! };
};
const FAMILY = ['atl', 'atl-confluence', 'atl-jira'].map(skill);
const JIRA_PROMPTS = ['File a bug in the OPS project', 'move OPS-142 to done please', 'check whats still open in the sprint'];
const mutate = (operator: keyof typeof OPERATORS, dir = 'atl-jira', family = FAMILY) =>
  OPERATORS[operator].mutate({ family, skill: family.find((s) => s.dir === dir)!, prompts: JIRA_PROMPTS });
const edit = (operator: keyof typeof OPERATORS, dir = 'atl-jira') => {
  const m = mutate(operator, dir);
  if (!('edits' in m)) throw new Error(`${operator}: ${m.inapplicable}`);
  return m.edits;
};

describe('mutation operators: each a realistic defect of one skill, the rest of the family untouched', () => {
  it('the registry holds the eight operators, each naming the case that kills it', () => {
    expect(OPERATOR_NAMES).toEqual([
      'drop-use-when',
      'sibling-description',
      'swap-siblings',
      'first-clause',
      'empty-body',
      'wrong-subcommand',
      'near-synonym',
      'skill-removed',
    ]);
    for (const name of OPERATOR_NAMES) expect(OPERATORS[name].killedBy.length, name).toBeGreaterThan(10);
  });

  it('drop-use-when: the "Use for …" sentence goes, the first sentence stays', () => {
    expect(edit('drop-use-when')).toEqual({
      'atl-jira': { description: 'Create, find, move and comment on Jira issues with the atl CLI (atl jira …).' },
    });
  });

  it("sibling-description and swap-siblings: a sibling's description, one way or both", () => {
    const [atl] = FAMILY;
    expect(edit('sibling-description')).toEqual({ 'atl-jira': { description: atl!.description } });
    expect(edit('swap-siblings')).toEqual({
      'atl-jira': { description: atl!.description },
      atl: { description: FAMILY[2]!.description },
    });
  });

  it('first-clause: cut at the first comma', () => {
    expect(edit('first-clause')).toEqual({ 'atl-jira': { description: 'Create' } });
  });

  it('empty-body and skill-removed', () => {
    expect(edit('empty-body')).toEqual({ 'atl-jira': { body: '\n' } });
    expect(edit('skill-removed')).toEqual({ 'atl-jira': 'removed' });
  });

  it("wrong-subcommand: the sibling's subcommand of the same program, in the fenced command only", () => {
    const body = (edit('wrong-subcommand')['atl-jira'] as { body: string }).body;
    expect(body).toContain('```bash\natl auth $ARGUMENTS\n```');
    expect(body).toContain('# atl jira');
    expect(body.split('\n').length).toBe(FAMILY[2]!.body.split('\n').length);
  });

  it('wrong-subcommand without a sibling of the same program: the subcommand cut at its hyphen, or nothing to break', () => {
    const alone: MutableSkill = { dir: 'x', description: 'd', body: '```bash\nacme create-issue --key K\n```\n' };
    expect(mutate('wrong-subcommand', 'x', [alone])).toMatchObject({ edits: { x: { body: '```bash\nacme create --key K\n```\n' } } });
    const script: MutableSkill = { dir: 'y', description: 'd', body: '```bash\npython3 ${DIR}/run.py --in x\n```\n' };
    expect(mutate('wrong-subcommand', 'y', [script])).toHaveProperty('inapplicable');
  });

  it("near-synonym: the description word most of the skill's prompts use, every occurrence", () => {
    const m = mutate('near-synonym');
    expect('edits' in m && m.what).toMatch(/^"(bugs|sprints)" written/);
  });

  it('an operator with nothing to break says why, and the mutant is not run', () => {
    const plain: MutableSkill = { dir: 'p', description: 'Plain words only', body: '' };
    const planned = planMutants([plain], ['p'], OPERATOR_NAMES, () => []);
    const inapplicable = planned.filter((m) => 'inapplicable' in m).map((m) => m.operator);
    expect(inapplicable).toEqual([
      'drop-use-when',
      'sibling-description',
      'swap-siblings',
      'first-clause',
      'empty-body',
      'wrong-subcommand',
      'near-synonym',
    ]);
  });

  it('every applicable mutant differs from the original family', () => {
    for (const m of planMutants(FAMILY, ['atl-jira', 'atl-confluence'], OPERATOR_NAMES, () => JIRA_PROMPTS)) {
      if (!('edits' in m)) continue;
      const after = mutatedFamily(FAMILY, m.edits);
      expect(JSON.stringify(after.map((s) => [s.dir, s.description, s.body])), `${m.skill} ${m.operator}`).not.toBe(
        JSON.stringify(FAMILY.map((s) => [s.dir, s.description, s.body])),
      );
    }
  });
});

describe("passChance: a case's pass chance under a family, as the simulator plays it and the grader scores it", () => {
  const CLAUDE = { carriesArgs: true };
  const CODEX = { carriesArgs: false };
  const router = profileSchema.parse({ router: {} });
  const triggerOnly: RatedCase = { id: 'c', prompt: 'file a jira bug in the OPS project', expect: 'atl-jira' };
  const planned: RatedCase = { ...triggerOnly, plan: { verb: 'create-issue', matches: [], mustNot: [] }, command: 'atl jira' };
  const offered = (family: ReturnType<typeof mutatedFamily<MutableSkill>>) =>
    family.map((s) => ({ name: s.dir, description: s.description, body: s.body }));
  const original = offered(mutatedFamily(FAMILY, {}));
  const mutant = (operator: keyof typeof OPERATORS) => offered(mutatedFamily(FAMILY, edit(operator)));

  it("the router's chance of the expected skill; zero once it is removed; a body edit moves no trigger-only case", () => {
    const before = passChance(router, triggerOnly, original, CLAUDE);
    expect(before).toBeGreaterThan(0.5);
    expect(passChance(router, triggerOnly, mutant('skill-removed'), CLAUDE)).toBe(0);
    expect(passChance(router, triggerOnly, mutant('empty-body'), CLAUDE)).toBe(before);
    expect(passChance(router, triggerOnly, mutant('wrong-subcommand'), CLAUDE)).toBe(before);
  });

  it("the router's call carries no args: a verb check fails on the body's bare `atl jira $ARGUMENTS`, mutated or not", () => {
    expect(passChance(router, planned, original, CLAUDE)).toBe(0);
    expect(passChance(router, planned, mutant('empty-body'), CLAUDE)).toBe(0);
  });

  const rules = profileSchema.parse({
    plan: { wrong: 0.1, mutate: 'abbreviate' },
    rules: [
      {
        case: 'c',
        do: [
          { p: 0.8, skill: 'atl-jira', args: 'create-issue --project OPS' },
          { p: 0.2, answer: true },
        ],
      },
    ],
  });

  it('a rule-played case: its behaviours weighted, plan.wrong garbling the written verb, a removed skill answering plainly', () => {
    for (const shape of [CLAUDE, CODEX]) {
      expect(passChance(rules, planned, original, shape)).toBeCloseTo(0.8 * 0.9);
      expect(passChance(rules, planned, mutant('drop-use-when'), shape)).toBeCloseTo(0.72);
      expect(passChance(rules, planned, mutant('skill-removed'), shape)).toBe(0);
    }
    const negative: RatedCase = { id: 'c', prompt: 'x', expect: 'none' };
    expect(passChance(rules, negative, original, CLAUDE)).toBeCloseTo(0.2);
    expect(passChance(rules, negative, mutant('skill-removed'), CLAUDE)).toBe(1);
  });

  it("a body edit, as the grader sees it: Claude Code's skill call carries the args, planned behind the prefix, so it passes", () => {
    // The empty body writes no call; the wrong one writes `atl auth create-issue …`, outside the prefix the verb reads:
    // the args' plan alone passes, and no garbled written call fails it any more.
    expect(passChance(rules, planned, mutant('empty-body'), CLAUDE)).toBeCloseTo(0.8);
    expect(passChance(rules, planned, mutant('wrong-subcommand'), CLAUDE)).toBeCloseTo(0.8);
    // A CLI that loads the skill by reading its file has only the written call: the same edits fail the case.
    expect(passChance(rules, planned, mutant('empty-body'), CODEX)).toBe(0);
    expect(passChance(rules, planned, mutant('wrong-subcommand'), CODEX)).toBe(0);
  });

  it('a skill read instead of called has no args to plan from, under any CLI', () => {
    const reads = profileSchema.parse({ rules: [{ case: 'c', do: [{ p: 1, read: 'atl-jira', args: 'create-issue --project OPS' }] }] });
    expect(passChance(reads, planned, original, CLAUDE)).toBe(1);
    expect(passChance(reads, planned, mutant('empty-body'), CLAUDE)).toBe(0);
  });
});
