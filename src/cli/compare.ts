import { chooseReporters } from '../runner/reports.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { reporterFlags, REPORTERS_HELP, valued } from './flags.js';
import { fraction } from './parsers.js';

export const compareCommand = defineCommand({
  name: 'compare',
  description:
    "the model-update canary: did CANDIDATE route worse than BASE? across the suite and per case, exact under each run's stopping rule (exit 1 on a significant regression)",
  args: [
    ['<base>', 'the run folder to compare against, e.g. before the model update'],
    ['<candidate>', 'the run folder under test'],
  ],
  flags: {
    ...reporterFlags('print the comparison as JSON (--reporter json)'),
    alpha: valued(
      '--alpha <a>',
      `false-discovery rate across cases (Benjamini–Hochberg; default ${COMPARE_DEFAULTS.alpha})`,
      fraction('--alpha'),
    ),
    margin: valued(
      '--margin <d>',
      `the smallest change worth detecting: a difference interval within ±d is UNCHANGED (default ${COMPARE_DEFAULTS.margin})`,
      fraction('--margin'),
    ),
    power: valued('--power <p>', `the power "trials to decide" plans for (default ${COMPARE_DEFAULTS.power})`, fraction('--power')),
  },
  helpAfter: REPORTERS_HELP,
  optionsFrom: (o) => ({
    reporter: o.reporter,
    json: o.json,
    tests: {
      alpha: o.alpha ?? COMPARE_DEFAULTS.alpha,
      margin: o.margin ?? COMPARE_DEFAULTS.margin,
      power: o.power ?? COMPARE_DEFAULTS.power,
    },
  }),
  async run([base, candidate], o, io) {
    const reporters = chooseReporters(o, io);
    // Loaded when asked for: the exact tests' statistics would slow every other command's start.
    const { compareCommand: compareRuns } = await import('../commands/compare.js');
    const { exitCode, failed } = await compareRuns({ base: base!, candidate: candidate! }, o.tests, reporters, io);
    return exitCodeFor({ verdicts: [exitCode], failedReporters: failed }, io);
  },
});
