import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gradeStored } from '../grade/stored.js';
import { checkRunnable, executeRun, prepareRun, type RunTarget } from '../runner/execute.js';
import { AGENT_RUNS_FILE, type AgentRuns, type Results, type RunManifest } from '../run/schema.js';
import { newRunId, readAgentRuns, RunFolderError, RunStore, writeAgentRuns } from '../run/store.js';
import { loadResults } from './grade.js';
import { agentMatrix } from '../verdict/agent-matrix.js';
import { buildResults } from '../verdict/results.js';
import { writeReports, type ReporterChoice, type ReportIo } from './reports.js';
import { describeRunDir, type LoadedSuite, type RunOptions } from './run.js';

export interface FinishedRun {
  store: RunStore;
  manifest: RunManifest;
  results: Results;
}

/**
 * Runs one agent's suite to its end and grades it from the folder (so a resumed run's replayed trials count too);
 * the machine is checked first unless the caller has (`checked`).
 */
export async function runAndGrade(loaded: LoadedSuite, opts: RunOptions, hooks: { checked?: boolean; onPrepared?: (target: RunTarget) => void } = {}): Promise<FinishedRun> {
  if (!hooks.checked) await checkRunnable(loaded, opts);
  const target = await prepareRun(loaded, opts);
  hooks.onPrepared?.(target);
  const { store, manifest } = await executeRun(loaded, opts, target);
  const { outcomes, damaged } = await gradeStored(store, manifest);
  const results = buildResults(manifest, outcomes, damaged, new Date());
  await store.writeResults(results);
  return { store, manifest, results };
}

export interface AgentsRun {
  dir: string;
  runs: FinishedRun[];
  /** Reporters that failed to write (each named on stderr). */
  failed: string[];
}

/**
 * The suite once per agent, one after another, each a complete run folder inside one folder whose agents.json
 * names them; then one report of all of them with the agents × cases matrix. A run stopped short (Ctrl-C, the cost
 * cap, a fault) ends the sequence: the agents after it are not started.
 */
export async function runAgents(suites: readonly LoadedSuite[], opts: RunOptions, reporters: readonly ReporterChoice[], io: ReportIo, say: (text: string) => void): Promise<AgentsRun> {
  // Every agent's machine checks first: a problem with the last agent must not wait for the first one's trials.
  for (const suite of suites) await checkRunnable(suite, opts);
  const runId = newRunId();
  const dir = join(suites[0]!.config.transcriptsDir, runId);
  const record: AgentRuns = { runId, startedAt: new Date().toISOString(), agents: [] };
  await writeAgentRuns(dir, record);
  const runs: FinishedRun[] = [];
  try {
    for (const suite of suites) {
      say(`agent ${suite.adapter.id}: running the suite (${runs.length + 1} of ${suites.length})\n`);
      const run = await runAndGrade({ ...suite, config: { ...suite.config, transcriptsDir: dir } }, { ...opts, runId: `${runId}-${suite.adapter.id}` }, { checked: true });
      runs.push(run);
      const { manifest, results } = run;
      record.agents.push({ id: manifest.agent.id, dir: basename(run.store.dir), binary: manifest.agent.binary, cliVersion: manifest.agent.cliVersion, model: manifest.model, status: manifest.status, exitCode: results.exitCode });
      await writeAgentRuns(dir, record);
      if (manifest.status !== 'completed') break;
    }
  } finally {
    // Whatever stopped the sequence, the record says when; the agents it never reached are simply not in it.
    await writeAgentRuns(dir, { ...record, endedAt: new Date().toISOString() });
  }
  const { failed } = await reportAgents(dir, runs, reporters, io);
  return { dir, runs, failed };
}

/** One report of several agents' runs: each agent's report and the agents × cases matrix. */
function reportAgents(dir: string, runs: readonly FinishedRun[], reporters: readonly ReporterChoice[], io: ReportIo): Promise<{ failed: string[] }> {
  const input = { runDir: describeRunDir({ dir }), runs: runs.map((r) => ({ manifest: r.manifest, results: r.results, runDir: describeRunDir(r.store) })), matrix: agentMatrix(runs.map((r) => r.results)) };
  return writeReports(reporters, (r) => r.renderAgents(input), io);
}

/**
 * `skillprobe report` of a run of several agents: every agent's stored results (graded in memory where they are
 * missing), reported together; undefined when `dir` is not such a run.
 */
export async function reportStoredAgents(dir: string, reporters: readonly ReporterChoice[], io: ReportIo): Promise<{ runs: FinishedRun[]; failed: string[] } | undefined> {
  // Anything else (a run folder, a file, nothing) is the single-run report's to read or refuse.
  if (!existsSync(join(dir, AGENT_RUNS_FILE))) return undefined;
  const record = await readAgentRuns(dir);
  if (!record.ok) throw new RunFolderError(join(dir, 'agents.json'), `agents.json ${record.problem}`, 'report each agent\'s run folder in it on its own');
  const runs = await Promise.all(record.value.agents.map((a) => loadResults(join(dir, a.dir))));
  return { runs, ...(await reportAgents(dir, runs, reporters, io)) };
}
