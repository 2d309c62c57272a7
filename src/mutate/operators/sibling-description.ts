import { siblingsOf, type MutationOperator } from '../operator.js';

/** The description replaced by a sibling's: a copy-paste slip, the skill now claims its sibling's requests. */
export const siblingDescription: MutationOperator = {
  title: "the description replaced by a sibling's",
  killedBy: 'a trap case against the sibling (its vocabulary, this skill\u2019s action) and a positive case in the skill\u2019s own words',
  mutate(t) {
    const sibling = siblingsOf(t).find((s) => s.description.trim() !== t.skill.description.trim());
    if (!sibling) return { inapplicable: 'the family has no sibling with another description' };
    return {
      what: `description of ${sibling.dir}: "${sibling.description}"`,
      edits: { [t.skill.dir]: { description: sibling.description } },
    };
  },
};
