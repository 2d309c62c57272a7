import { mutatePage } from './html/mutate-page.js';
import { tunePage } from './html/tune-page.js';
import { agentsPage } from './html/agents-page.js';
import { comparePage } from './html/compare-page.js';
import { runPage } from './html/run-page.js';
import type { Reporter } from './reporter.js';

/** One self-contained HTML page per run or comparison: charts, routing heatmap and each trial's evidence, no network. */
export const htmlReporter: Reporter = {
  name: 'html',
  description: 'a self-contained HTML page (charts, routing heatmap, SPRT paths, trial transcripts); opens offline',
  needsTranscripts: true,
  render: runPage,
  renderComparison: comparePage,
  renderAgents: agentsPage,
  renderTune: tunePage,
  renderMutate: mutatePage,
};
