import { killRates, mutantRows } from './mutate/view.js';
import type { Results, RunManifest } from '../run/schema.js';
import type { Comparison } from '../verdict/comparison.js';
import type { Reporter } from './reporter.js';
import { missingAgentText } from './wording.js';

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/**
 * A reporter writing another tool's JSON format: a run as `ofRun` shapes it, a comparison as `ofComparison` does, and a
 * run of several agents as each agent's run and the agents that have nothing to report.
 */
export function jsonFormatReporter(spec: {
  name: string;
  description: string;
  ofRun: (manifest: RunManifest, results: Results) => unknown;
  ofComparison: (comparison: Comparison) => unknown;
}): Reporter {
  return {
    name: spec.name,
    description: spec.description,
    render: ({ manifest, results }) => json(spec.ofRun(manifest, results)),
    renderComparison: (comparison) => json(spec.ofComparison(comparison)),
    renderAgents: ({ runs, missing, runDir }) =>
      json({ agents: runs.map((r) => spec.ofRun(r.manifest, r.results)), missing: missing.map((m) => missingAgentText(m, runDir)) }),
  };
}

/** The results for machines: exactly results.json; a comparison as its own JSON document. */
export const jsonReporter: Reporter = {
  name: 'json',
  description: "the results as JSON (exactly results.json; compare: the comparison; several agents: each one's and the matrix)",
  render: ({ results }) => json(results),
  renderComparison: (comparison) => json(comparison),
  renderAgents: ({ runs, matrix, missing }) => json({ agents: runs.map((r) => r.results), matrix, missing }),
  renderTune: ({ record, diff }) => json({ ...record, diff }),
  renderMutate: ({ record }) => json({ ...record, outcomes: mutantRows(record), killRates: killRates(record) }),
  renderRejudge: (rejudge) => json(rejudge),
  renderContextComparisons: ({ comparisons, missing }) => json({ contexts: comparisons, missing }),
};
