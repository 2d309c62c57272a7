import type { MutationOperator } from '../operator.js';

/** Where a description's first clause ends: a sentence end, a semicolon, a colon, a comma, a dash or a parenthesis. */
const CLAUSE_END = /[.;:,(\u2014\u2013]|\s-\s/;

/** The description cut to its first clause: a terse description that names the tool and little of its use. */
export const firstClause: MutationOperator = {
  title: 'the description cut to its first clause',
  killedBy: 'positive cases in the words of the description\u2019s later clauses (each kind of request it lists)',
  mutate({ skill }) {
    const text = skill.description.trim();
    const end = text.search(CLAUSE_END);
    const cut = end < 0 ? '' : text.slice(0, end).trim();
    if (cut === '' || cut === text) return { inapplicable: 'its description is a single clause' };
    return { what: `description cut to "${cut}"`, edits: { [skill.dir]: { description: cut } } };
  },
};
