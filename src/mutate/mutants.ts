import type { MutableSkill, Mutation } from './operator.js';
import { OPERATORS, type OperatorName } from './registry.js';

/** One operator applied to one skill: its mutation, or why the skill gives it nothing to break. */
export type PlannedMutant = { skill: string; operator: OperatorName } & (Mutation | { inapplicable: string });

/** Every operator asked for applied to every skill asked for, in registry order within each skill. Pure. */
export function planMutants(
  family: readonly MutableSkill[],
  skills: readonly string[],
  operators: readonly OperatorName[],
  promptsOf: (skill: string) => readonly string[],
): PlannedMutant[] {
  return skills.flatMap((dir) => {
    const skill = family.find((s) => s.dir === dir)!;
    return operators.map((operator) => ({
      skill: dir,
      operator,
      ...OPERATORS[operator].mutate({ family, skill, prompts: promptsOf(dir) }),
    }));
  });
}

/** The family a mutation leaves, as the rates read it: each skill's description and whether its body still plans. */
export function mutatedFamily<S extends MutableSkill>(
  family: readonly S[],
  edits: Mutation['edits'],
): (S & { bodyState: 'intact' | 'wrong-command' | 'empty' })[] {
  return family.flatMap((s) => {
    const edit = edits[s.dir];
    if (edit === 'removed') return [];
    const body = edit?.body ?? s.body;
    const bodyState = edit?.body === undefined ? 'intact' : body.trim() === '' ? 'empty' : 'wrong-command';
    return [{ ...s, description: edit?.description ?? s.description, body, bodyState }];
  });
}
