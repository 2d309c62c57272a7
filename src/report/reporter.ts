import type { Results, RunManifest } from '../run/schema.js';

/** What every reporter gets: the manifest and the graded results, both read back from the run folder. */
export interface ReportInput {
  manifest: RunManifest;
  results: Results;
}

/** One interface, many reporters (terminal, json; markdown, junit and html slot in beside them). */
export interface Reporter {
  readonly name: string;
  render(input: ReportInput): string;
}
