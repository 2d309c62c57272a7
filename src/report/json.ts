import type { Reporter } from './reporter.js';

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/** The results for machines: exactly results.json; a comparison as its own JSON document. */
export const jsonReporter: Reporter = {
  name: 'json',
  description: "the results as JSON (exactly results.json; compare: the comparison; several agents: each one's and the matrix)",
  render: ({ results }) => json(results),
  renderComparison: (comparison) => json(comparison),
  renderAgents: ({ runs, matrix, missing }) => json({ agents: runs.map((r) => r.results), matrix, missing }),
  renderTune: ({ record, diff }) => json({ ...record, diff }),
  renderRejudge: (rejudge) => json(rejudge),
  renderContextComparisons: ({ comparisons, missing }) => json({ contexts: comparisons, missing }),
};
