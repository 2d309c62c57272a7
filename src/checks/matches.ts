import { patternKind } from './pattern.js';

/** `matches`: some planned call matches each pattern. */
export const matches = patternKind(
  (pattern) => `matches /${pattern}/`,
  (hit, plans) => ({ pass: hit !== undefined, detail: hit ?? (plans.length ? 'no plan matches' : 'no plan found') }),
);
