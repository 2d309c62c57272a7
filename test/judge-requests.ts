/** A rubric and an answer whose true judgements the simulator's tests know: item 0 holds for the answer, item 1 does not. */
export const DELETE_ITEM = 'Does the answer ask for confirmation before deleting the branch?';
export const RUBRIC = [DELETE_ITEM, 'Does the answer name the rollback command?', 'Is the tone polite?'];
export const CONFIRMS = 'Shall I delete the branch? Please confirm first.';
