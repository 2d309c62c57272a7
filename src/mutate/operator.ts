/**
 * A mutation operator: one realistic defect a skill's author could ship, applied to a copy of the family. Pure: it
 * reads the family's text and writes none; the runner writes the mutant's folders (runner/mutate-family.ts).
 */

/** A skill as an operator reads it: its folder name, its description and its SKILL.md body (after the frontmatter). */
export interface MutableSkill {
  dir: string;
  description: string;
  body: string;
}

/** What a mutant changes in one skill: a new description, a new body, or the skill gone. */
export type SkillEdit = { description?: string; body?: string } | 'removed';

/** The family an operator mutates, and the skill it breaks. */
export interface MutationTarget {
  family: readonly MutableSkill[];
  skill: MutableSkill;
  /** The prompts of the cases expecting the skill: which of its words trigger it. */
  prompts: readonly string[];
}

/** An operator's mutant of one skill, before it is written: what it did in words, and each skill's edit. */
export interface Mutation {
  what: string;
  edits: Record<string, SkillEdit>;
}

export interface MutationOperator {
  /** What the report calls the defect. */
  readonly title: string;
  /** The kind of case that kills its mutants: named when one survives with no case that moved. */
  readonly killedBy: string;
  /** The mutant, or why the skill offers the operator nothing to break (a description with no "use when" sentence). */
  mutate(target: MutationTarget): Mutation | { inapplicable: string };
}

/** The other skills of the family, in order. */
export const siblingsOf = (t: MutationTarget) => t.family.filter((s) => s.dir !== t.skill.dir);
