import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_RUNS_FILE } from '../run/schema.js';
import { adapterFor, fixtureSeal } from '../agents/registry.js';
import { checkValueAt, collectConfig } from '../load/config.js';
import { caseNeighbourSkills } from '../load/neighbours.js';
import {
  checkCases,
  checkMcp,
  checkNeighbours,
  checkSkills,
  checkSuiteFixtures,
  checkTranscriptsFolder,
  placeOf,
} from '../load/suite-inputs.js';
import type { Config, Context } from '../run/config-schema.js';
import { selectSuite, type CaseSelection } from '../load/select.js';
import { InputError, ProblemList } from '../util/input-error.js';
import type { RunPlace, SuiteToRun } from './execute.js';
import {
  checkAgent,
  checkArms,
  checkBinary,
  checkJudge,
  checkProfile,
  checkSimulatedResume,
  credentialProblem,
  settleAgent,
  checkBundledNames,
  checkContext,
  checkConversation,
  checkMcpToolNames,
} from './suite-checks.js';
import { casesOfShard, type Shard } from '../trials/shard.js';
import { gradableCase } from '../trials/stored-case.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { planSuite, type CasePlan } from '../verdict/suite-plan.js';
import { fromFolder } from '../util/paths.js';

export interface RunOptions extends RunPlace {
  config?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
  select?: CaseSelection;
  /** Run only this share of the selected cases (`--shard I/N`). */
  shard?: Shard;
}
export interface LoadedSuite extends SuiteToRun {
  /** With `--last-failed`: the run it read, when nothing in it failed (then there is nothing to run). */
  nothingFailedIn?: string;
}

/**
 * What a suite is loaded from: the working folder, the config and its flags, the selection, and the environment a run
 * would start from (none: no credentials).
 */
export type SuiteInputs = Pick<RunOptions, 'cwd' | 'config' | 'sim' | 'overrides' | 'select' | 'shard' | 'resume'> &
  Partial<Pick<RunOptions, 'callerEnv'>>;

/**
 * Everything that can be wrong with the user's input is found here, in one pass, before a single trial starts: each
 * input has its checker, run on whatever the checkers before it could load, so one mistake never hides the next.
 * `need.run`: also what only a run needs (a writable transcripts folder, the agent binary, credentials); `need.judge`
 * false: the caller never asks the judge (tune scores triggering only), so its settings are not checked.
 */
export function loadSuite(opts: SuiteInputs, need: { run: boolean; judge?: boolean } = { run: true }, agentId?: string): LoadedSuite {
  const problems = new ProblemList();
  const loaded = collectConfig(opts.config, opts.overrides, problems, opts.cwd);
  // Without the config file, where the skills and cases are is unknown: the flags were all there was to check.
  if (!loaded) throw new InputError(problems.items);
  const { config } = loaded;
  const { skills, family } = checkSkills(loaded, problems);
  const neighbours = checkNeighbours(loaded, family, problems);
  const mcp = checkMcp(loaded, opts.callerEnv?.PATH, problems);
  const all = checkCases(loaded, family, checkSuiteFixtures(loaded, fixtureSeal(), problems), problems, neighbours, mcp);
  // A profile may play a neighbour (the suite's or a case's) as it plays a family skill: all are installed.
  const installed = [...family, ...neighbours, ...caseNeighbourSkills(all?.cases ?? [])];
  const profile = checkProfile(opts.sim, installed, all, opts.overrides?.cases !== undefined, problems, opts.cwd);
  const unwritable = checkTranscriptsFolder(loaded, need.run, problems);
  const selected =
    all && !unwritable
      ? problems.collect(() => selectSuite(all, opts.select ?? {}, config.transcriptsDir, opts.resume, opts.cwd))
      : undefined;
  checkArms(loaded, problems);
  const adapter = checkAgent(loaded, agentId, problems);
  settleAgent(loaded, adapter, opts.sim !== undefined);
  if (adapter && all) checkContext(loaded, adapter, all, problems);
  if (adapter && all) checkConversation(adapter, all, problems);
  if (adapter && all) checkMcpToolNames(adapter, all, problems);
  if (adapter && all) checkBundledNames(loaded, adapter, all, [...(skills ?? []), ...neighbours], problems);
  // Nothing left to run (--last-failed, nothing failed): no binary or credentials are needed to say so.
  const runs = need.run && selected?.nothingFailedIn === undefined && adapter !== undefined;
  const binary = runs ? checkBinary(loaded, adapter, problems) : (config.agentBinary ?? '');
  const simulated = checkSimulatedResume(opts.resume, opts.sim, problems, opts.cwd);
  // A run that will reach a real model; with no environment given, it has no credentials.
  const real = runs && opts.sim === undefined && !simulated ? (opts.callerEnv ?? {}) : undefined;
  // A login's files are copied into every trial, a simulated one's too: they must be there either way.
  const login = config.auth === 'login' ? { where: placeOf(loaded, 'auth') } : undefined;
  const env = login && runs ? (opts.callerEnv ?? {}) : real;
  const noCredentials = env && credentialProblem(adapter!, env, undefined, login);
  if (noCredentials) problems.add(noCredentials);
  const judgeCli =
    need.judge !== false && adapter && all
      ? checkJudge(loaded, adapter, all, runs ? { real: env, login } : undefined, problems)
      : undefined;
  problems.throwIfAny();
  // No problem was found, so every input loaded.
  const loadedSuite = {
    config,
    configFile: loaded.file,
    skills: skills!,
    ...(neighbours.length ? { neighbours } : {}),
    suite: selected!.suite,
    profile,
    adapter: adapter!,
    binary: binary!,
    ...(judgeCli ? { judgeCli } : {}),
    nothingFailedIn: selected!.nothingFailedIn,
  };
  return opts.shard ? shareOf(loadedSuite, opts.shard) : loadedSuite;
}

/**
 * The suite once per agent the config or `--agent` names (one for a run of one agent), each checked in full before
 * any trial starts.
 */
export function loadSuites(opts: SuiteInputs): LoadedSuite[] {
  const loaded = collectConfig(opts.config, opts.overrides, new ProblemList(), opts.cwd);
  const agents = loaded?.config.agents;
  if (!loaded || !agents || agents.length === 1) return [loadSuite(opts)];
  // Every id first, so a mistyped last agent is named before the first one's files are even read.
  for (const id of agents) checkValueAt(loaded, 'agents', () => adapterFor(id));
  const one = (flag: string, what: string, todo: string) =>
    new InputError({ file: flag, what: `${what}, and ${agents.length} agents were named`, todo });
  if (opts.shard) throw one('--shard', "runs one share of one agent's suite", "shard each agent's run on its own (--agent ID --shard I/N)");
  if (opts.resume !== undefined && !existsSync(join(fromFolder(opts.cwd, opts.resume), AGENT_RUNS_FILE))) {
    throw one(
      '--resume',
      "names one agent's run folder",
      'resume the folder of the whole run (the one holding agents.json), or this agent on its own (--agent ID)',
    );
  }

  if (opts.select?.lastFailed)
    throw one('--last-failed', "reads one agent's newest run", 'rerun the failures of each agent on its own (--agent ID --last-failed)');
  // The agent ids are checked by the first load; each agent's own problems (binary, credentials) by its load.
  return agents.map((id) => loadSuite(opts, { run: true }, id));
}

/** Where both contexts were asked for, when the command line names none: the config's `context: [lab, field]`. */
export interface ConfigContexts {
  contexts: Context[];
  /** `context: [lab, field]` and the file it is in, for messages. */
  from: string;
}

/**
 * The contexts the config asks the suite to run in side by side (`context: [lab, field]`), unless `--context` names
 * one; undefined when it asks for one, or cannot be read (loading the suite then reports why).
 */
export function configContexts(opts: Pick<SuiteInputs, 'cwd' | 'config' | 'overrides'>): ConfigContexts | undefined {
  const loaded = collectConfig(opts.config, opts.overrides, new ProblemList(), opts.cwd);
  if (!loaded?.contexts) return undefined;
  return { contexts: loaded.contexts, from: `\`context: [${loaded.contexts.join(', ')}]\` in ${loaded.file}` };
}

/**
 * `--context lab,field` (or the config's `context: [lab, field]`, named by `from`): one agent's suite once per
 * context, each checked in full before any trial starts. The context asked for is every case's: a case's own
 * `context` is set aside, or the two runs would not differ there.
 */
export function loadContextSuites(opts: SuiteInputs, contexts: readonly Context[], from = '--context lab,field'): LoadedSuite[] {
  return contexts.map((context) => {
    const suites = loadSuites({ ...opts, overrides: { ...opts.overrides, context } });
    if (suites.length > 1)
      throw new InputError({
        file: 'agents',
        what: `${from} runs one agent in both contexts, and the config names ${suites.length} agents`,
        todo: 'run lab,field once per agent (--agent ID)',
      });
    const [loaded] = suites as [LoadedSuite];
    return { ...loaded, suite: { ...loaded.suite, cases: loaded.suite.cases.map(({ context: _own, ...c }) => c) } };
  });
}

/** The suite narrowed to one shard's cases, balanced across shards by the trials each case is expected to take. */
function shareOf(loaded: LoadedSuite, shard: Shard): LoadedSuite {
  const { config, suite } = loaded;
  const plan = planSuite(
    config,
    suite.cases.map((c) => gradableCase(c, config)),
  );
  const expected = (c: CasePlan) => (decisionMode(plan.mode).sequential ? c.worst.expectedTrials : c.configuredFixed) * c.arms;
  const mine = casesOfShard(
    plan.cases.map((c) => ({ id: c.caseId, expectedTrials: expected(c) })),
    shard,
  );
  return {
    ...loaded,
    suite: { ...suite, cases: suite.cases.filter((c) => mine.has(c.id)) },
    shard: { ...shard, suiteCases: suite.cases.map((c) => c.id) },
  };
}
