import type { RefusedStatus, Results, RunManifest } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import type { AgentMatrix } from '../verdict/agent-matrix.js';
import type { Comparison } from '../verdict/comparison.js';
import type { ContextDifferenceRow } from '../verdict/context-difference.js';
import type { Context } from '../run/config-schema.js';
import type { RejudgeReportInput } from './rejudge.js';
import type { TuneReportInput } from './tune/view.js';
import type { MutateReportInput } from './mutate/view.js';

/** What to change per refused skill call, where an agent names a cause of its own (else the generic advice). */
export type RefusalFixes = Partial<Record<RefusedStatus, (asked: string) => string>>;

/** What reports need to know of the agent that ran: its adapter's, looked up by the command layer, so reporters know no agent. */
export interface AgentNotes {
  refusalFixes: RefusalFixes;
  /** What its file-read tool prints before each line, which a model may copy into a planned call. */
  readEchoPrefix?: RegExp;
}

/** What every reporter gets for one run: the manifest and the graded results, both read back from the run folder. */
export interface ReportInput {
  manifest: RunManifest;
  results: Results;
  agentNotes: AgentNotes;
  /** The run folder as the user named it (transcript paths in reports are relative to it). */
  runDir: string;
  /**
   * Canonical transcripts by `trialKey`, loaded at the edge only for reporters that ask for them
   * (`needsTranscripts`); a trial missing here is shown without its drill-down.
   */
  transcripts?: ReadonlyMap<string, Transcript>;
}

/** A run of several agents: each agent's run as one report's input, and their verdicts side by side. */
export interface AgentsReportInput {
  /** The folder holding every agent's run folder, as the user named it. */
  runDir: string;
  runs: ReportInput[];
  matrix: AgentMatrix;
  /** Agents the run was for that have no run to report (never started, or their folder unreadable). */
  missing: MissingAgent[];
}

export interface MissingAgent {
  id: string;
  why: string;
}

/** One interface, one registry (report/registry.ts): each reporter renders a run and a comparison of two runs. */
export interface Reporter {
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  /** The html drill-down shows each trial's canonical transcript; reading them costs a pass over the run folder. */
  readonly needsTranscripts?: boolean;
  render(input: ReportInput): string;
  renderComparison(comparison: Comparison): string;
  /** A run of several agents: each agent's report and the agents × cases matrix, as one document. */
  renderAgents(input: AgentsReportInput): string;
  /** A tune (`skillprobe tune`): its iterations, the holdout verdict and the diff; absent where a format has no place for it. */
  renderTune?(input: TuneReportInput): string;
  /** A mutate (`skillprobe mutate`): mutants × outcome and the kill rate per operator; absent where a format has no place for it. */
  renderMutate?(input: MutateReportInput): string;
  /** A rejudge (`skillprobe rejudge`): how often the judge's answers change; absent where a format has no place for it. */
  renderRejudge?(input: RejudgeReportInput): string;
  /** One agent's run in the lab and in the field side by side (`--context lab,field`); absent where a format has no place for it. */
  renderContexts?(input: ContextsReportInput): string;
  /** Two lab,field runs compared context by context (`compare`); absent where a format has no place for it. */
  renderContextComparisons?(input: ContextComparisons): string;
}

/** Two lab,field runs compared context by context: lab with lab, field with field, each as `compare` compares two runs. */
export interface ContextComparisons {
  comparisons: { context: Context; comparison: Comparison }[];
  /** Contexts one of the two folders has no run for, and why. */
  missing: { context: Context; why: string }[];
}

/** A run of one suite once per context (`--context lab,field`): each run, and the lab→field difference per case. */
export interface ContextsReportInput {
  /** The folder holding each context's run folder, as the user named it. */
  runDir: string;
  runs: (ReportInput & { context: Context })[];
  /** Each case both runs measured, field − lab; empty unless both runs are there. */
  rows: ContextDifferenceRow[];
  confidence: number;
  /** Contexts the run was for that have no run to report. */
  missing: MissingAgent[];
}
