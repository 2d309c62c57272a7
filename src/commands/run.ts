import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AGENT_RUNS_FILE } from '../run/schema.js';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { judgeProblems } from '../runner/judge-check.js';
import { loadCases } from '../load/cases.js';
import { checkValueAt, collectConfig, splitProblem } from '../load/config.js';
import { skillFolders } from '../load/family.js';
import { unwritableFolder, wrongEntry } from '../util/paths.js';
import type { Config } from '../run/config-schema.js';
import { selectSuite, type CaseSelection } from '../load/select.js';
import { InputError, ProblemList } from '../util/input-error.js';
import { loadSkills } from '../load/skills.js';
import { loadProfile, loadProfileForSuite } from '../sim/profile.js';
import { readAgentRunsSync, readManifestSync, RunStore } from '../run/store.js';
import type { RunPlace, SuiteToRun } from '../runner/execute.js';
import { casesOfShard, type Shard } from '../trials/shard.js';
import { gradableCase } from '../trials/stored-case.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { planSuite, type CasePlan } from './plan.js';

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
 * Everything that can be wrong with the user's input is found here, in one pass, before a single trial starts: each
 * stage is checked on whatever the stages before it could load, so one mistake never hides the next.
 * `need.run`: also what only a run needs (a writable transcripts folder, the agent binary, credentials); `need.judge`
 * false: the caller never asks the judge (tune scores triggering only), so its settings are not checked.
 */
export function loadSuite(
  opts: Pick<RunOptions, 'config' | 'sim' | 'overrides' | 'select' | 'shard' | 'resume' | 'callerEnv'>,
  need: { run: boolean; judge?: boolean } = { run: true },
  agentId?: string,
): LoadedSuite {
  const problems = new ProblemList();
  const loaded = collectConfig(opts.config, opts.overrides, problems);
  // Without the config file, where the skills and cases are is unknown: the flags were all there was to check.
  if (!loaded) throw new InputError(problems.items);
  const { config, file, fellBack } = loaded;
  const at = (key: keyof Config) => loaded.where([key]) ?? { file: key };

  // A skills folder the user named is checked here, to name their flag or line; the default is loadSkills' to report.
  const notFolder = loaded.where(['skillsDir']) && wrongEntry(config.skillsDir, 'folder');
  if (notFolder) problems.add({ ...at('skillsDir'), what: notFolder, todo: 'point it at the folder that holds <skill>/SKILL.md' });
  const skillsReadable = !notFolder && !fellBack.has('skillsDir');
  const skills = skillsReadable ? problems.collect(() => loadSkills(config.skillsDir)) : undefined;
  // A SKILL.md that does not load still names its skill: the cases are checked against the folder names.
  const family = skills ?? (skillsReadable ? skillFolders(config.skillsDir) : []);
  const all =
    family.length && !fellBack.has('cases') ? problems.collect(() => loadCases(config.cases, family, config.decision)) : undefined;
  // The profile is checked against every case, so one written for the whole suite stays valid for a selection. Case
  // files chosen by `--cases` are a selection too: a rule naming a case outside them is only inactive (lint checks
  // the profile against the config's own cases).
  const sim = opts.sim;
  const caseFilesChosen = opts.overrides?.cases !== undefined;
  const profile =
    sim === undefined
      ? undefined
      : problems.collect(() =>
          family.length
            ? loadProfileForSuite(sim, {
                skills: family.map((s) => s.dir),
                caseIds: caseFilesChosen ? undefined : all?.cases.map((c) => c.id),
              })
            : loadProfile(sim),
        );
  const unwritable =
    need.run && !fellBack.has('transcriptsDir') ? unwritableFolder(config.transcriptsDir, { mustExist: false }) : undefined;
  if (unwritable)
    problems.add({
      ...at('transcriptsDir'),
      what: unwritable,
      todo: 'point it at a folder you can write to (each run creates its folder there)',
    });
  const selected =
    all && !unwritable ? problems.collect(() => selectSuite(all, opts.select ?? {}, config.transcriptsDir, opts.resume)) : undefined;
  if (decisionMode(config.decision.mode).sequential && !config.arms.includes('skill')) {
    problems.add({
      ...at('arms'),
      what: 'sequential mode decides on the skill arm, but `arms` leaves it out',
      todo: 'add `skill` to arms, or use `decision.mode: fixed`',
    });
  }
  const agentKey = config.agents ? 'agents' : 'agent';
  const adapter = problems.collect(() => checkValueAt(loaded, agentKey, () => adapterFor(agentId ?? config.agents?.[0] ?? config.agent)));
  for (const id of Object.keys(config.models ?? {})) problems.collect(() => checkValueAt(loaded, 'models', () => adapterFor(id, 'models')));
  if (adapter && config.maxCostUsd !== undefined && !adapter.reportsCost) {
    problems.add({
      ...at('maxCostUsd'),
      what: `the ${adapter.skillListing.cli} reports no cost, so the cap could never stop the run`,
      todo: 'drop --max-cost for this agent, and bound the spend with --trials or decision.maxTrials (`skillprobe plan` prices them)',
    });
  }
  if (agentId !== undefined && config.agentBinary !== undefined) {
    problems.add({
      ...at('agentBinary'),
      what: 'one CLI binary for several agents would run it for each of them',
      todo: 'leave it out (each agent runs its pinned CLI), or run the agent it belongs to on its own',
    });
  }
  if (adapter && agentId !== undefined && loaded.where(['model']) && !config.models?.[adapter.id]) {
    // A model name belongs to one CLI, and which one is not for skillprobe to guess: every agent it would reach is named.
    const reached = (config.agents ?? [adapter.id]).filter((id) => !config.models?.[id]);
    problems.add({
      ...at('model'),
      what: `one model for several agents would send ${config.model} to each agent not named under \`models:\` (${reached.join(', ')})`,
      todo: `name each agent's model under \`models:\` (\`models: { ${reached[0]}: … }\`), or leave \`model\` out for each CLI's own default`,
    });
  }
  // Against a real model the provider's rate limits set the pace, so the limit adapts unless the user fixed one; the
  // simulator answers at once, and its runs keep the fixed default.
  if (sim === undefined && !loaded.where(['concurrency'])) config.concurrency = 'auto';
  if (adapter) {
    // Each agent's run is a run of one agent: its config says which, and which model it asked for (a model the
    // user did not name is the agent's own default, not another CLI's).
    config.agent = adapter.id;
    delete config.agents;
    config.model = config.models?.[adapter.id] ?? (loaded.where(['model']) ? config.model : adapter.defaultModel);
    delete config.models;
  }
  // Nothing left to run (--last-failed, nothing failed): no binary or credentials are needed to say so.
  const runs = need.run && selected?.nothingFailedIn === undefined && adapter !== undefined;
  const binary = runs
    ? problems.collect(() => checkValueAt(loaded, 'agentBinary', () => adapter.resolveBinary(config.agentBinary)))
    : (config.agentBinary ?? '');
  // A simulated run resumed without --sim would ask for credentials it never needed: name the flag instead.
  const simulated = opts.resume !== undefined && sim === undefined ? simulatedRun(opts.resume) : undefined;
  if (simulated)
    problems.add({
      file: '--sim',
      what: `run ${opts.resume} ran against the model simulator (profile ${simulated}), and its resume must too`,
      todo: `add --sim ${simulated}`,
    });
  const noCredentials = runs && sim === undefined && !simulated ? adapter.credentialProblem(opts.callerEnv ?? process.env) : undefined;
  if (noCredentials) {
    const [what, todo] = splitProblem(noCredentials);
    problems.add({ file: 'environment', what, todo });
  }
  const judged = need.judge !== false && all?.cases.some((c) => c.expect.judge?.length);
  if (adapter && all && judged) for (const p of judgeProblems(loaded, adapter, config.model, all.cases)) problems.add(p);
  const judgeAgent = judged ? (config.judge?.agent ?? adapter?.id) : undefined;
  // A judge of another CLI needs its own binary and credentials, checked with the run's.
  const judgeCli =
    runs && judgeAgent !== undefined && judgeAgent !== adapter.id && AGENT_IDS.includes(judgeAgent)
      ? problems.collect(() => {
          const judgeAdapter = adapterFor(judgeAgent, 'judge.agent');
          const missing = sim === undefined && !simulated ? judgeAdapter.credentialProblem(opts.callerEnv ?? process.env) : undefined;
          if (missing) {
            const [what, todo] = splitProblem(missing);
            throw new InputError({ file: 'environment', what: `the judge (${judgeAgent}): ${what}`, todo });
          }
          return { adapter: judgeAdapter, binary: judgeAdapter.resolveBinary(undefined) };
        })
      : undefined;
  problems.throwIfAny();
  // No problem was found, so every stage loaded.
  const loadedSuite = {
    config,
    configFile: file,
    skills: skills!,
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
export function loadSuites(
  opts: Pick<RunOptions, 'config' | 'sim' | 'overrides' | 'select' | 'shard' | 'resume' | 'callerEnv'>,
): LoadedSuite[] {
  const loaded = collectConfig(opts.config, opts.overrides, new ProblemList());
  const agents = loaded?.config.agents;
  if (!loaded || !agents || agents.length === 1) return [loadSuite(opts)];
  // Every id first, so a mistyped last agent is named before the first one's files are even read.
  for (const id of agents) checkValueAt(loaded, 'agents', () => adapterFor(id));
  const one = (flag: string, what: string, todo: string) =>
    new InputError({ file: flag, what: `${what}, and ${agents.length} agents were named`, todo });
  if (opts.shard) throw one('--shard', "runs one share of one agent's suite", "shard each agent's run on its own (--agent ID --shard I/N)");
  if (opts.resume !== undefined && !existsSync(join(opts.resume, AGENT_RUNS_FILE))) {
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

/** The simulator profile a stored run (one agent's, or the first of several) ran with, if it did. */
function simulatedRun(dir: string): string | undefined {
  const outer = readAgentRunsSync(dir);
  const first = outer.ok ? outer.value.agents[0]?.dir : undefined;
  const m = readManifestSync(first ? join(dir, first) : dir);
  return m.ok ? m.value.simulator?.profile : undefined;
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

export function describeRunDir(store: Pick<RunStore, 'dir'>): string {
  return relative(process.cwd(), store.dir) || store.dir;
}
