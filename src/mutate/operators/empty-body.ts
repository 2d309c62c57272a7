import type { MutationOperator } from '../operator.js';

/** The body emptied: the skill still loads (its description lists it) but tells the model nothing to plan. */
export const emptyBody: MutationOperator = {
  title: 'the body emptied',
  killedBy: 'a plan check (`expect.plan` with `verb` or `matches`) on a positive case',
  mutate({ skill }) {
    if (skill.body.trim() === '') return { inapplicable: 'its body is empty already' };
    return { what: 'SKILL.md body emptied (the frontmatter kept)', edits: { [skill.dir]: { body: '\n' } } };
  },
};
