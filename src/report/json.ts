import type { Reporter } from './reporter.js';

/** The results for machines: exactly results.json. */
export const jsonReporter: Reporter = {
  name: 'json',
  render: ({ results }) => JSON.stringify(results, null, 2) + '\n',
};
