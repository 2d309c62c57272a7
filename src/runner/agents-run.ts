import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError } from '../util/input-error.js';
import { LOCK_FILE, lockRunFolder } from '../run/lock.js';
import { AGENT_RUNS_FILE, type AgentRuns, type StoredCanary } from '../run/schema.js';
import { newRunId, readAgentRuns, RunFolderError, writeAgentRuns } from '../run/store.js';
import { checkRunnable, newManifest, type RunPlace, type SuiteToRun } from './execute.js';
import { runPipeline, type FinishedRun } from './pipeline.js';
import { changedSinceStart, resumeChanges } from './resume.js';
import { loadResults } from './stored-results.js';
import type { MissingAgent } from '../report/reporter.js';
import { CONTEXTS, type Context } from '../run/config-schema.js';
import { fromFolder } from '../util/paths.js';

export interface AgentsRun {
  dir: string;
  runs: FinishedRun[];
  /** The planned agents without a run to report, and why. */
  missing: MissingAgent[];
}

type AgentEntry = AgentRuns['agents'][number];

/** The agents a run of several agents is for, in order. */
const plannedAgents = (record: AgentRuns) => record.planned ?? record.agents.map((a) => a.id);

/** The contexts a lab,field folder (`by: context`) is for, in order. */
export const plannedContexts = (record: AgentRuns): Context[] =>
  plannedAgents(record).filter((id): id is Context => (CONTEXTS as readonly string[]).includes(id));

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

/**
 * The contexts `--resume` of a lab,field run folder runs: those it was for, in order. `--context` may name them again,
 * not others (each context's folder is resumed with its own stored inputs).
 */
export function contextsToResume(record: AgentRuns, named: { contexts?: readonly Context[]; context?: unknown }): Context[] {
  const planned = plannedContexts(record);
  const asked = named.contexts?.join(',') ?? (named.context === undefined ? undefined : String(named.context));
  if (asked !== undefined && asked !== planned.join(',')) {
    throw new InputError({
      file: '--context',
      what: `the run being resumed is for ${planned.join(',')}, not ${asked}`,
      todo: `leave --context out (it resumes ${planned.join(' and ')}), or resume one context's run folder in it on its own`,
    });
  }
  return planned;
}

/** A folder's record of a run of several agents, refused in one line when damaged; undefined when it is not one. */
export async function readAgentsRecord(dir: string, cwd?: string): Promise<AgentRuns | undefined> {
  const at = fromFolder(cwd, dir);
  if (!existsSync(join(at, AGENT_RUNS_FILE))) return undefined;
  const record = await readAgentRuns(at);
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
 * names them all from the start (the caller reports them all together). A run stopped short
 * (Ctrl-C, the cost cap, a fault) ends the sequence: the agents after it are not started. `--resume` of that folder
 * (`opts.resume`) resumes the agent that was stopped and runs the ones never started.
 */
export async function runAgents(
  suites: readonly SuiteToRun[],
  opts: RunPlace,
  say: (text: string) => void,
  by?: { contexts: readonly Context[]; canaries?: readonly StoredCanary[] },
): Promise<AgentsRun> {
  // One run per context names each by its context; one per agent, by its agent.
  const idOf = (i: number) => by?.contexts[i] ?? suites[i]!.adapter.id;
  const kind = by ? 'context' : 'agent';
  // Every agent's machine checks first: a problem with the last agent must not wait for the first one's trials.
  await checkRunnable(suites, opts);
  const named = opts.resume ?? join(suites[0]!.config.transcriptsDir, newRunId());
  const dir = fromFolder(opts.cwd, named);
  if (opts.resume === undefined) await mkdir(dir, { recursive: true });
  // Taken before the record is read: of two resumes started together, the second is refused here.
  const lock = lockRunFolder(dir, opts.resume === undefined ? 'run' : 'run --resume');
  const resumed =
    opts.resume === undefined
      ? undefined
      : await readAgentsRecord(opts.resume, opts.cwd).catch((e: unknown) => {
          lock.release();
          throw e;
        });
  const record: AgentRuns = resumed
    ? { ...resumed, endedAt: undefined }
    : { runId: basename(dir), startedAt: new Date().toISOString(), ...(by ? { by: 'context' as const } : {}), agents: [] };
  record.planned = suites.map((_, i) => idOf(i));
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
      const id = idOf(i);
      const agentDir = join(dir, `${record.runId}-${id}`);
      const done = resumed?.agents.find((a) => a.id === id && a.status === 'completed');
      if (done) {
        runs.push(await completedAgentRun(join(dir, done.dir), suite, opts));
        say(`${kind} ${id}: completed before, kept (${i + 1} of ${suites.length})\n`);
        continue;
      }
      // Stopped mid-way: resumed in its own folder; never started (or killed before its run.json): started now.
      const again = existsSync(join(agentDir, 'run.json'));
      if (!again) await removeUnstartedFolder(agentDir);
      say(`${kind} ${id}: ${again ? 'resuming its run' : 'running the suite'} (${i + 1} of ${suites.length})\n`);
      await place({
        id,
        dir: basename(agentDir),
        binary: suite.binary,
        model: suite.config.model ?? suite.adapter.defaultModel,
        status: 'running',
      });
      const run = await runPipeline(
        { ...suite, config: { ...suite.config, transcriptsDir: named } },
        { ...opts, runId: basename(agentDir), resume: again ? agentDir : undefined, ...(by?.canaries ? { canary: by.canaries[i] } : {}) },
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
  return { dir, runs, missing: missingAgents(record, runs) };
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
async function completedAgentRun(agentDir: string, suite: SuiteToRun, opts: RunPlace): Promise<FinishedRun> {
  const run = await loadResults(agentDir);
  const changes = resumeChanges(run.manifest, newManifest(suite, opts), undefined, opts.canaryMaxTrials);
  if (changes.length && !opts.force) throw changedSinceStart(join(agentDir, 'run.json'), changes);
  return run;
}

/** The planned agents without a run to report, and why. */
function missingAgents(record: AgentRuns, runs: readonly FinishedRun[]): MissingAgent[] {
  // By folder, not by agent id: one run per context has the same agent in each.
  const folders = new Set(runs.map((r) => basename(r.store.dir)));
  const reported = new Set(record.agents.filter((a) => folders.has(a.dir)).map((a) => a.id));
  return plannedAgents(record)
    .filter((id) => !reported.has(id))
    .map((id) => ({
      id,
      why: record.agents.some((a) => a.id === id) ? 'its run folder could not be read' : 'not started: the run stopped before it',
    }));
}

/**
 * A run of several agents as stored, for `skillprobe report`: every agent's stored results (graded in memory where
 * they are missing), with the agents the run never reached named; undefined when `dir` is not such a run.
 */
export async function readStoredAgents(
  dir: string,
  cwd?: string,
): Promise<{ runs: FinishedRun[]; missing: MissingAgent[]; by?: AgentRuns['by'] } | undefined> {
  // Anything else (a run folder, a file, nothing) is the single-run report's to read or refuse.
  const record = await readAgentsRecord(dir, cwd);
  if (!record) return undefined;
  const read = await Promise.all(
    record.agents.map(async (a) => {
      try {
        return await loadResults(join(dir, a.dir), cwd);
      } catch (e) {
        // Killed before its run.json was written, or damaged: named as missing, never the end of the others' report.
        if (e instanceof RunFolderError) return undefined;
        throw e;
      }
    }),
  );
  const runs = read.filter((r) => r !== undefined);
  return { runs, missing: missingAgents(record, runs), ...(record.by ? { by: record.by } : {}) };
}
