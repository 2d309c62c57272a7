import { benchmarkReporter } from './benchmark.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { markdownReporter } from './markdown.js';
import { pluginEvalReporter } from './plugin-eval-result.js';
import type { Reporter } from './reporter.js';
import { terminalReporter } from './terminal.js';

/** Where a reporter's text goes decides its styling: colour only on a terminal. */
export interface ReporterTarget {
  colour: boolean;
}

/** The only list of reporter names: `--reporter` takes these, `--help` lists them. */
export const REPORTER_NAMES = ['terminal', 'json', 'junit', 'markdown', 'html', 'benchmark', 'plugin-eval'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

export const REPORTERS: Record<ReporterName, (t: ReporterTarget) => Reporter> = {
  terminal: (t: ReporterTarget) => terminalReporter(t.colour),
  json: () => jsonReporter,
  junit: () => junitReporter,
  markdown: () => markdownReporter,
  html: () => htmlReporter,
  benchmark: () => benchmarkReporter,
  'plugin-eval': () => pluginEvalReporter,
};

export const isReporterName = (name: string): name is ReporterName => Object.hasOwn(REPORTERS, name);
