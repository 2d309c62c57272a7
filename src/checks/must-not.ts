import { patternKind } from './pattern.js';

/** `mustNot`: no planned call matches any of the patterns. */
export const mustNot = patternKind(
  (pattern) => `mustNot /${pattern}/`,
  (hit) => ({ pass: hit === undefined, detail: hit }),
);
