/**
 * What skillprobe's conformance suite (`test/agent-conformance.e2e.test.ts`: every scenario through the real CLI
 * against the simulator) found on one version of a CLI. Each adapter keeps its own list in `<cli>/conformance.ts`;
 * `skillprobe doctor` reads it to say whether the CLI a user has was checked.
 */
export interface ConformanceRecord {
  /** The version the CLI printed. */
  version: string;
  /** Whether every check of the suite passed on it. */
  passed: boolean;
  /** When the suite ran, YYYY-MM-DD. */
  date: string;
  /**
   * What this version does differently from the pinned one, as the suite found it: what the adapter now does about
   * it, or what failed. Empty for the version the suite was written against.
   */
  differs: readonly string[];
}

/** Where a version stands in a CLI's record: checked (passed or failed), or never checked. */
export type Conformance =
  { kind: 'passed' | 'failed'; record: ConformanceRecord } | { kind: 'unrecorded'; checked: readonly ConformanceRecord[] };

/** The record of `version`, or what was checked instead. */
export function conformanceOf(records: readonly ConformanceRecord[], version: string): Conformance {
  const record = records.find((r) => r.version === version);
  if (!record) return { kind: 'unrecorded', checked: records };
  return { kind: record.passed ? 'passed' : 'failed', record };
}

/** The npm package a CLI comes in and the command it installs: what a user adds, and what is looked for on PATH. */
export interface CliPackage {
  /** The npm package (`@anthropic-ai/claude-code`). */
  name: string;
  /** The command it puts on PATH (`claude`). */
  command: string;
}
