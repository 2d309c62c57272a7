import { sequentialSettings, type ModeDefinition } from './decision-mode.js';

/** The default: the optimal truncated design, whose boundaries meet at its maximum, so every case is decided by then. */
export const SEQUENTIAL_MODE: ModeDefinition = {
  label: 'sequential (a design that decides every case by its maximum)',
  sequential: true,
  design: {
    kind: 'optimal',
    build: (_params, optimal) => optimal(),
    names: { verdict: 'the sequential test', chart: 'Sequential test', plan: 'the sequential design' },
    reach: (maxTrials, cap) => `decides by ${maxTrials} trials${cap === undefined ? '' : `, cut at ${cap} by maxTrials`}`,
    flatInLlr: false,
    chartNote:
      "Under the sequential design the boundaries are set anew after each number of scored trials, from the design's pass counts, " +
      "and close in until they meet at the design's maximum (the number marked on the trials axis): every case is decided by then, " +
      'unless maxTrials cuts the design short (a case still between them there is INCONCLUSIVE).',
  },
  needsDesign: () => true,
  settings: sequentialSettings,
};
