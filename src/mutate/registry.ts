import type { MutationOperator } from './operator.js';
import { dropUseWhen } from './operators/drop-use-when.js';
import { emptyBody } from './operators/empty-body.js';
import { firstClause } from './operators/first-clause.js';
import { nearSynonym } from './operators/near-synonym.js';
import { siblingDescription } from './operators/sibling-description.js';
import { skillRemoved } from './operators/skill-removed.js';
import { swapSiblings } from './operators/swap-siblings.js';
import { wrongSubcommand } from './operators/wrong-subcommand.js';

/** The only list of mutation operators: `mutate --operator` takes these names, in this order. */
export const OPERATORS = {
  'drop-use-when': dropUseWhen,
  'sibling-description': siblingDescription,
  'swap-siblings': swapSiblings,
  'first-clause': firstClause,
  'empty-body': emptyBody,
  'wrong-subcommand': wrongSubcommand,
  'near-synonym': nearSynonym,
  'skill-removed': skillRemoved,
} satisfies Record<string, MutationOperator>;

export type OperatorName = keyof typeof OPERATORS;
export const OPERATOR_NAMES = Object.keys(OPERATORS) as OperatorName[];
export const isOperatorName = (name: string): name is OperatorName => Object.hasOwn(OPERATORS, name);
