import { siblingsOf, type MutationOperator } from '../operator.js';

/** Two siblings' descriptions swapped: each skill is offered for the other's requests. */
export const swapSiblings: MutationOperator = {
  title: 'two siblings\u2019 descriptions swapped',
  killedBy: 'a positive case for each of the two skills, and a trap case each way between them',
  mutate(t) {
    const sibling = siblingsOf(t).find((s) => s.description.trim() !== t.skill.description.trim());
    if (!sibling) return { inapplicable: 'the family has no sibling with another description' };
    return {
      what: `descriptions of ${t.skill.dir} and ${sibling.dir} swapped`,
      edits: { [t.skill.dir]: { description: sibling.description }, [sibling.dir]: { description: t.skill.description } },
    };
  },
};
