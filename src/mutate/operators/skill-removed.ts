import type { MutationOperator } from '../operator.js';

/** The skill removed: a family member gone (a failed install, a renamed folder), its requests left to its siblings. */
export const skillRemoved: MutationOperator = {
  title: 'the skill removed from the family',
  killedBy: 'a positive case expecting the skill',
  mutate({ skill }) {
    return { what: `${skill.dir} removed from the family`, edits: { [skill.dir]: 'removed' } };
  },
};
