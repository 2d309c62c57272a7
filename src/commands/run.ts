import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import { adapterFor } from '../agents/registry.js';
import { killAllAgentGroups } from '../agents/spawn.js';
import type { AgentAdapter } from '../agents/types.js';
import { explainOutcome } from '../grade/explain.js';
import { gradeTrial } from '../grade/outcome.js';
import { gradeOptions } from './grade.js';
import { loadCases, type Case, type CaseSuite } from '../load/cases.js';
import { checkValueAt, collectConfig, splitProblem } from '../load/config.js';
import { skillFolders } from '../load/family.js';
import { unwritableFolder, wrongEntry } from '../load/paths.js';
import type { Config } from '../run/config-schema.js';
import { selectSuite, type CaseSelection } from '../load/select.js';
import { InputError, ProblemList } from '../load/input-error.js';
import { familyHash, loadSkills, type Skill } from '../load/skills.js';
import { createProgress } from '../runner/progress.js';
import { runSuite } from '../runner/run-suite.js';
import type { TrialRecord } from '../runner/trial.js';
import { loadProfile, loadProfileForSuite, type Profile } from '../sim/profile.js';
import { startSimulator, type RunningSimulator } from '../sim/server.js';
import { currentOwner, newRunId, RunStore } from '../run/store.js';
import type { RunManifest } from '../run/schema.js';
import { resolveDecision } from '../trials/decision.js';
import { FixedScheduler, SprtScheduler, type TrialScheduler } from '../trials/schedule.js';
import { WorkspacePool } from '../workspace/pool.js';
import { checkWorkspaceRoot } from '../workspace/sealed.js';
import type { FamilyMember, GradableCase, TrialOutcome } from '../run/schema.js';

const require = createRequire(import.meta.url);
export const HARNESS_VERSION: string = (require('../../package.json') as { version: string }).version;


export interface RunOptions {
  config?: string;
  sim?: string;
  keepWorkspaces?: boolean;
  workdir?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
  select?: CaseSelection;
}
export interface LoadedSuite {
  config: Config;
  configFile?: string;
  skills: Skill[];
  suite: CaseSuite;
  profile?: Profile;
  adapter: AgentAdapter;
  binary: string;
  /** With `--last-failed`: the run it read, when nothing in it failed (then there is nothing to run). */
  nothingFailedIn?: string;
}

/**
 * Everything that can be wrong with the user's input is found here, in one pass, before a single trial starts: each
 * stage is checked on whatever the stages before it could load, so one mistake never hides the next.
 * `need.run`: also what only a run needs (a writable transcripts folder, the agent binary, credentials).
 */
export function loadSuite(opts: Pick<RunOptions, 'config' | 'sim' | 'overrides' | 'select'>, need: { run: boolean } = { run: true }): LoadedSuite {
  const problems = new ProblemList();
  const loaded = collectConfig(opts.config, opts.overrides, problems);
  // Without the config file, where the skills and cases are is unknown: the flags were all there was to check.
  if (!loaded) throw new InputError(problems.items);
  const { config, file, fellBack } = loaded;
  const at = (key: keyof Config) => loaded.where([key]) ?? { file: key };

  const notFolder = loaded.where(['skillsDir']) && wrongEntry(config.skillsDir, 'folder');
  if (notFolder) problems.add({ ...at('skillsDir'), what: notFolder, todo: 'point it at the folder that holds <skill>/SKILL.md' });
  const skillsReadable = !notFolder && !fellBack.has('skillsDir');
  const skills = skillsReadable ? problems.collect(() => loadSkills(config.skillsDir)) : undefined;
  // A SKILL.md that does not load still names its skill: the cases are checked against the folder names.
  const family = skills ?? (skillsReadable ? skillFolders(config.skillsDir) : []);
  const all = family.length && !fellBack.has('cases') ? problems.collect(() => loadCases(config.cases, family, config.decision)) : undefined;
  // The profile is checked against every case, so one written for the whole suite stays valid for a selection.
  const sim = opts.sim;
  const profile =
    sim === undefined
      ? undefined
      : problems.collect(() => (family.length ? loadProfileForSuite(sim, { skills: family.map((s) => s.dir), caseIds: all?.cases.map((c) => c.id) }) : loadProfile(sim)));
  const unwritable = need.run && !fellBack.has('transcriptsDir') ? unwritableFolder(config.transcriptsDir, { mustExist: false }) : undefined;
  if (unwritable) problems.add({ ...at('transcriptsDir'), what: unwritable, todo: 'point it at a folder you can write to (each run creates its folder there)' });
  const selected = all && !unwritable ? problems.collect(() => selectSuite(all, opts.select ?? {}, config.transcriptsDir)) : undefined;
  if (config.decision.mode === 'sprt' && !config.arms.includes('skill')) {
    problems.add({ ...at('arms'), what: 'sequential mode decides on the skill arm, but `arms` leaves it out', todo: 'add `skill` to arms, or use `decision.mode: fixed`' });
  }
  const adapter = adapterFor(config.agent);
  // Nothing left to run (--last-failed, nothing failed): no binary or credentials are needed to say so.
  const runs = need.run && selected?.nothingFailedIn === undefined;
  const binary = runs ? problems.collect(() => checkValueAt(loaded, 'agentBinary', () => adapter.resolveBinary(config.agentBinary))) : (config.agentBinary ?? '');
  const noCredentials = runs && sim === undefined ? adapter.credentialProblem(process.env) : undefined;
  if (noCredentials) {
    const [what, todo] = splitProblem(noCredentials);
    problems.add({ file: 'environment', what, todo });
  }
  problems.throwIfAny();
  // No problem was found, so every stage loaded.
  return { config, configFile: file, skills: skills!, suite: selected!.suite, profile, adapter, binary: binary!, nothingFailedIn: selected!.nothingFailedIn };
}

/** The case as graders need it, stored in run.json so a regrade needs nothing but the run folder. */
export function gradableCase(c: Case, config: Config): GradableCase {
  return {
    id: c.id,
    expect: c.expect.skill,
    exclusive: c.exclusive,
    tags: c.tags,
    plan: c.plan,
    command: c.command ?? config.commands[c.expect.skill],
    decision: resolveDecision(config.decision, c.tags, c.decision),
  };
}

export interface RunOutcome {
  store: RunStore;
  manifest: RunManifest;
  records: TrialRecord[];
  outcomes: TrialOutcome[];
}

export async function executeRun(loaded: LoadedSuite, opts: RunOptions): Promise<RunOutcome> {
  const { config, skills, suite, adapter, binary, profile } = loaded;
  await checkWorkspaceRoot(opts.workdir ? resolve(opts.workdir) : undefined, adapter.ancestorLeaks);
  const runId = newRunId();
  const store = await RunStore.create(config.transcriptsDir, runId);
  const defs = suite.cases.map((c) => gradableCase(c, config));
  const scheduler: TrialScheduler =
    config.decision.mode === 'sprt' ? new SprtScheduler(defs, config.arms, config.ablation) : new FixedScheduler(defs, config.arms, config.trials, config.ablation);
  const manifest: RunManifest = {
    runId,
    harness: { name: 'skillprobe', version: HARNESS_VERSION },
    status: 'running',
    startedAt: new Date().toISOString(),
    owner: currentOwner(),
    agent: { id: adapter.id, binary },
    model: config.model,
    config,
    configFile: loaded.configFile,
    skills: skills.map((s) => ({ dir: s.dir, name: s.name, hash: s.hash })),
    skillsHash: familyHash(skills),
    cases: { files: suite.files, hash: suite.hash, defs },
    family: skills.map((s) => ({ dir: s.dir, name: s.name })),
    simulator: profile && opts.sim ? { profile: opts.sim, name: profile.name, seed: profile.seed } : null,
    trials: { planned: scheduler.plannedTotal(), finished: 0, notStarted: 0 },
  };
  await store.writeManifest(manifest);

  let sim: RunningSimulator | undefined;
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) {
      killAllAgentGroups();
      process.exit(130);
    }
    process.stderr.write('\nstopping: killing running trials and saving what finished (Ctrl-C again to force)\n');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const workRoot = opts.workdir ? resolve(opts.workdir) : undefined;
  const workspaces = new WorkspacePool({ root: workRoot, skills, skillsFolder: adapter.skillsFolder, keep: opts.keepWorkspaces ?? false, prefetch: config.concurrency });
  try {
    if (profile) sim = await startSimulator(profile);
    const gradeOpts = gradeOptions(manifest);
    const defById = new Map(defs.map((c) => [c.id, c]));
    const outcomes: TrialOutcome[] = [];
    const result = await runSuite(
      {
        adapter,
        binary,
        config,
        skills,
        store,
        callerEnv: process.env,
        simulatorUrl: sim?.url,
        keepWorkspaces: opts.keepWorkspaces ?? false,
        workspaces,
        signal: abort.signal,
      },
      suite.cases,
      scheduler,
      createProgress(),
      (r) => {
        const def = defById.get(r.ref.caseId)!;
        const o = gradeTrial(r.transcript, r.meta, def, r.ref.arm, r.ref.n, gradeOpts);
        outcomes.push(o);
        return { passed: o.passed, verdict: explainOutcome(o, def) };
      },
    );
    const init = result.records.map((r) => r.transcript.events.find((e) => e.kind === 'init')).find((e) => e !== undefined);
    if (init?.kind === 'init') {
      manifest.agent.cliVersion = init.cliVersion;
      manifest.reportedModel = init.model;
    }
    manifest.status = abort.signal.aborted ? 'interrupted' : 'completed';
    manifest.trials = { planned: manifest.trials.planned, finished: result.records.length, notStarted: result.notStarted };
    return { store, manifest, records: result.records, outcomes };
  } catch (e) {
    manifest.status = 'failed';
    throw e;
  } finally {
    await workspaces.drain();
    manifest.endedAt = new Date().toISOString();
    await store.writeManifest(manifest);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sim?.stop();
  }
}

export function describeRunDir(store: RunStore): string {
  return relative(process.cwd(), store.dir) || store.dir;
}
