import { waldDesign } from '../sprt.js';
import { sequentialSettings, type ModeDefinition } from './decision-mode.js';

/** Wald's SPRT, truncated at maxTrials (by default where the optimal design ends): it may leave a case undecided. */
export const SPRT_MODE: ModeDefinition = {
  label: 'sequential (Wald SPRT per case)',
  sequential: true,
  design: {
    kind: 'wald',
    build: (params) => waldDesign(params),
    names: { verdict: 'SPRT', chart: 'SPRT', plan: "Wald's SPRT" },
    reach: (maxTrials, cap) => `Wald's SPRT, at most ${cap ?? maxTrials} trials`,
    flatInLlr: true,
    chartNote: "Under Wald's SPRT they are flat lines; a case still between them at its last trial (marked on the axis) is INCONCLUSIVE.",
  },
  // Under a cap Wald's boundaries are cheap at any size; uncapped, it ends where the optimal design would.
  needsDesign: (p) => p.maxTrials === undefined,
  settings: sequentialSettings,
};
