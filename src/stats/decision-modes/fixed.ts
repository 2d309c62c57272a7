import type { ModeDefinition } from './decision-mode.js';
import { SEQUENTIAL_MODE } from './sequential.js';

/** `trials` per case, each an exact binomial test corrected across cases; the sequential design is stored for `plan` to price. */
export const FIXED_MODE: ModeDefinition = {
  label: 'fixed N (exact binomial tests)',
  sequential: false,
  design: SEQUENTIAL_MODE.design,
  needsDesign: () => false,
  settings: ({ trials, decision }) => `fixed ${trials} trials, ${decision.correction}`,
};
