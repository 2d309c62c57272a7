import type { MutationOperator } from '../operator.js';

/** A sentence that says when to use the skill: "Use when …", "Use for …", "Use it/this …", "Trigger when …". */
const USE_WHEN = /(?:^|(?<=[.!?])\s+)(?:use (?:when|for|it|this|whenever|if)|trigger(?:s|ed)? (?:when|on|for))\b[^.!?]*[.!?]?/gi;

/** The description's "use when" sentences dropped: the model is told what the skill does, never when to reach for it. */
export const dropUseWhen: MutationOperator = {
  title: 'the "use when" sentence dropped',
  killedBy: 'a vague positive case that names none of the skill\u2019s own commands, only the situation',
  mutate({ skill }) {
    const cut = skill.description.replace(USE_WHEN, '').replace(/\s+/g, ' ').trim();
    if (cut === skill.description.trim()) return { inapplicable: 'its description has no "use when" sentence' };
    if (cut === '') return { inapplicable: 'its description is nothing but a "use when" sentence' };
    return { what: `description without its "use when" sentence: "${cut}"`, edits: { [skill.dir]: { description: cut } } };
  },
};
