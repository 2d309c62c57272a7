import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { StepRequest, StepResult } from './step.js';
import type { RunPlace } from '../runner/execute.js';
import { gradeStored } from '../grade/stored.js';
import { gradeStoredJudged, hasJudgedCases } from '../grade/judged.js';
import { askJudge } from './judge-stage.js';
import { checkRunnable, executeRun, newManifest, prepareRun, type RunTarget } from '../runner/execute.js';
import { changedSinceStart, resumeChanges } from '../runner/resume.js';
import { InputError } from '../util/input-error.js';
import { LOCK_FILE, lockRunFolder } from '../run/lock.js';
import type { MissingAgent } from '../report/reporter.js';
import { AGENT_RUNS_FILE, type AgentRuns, type Results, type RunManifest } from '../run/schema.js';
import { newRunId, readAgentRuns, RunFolderError, RunStore, writeAgentRuns } from '../run/store.js';
import { loadResults } from './grade.js';
import { agentMatrix } from '../verdict/agent-matrix.js';
import { buildResults } from '../verdict/results.js';
import { agentNotes, writeReports, type ReporterChoice, type ReportIo } from './reports.js';
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
export async function runAndGrade(
  loaded: LoadedSuite,
  opts: RunOptions,
  hooks: { checked?: boolean; onPrepared?: (target: RunTarget) => void } = {},
): Promise<FinishedRun> {
  if (!hooks.checked) await checkRunnable(loaded, opts);
  const target = await prepareRun(loaded, opts);
  try {
    hooks.onPrepared?.(target);
    const executed = await executeRun(loaded, opts, target);
    const { store, guard } = executed;
    let manifest = executed.manifest;
    try {
      // The judge asks only once the trials are all in: its requests are theirs. Stopped short, the run is too, and
      // its --resume asks the rest.
      if (manifest.status === 'completed' && hasJudgedCases(manifest)) {
        const spent = (await gradeStored(store, manifest)).outcomes.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
        const judged = await askJudge(loaded, opts, store, manifest, spent, runStep);
        if (judged !== 'completed') {
          manifest = { ...manifest, status: judged };
          await store.writeManifest(manifest);
        }
      }
      const { outcomes, damaged, judge } = await gradeStoredJudged(store, manifest);
      const results = buildResults(manifest, outcomes, damaged, new Date(), judge);
      await store.writeResults(results);
      return { store, manifest, results };
    } finally {
      guard.release();
    }
  } finally {
    target.lock.release();
  }
}

export interface AgentsRun {
  dir: string;
  runs: FinishedRun[];
  /** Reporters that failed to write (each named on stderr). */
  failed: string[];
}

type AgentEntry = AgentRuns['agents'][number];

/** The agents a run of several agents is for, in order. */
const plannedAgents = (record: AgentRuns) => record.planned ?? record.agents.map((a) => a.id);

/**
 * The agents `--resume` of a run of several agents runs: those it was for. `--agent` may name them again, not
 * others (each agent's folder is resumed with its own stored inputs).
 */
export function agentsToResume(record: AgentRuns, named: readonly string[] | undefined): string[] {
  const planned = plannedAgents(record);
  if (named && named.join(',') !== planned.join(',')) {
    throw new InputError({
      file: '--agent',
      what: `the run being resumed is for ${planned.join(', ')}, not ${named.join(', ')}`,
      todo: `leave --agent out (it resumes ${planned.join(', ')}), or start a new run`,
    });
  }
  return planned;
}

/** A folder's record of a run of several agents, refused in one line when damaged; undefined when it is not one. */
export async function readAgentsRecord(dir: string): Promise<AgentRuns | undefined> {
  if (!existsSync(join(dir, AGENT_RUNS_FILE))) return undefined;
  const record = await readAgentRuns(dir);
  if (!record.ok)
    throw new RunFolderError(
      join(dir, AGENT_RUNS_FILE),
      `agents.json ${record.problem}`,
      "report or resume each agent's run folder in it on its own",
    );
  return record.value;
}

/**
 * The suite once per agent, one after another, each a complete run folder inside one folder whose agents.json
 * names them all from the start; then one report of all of them with the agents × cases matrix. A run stopped short
 * (Ctrl-C, the cost cap, a fault) ends the sequence: the agents after it are not started. `--resume` of that folder
 * (`opts.resume`) resumes the agent that was stopped and runs the ones never started.
 */
export async function runAgents(
  suites: readonly LoadedSuite[],
  opts: RunOptions,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
  say: (text: string) => void,
): Promise<AgentsRun> {
  // Every agent's machine checks first: a problem with the last agent must not wait for the first one's trials.
  for (const suite of suites) await checkRunnable(suite, opts);
  const dir = opts.resume ?? join(suites[0]!.config.transcriptsDir, newRunId());
  if (opts.resume === undefined) await mkdir(dir, { recursive: true });
  // Taken before the record is read: of two resumes started together, the second is refused here.
  const lock = lockRunFolder(dir, opts.resume === undefined ? 'run' : 'run --resume');
  const resumed =
    opts.resume === undefined
      ? undefined
      : await readAgentsRecord(opts.resume).catch((e: unknown) => {
          lock.release();
          throw e;
        });
  const record: AgentRuns = resumed
    ? { ...resumed, endedAt: undefined }
    : { runId: basename(dir), startedAt: new Date().toISOString(), agents: [] };
  record.planned = suites.map((s) => s.adapter.id);
  const runs: FinishedRun[] = [];
  const place = (entry: AgentEntry) => {
    const i = record.agents.findIndex((a) => a.id === entry.id);
    if (i < 0) record.agents.push(entry);
    else record.agents[i] = entry;
    return writeAgentRuns(dir, record);
  };
  try {
    await writeAgentRuns(dir, record);
    for (const [i, suite] of suites.entries()) {
      const id = suite.adapter.id;
      const agentDir = join(dir, `${record.runId}-${id}`);
      const done = resumed?.agents.find((a) => a.id === id && a.status === 'completed');
      if (done) {
        runs.push(await completedAgentRun(join(dir, done.dir), suite, opts));
        say(`agent ${id}: completed before, kept (${i + 1} of ${suites.length})\n`);
        continue;
      }
      // Stopped mid-way: resumed in its own folder; never started (or killed before its run.json): started now.
      const again = existsSync(join(agentDir, 'run.json'));
      if (!again) await removeUnstartedFolder(agentDir);
      say(`agent ${id}: ${again ? 'resuming its run' : 'running the suite'} (${i + 1} of ${suites.length})\n`);
      await place({
        id,
        dir: basename(agentDir),
        binary: suite.binary,
        model: suite.config.model ?? suite.adapter.defaultModel,
        status: 'running',
      });
      const run = await runAndGrade(
        { ...suite, config: { ...suite.config, transcriptsDir: dir } },
        { ...opts, runId: basename(agentDir), resume: again ? agentDir : undefined },
        { checked: true },
      );
      runs.push(run);
      const { manifest, results } = run;
      await place({
        id,
        dir: basename(run.store.dir),
        binary: manifest.agent.binary,
        cliVersion: manifest.agent.cliVersion,
        model: manifest.model,
        status: manifest.status,
        exitCode: results.exitCode,
      });
      if (manifest.status !== 'completed') break;
    }
  } finally {
    // Whatever stopped the sequence, the record says when; the agents it never reached are planned, not listed.
    await writeAgentRuns(dir, { ...record, endedAt: new Date().toISOString() }).finally(() => lock.release());
  }
  const { failed } = await reportAgents(dir, runs, missingAgents(record, runs), reporters, io);
  return { dir, runs, failed };
}

/**
 * The folder of an agent killed before it wrote run.json: at most its empty trials/ and a lock, which go, so the
 * agent's run starts there afresh. Anything else in it is refused, never removed.
 */
async function removeUnstartedFolder(agentDir: string): Promise<void> {
  const entries = await readdir(agentDir).catch(() => undefined);
  if (entries === undefined) return;
  const trials = entries.includes('trials') ? await readdir(join(agentDir, 'trials')).catch(() => ['?']) : [];
  if (trials.length || entries.some((e) => e !== 'trials' && e !== LOCK_FILE)) {
    throw new RunFolderError(
      agentDir,
      'an agent folder without run.json that holds files',
      'restore its run.json, or move the folder away, then resume',
    );
  }
  await rm(agentDir, { recursive: true, force: true });
}

/** An agent a resumed run finished before: its stored results, refused (unless forced) if its inputs changed since. */
async function completedAgentRun(agentDir: string, suite: LoadedSuite, opts: RunOptions): Promise<FinishedRun> {
  const run = await loadResults(agentDir);
  const changes = resumeChanges(run.manifest, newManifest(suite, opts), undefined);
  if (changes.length && !opts.force) throw changedSinceStart(join(agentDir, 'run.json'), changes);
  return run;
}

/** The planned agents without a run to report, and why. */
function missingAgents(record: AgentRuns, runs: readonly FinishedRun[]): MissingAgent[] {
  const reported = new Set(runs.map((r) => r.manifest.agent.id));
  return plannedAgents(record)
    .filter((id) => !reported.has(id))
    .map((id) => ({
      id,
      why: record.agents.some((a) => a.id === id) ? 'its run folder could not be read' : 'not started: the run stopped before it',
    }));
}

/** One report of several agents' runs: each agent's report, the agents × cases matrix, and the agents missing. */
function reportAgents(
  dir: string,
  runs: readonly FinishedRun[],
  missing: MissingAgent[],
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ failed: string[] }> {
  const input = {
    runDir: describeRunDir({ dir }, io.cwd),
    runs: runs.map((r) => ({
      manifest: r.manifest,
      results: r.results,
      runDir: describeRunDir(r.store, io.cwd),
      agentNotes: agentNotes(r.manifest),
    })),
    matrix: agentMatrix(runs.map((r) => r.results)),
    missing,
  };
  return writeReports(reporters, (r) => r.renderAgents(input), io);
}

/**
 * `skillprobe report` of a run of several agents: every agent's stored results (graded in memory where they are
 * missing), reported together, with the agents the run never reached named; undefined when `dir` is not such a run.
 */
export async function reportStoredAgents(
  dir: string,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ runs: FinishedRun[]; missing: MissingAgent[]; failed: string[] } | undefined> {
  // Anything else (a run folder, a file, nothing) is the single-run report's to read or refuse.
  const record = await readAgentsRecord(dir);
  if (!record) return undefined;
  const read = await Promise.all(
    record.agents.map(async (a) => {
      try {
        return await loadResults(join(dir, a.dir));
      } catch (e) {
        // Killed before its run.json was written, or damaged: named as missing, never the end of the others' report.
        if (e instanceof RunFolderError) return undefined;
        throw e;
      }
    }),
  );
  const runs = read.filter((r) => r !== undefined);
  const missing = missingAgents(record, runs);
  return { runs, missing, ...(await reportAgents(dir, runs, missing, reporters, io)) };
}

/**
 * Runs a step, or reads it back: a finished run folder is never run again (a resumed tune replays its finished steps
 * and gets the same answers), an interrupted one is resumed, and a folder a kill left without its run.json (it holds
 * no trial yet) is made anew.
 */
export async function runStep(base: LoadedSuite, place: RunPlace, step: StepRequest): Promise<StepResult> {
  const manifestFile = join(step.dir, 'run.json');
  if (existsSync(join(step.dir, 'results.json')) && existsSync(manifestFile)) {
    const stored = await loadResults(step.dir);
    if (stored.manifest.status === 'completed') return stepResult(step.dir, stored.manifest, stored.results);
  }
  if (existsSync(step.dir) && !existsSync(manifestFile)) await rm(step.dir, { recursive: true, force: true });
  const resume = existsSync(manifestFile) ? step.dir : undefined;
  const loaded: LoadedSuite = {
    ...base,
    config: { ...step.config, transcriptsDir: dirname(step.dir) },
    skills: step.skills,
    suite: { ...base.suite, cases: step.cases },
    noTools: step.noTools,
  };
  const { manifest, results } = await runAndGrade(
    loaded,
    { ...place, overrides: {}, resume, runId: basename(step.dir) },
    { checked: true },
  );
  return stepResult(step.dir, manifest, results);
}

function stepResult(dir: string, manifest: RunManifest, results: Results): StepResult {
  return {
    dir,
    manifest,
    results,
    trials: results.outcomes.length,
    ...(results.run.costUsd !== undefined ? { costUsd: results.run.costUsd } : {}),
  };
}
