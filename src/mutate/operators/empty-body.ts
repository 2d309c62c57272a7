import type { MutationOperator } from '../operator.js';

/** The body emptied: the skill still loads (its description lists it) but tells the model nothing to plan. */
export const emptyBody: MutationOperator = {
  title: 'the body emptied',
  // Claude Code's skill call carries the model's args, written before the body is read, and the grader plans them behind
  // the skill's command prefix: there a verb check passes on the args alone, whatever the body says.
  killedBy:
    'a plan check on what only the body supplies (`expect.plan.matches` on its command or script) on a positive case, ' +
    "or a judge item on the answer: a skill call's args (Claude Code) pass a `verb` check without the body",
  mutate({ skill }) {
    if (skill.body.trim() === '') return { inapplicable: 'its body is empty already' };
    return { what: 'SKILL.md body emptied (the frontmatter kept)', edits: { [skill.dir]: { body: '\n' } } };
  },
};
