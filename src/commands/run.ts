import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import { adapterFor } from '../agents/registry.js';
import { killAllAgentGroups } from '../agents/spawn.js';
import type { AgentAdapter } from '../agents/types.js';
import { explainOutcome } from '../grade/explain.js';
import { gradeTrial, type GradableCase, type TrialOutcome } from '../grade/outcome.js';
import { gradeOptions } from './grade.js';
import type { FamilyMember } from '../grade/trigger.js';
import { loadCases, type Case, type CaseSuite } from '../load/cases.js';
import { loadConfig, type Config } from '../load/config.js';
import { selectSuite, type CaseSelection } from '../load/select.js';
import { InputError } from '../load/input-error.js';
import { familyHash, loadSkills, type Skill } from '../load/skills.js';
import { createProgress } from '../runner/progress.js';
import { runSuite } from '../runner/run-suite.js';
import type { TrialRecord } from '../runner/trial.js';
import { loadProfileForSuite, type Profile } from '../sim/profile.js';
import { startSimulator, type RunningSimulator } from '../sim/server.js';
import { newRunId, RunStore } from '../store/run-store.js';
import { resolveDecision } from '../trials/decision.js';
import { FixedScheduler, SprtScheduler, type TrialScheduler } from '../trials/schedule.js';
import { WorkspacePool } from '../workspace/pool.js';
import { checkWorkspaceRoot } from '../workspace/sealed.js';

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

/** Everything that can be wrong with the user's input is found here, before a single trial starts. */
export function loadSuite(opts: Pick<RunOptions, 'config' | 'sim' | 'overrides' | 'select'>, need: { needBinary: boolean } = { needBinary: true }): LoadedSuite {
  const { config, file } = loadConfig(opts.config, opts.overrides);
  const skills = loadSkills(config.skillsDir);
  const all = loadCases(config.cases, skills, config.decision);
  // The profile is checked against every case, so one written for the whole suite stays valid for a selection.
  const profile = opts.sim ? loadProfileForSuite(opts.sim, { skills: skills.map((s) => s.dir), caseIds: all.cases.map((c) => c.id) }) : undefined;
  const { suite, nothingFailedIn } = selectSuite(all, opts.select ?? {}, config.transcriptsDir);
  if (config.decision.mode === 'sprt' && !config.arms.includes('skill')) {
    throw new InputError({ file: file ?? '--arms', what: 'sequential mode decides on the skill arm, but `arms` leaves it out', todo: 'add `skill` to arms, or use `decision.mode: fixed`' });
  }
  const adapter = adapterFor(config.agent);
  // Nothing left to run: no binary or credentials are needed to say so.
  if (nothingFailedIn !== undefined) return { config, configFile: file, skills, suite, profile, adapter, binary: '', nothingFailedIn };
  const binary = need.needBinary ? adapter.resolveBinary(config.agentBinary) : (config.agentBinary ?? '');
  const noCredentials = need.needBinary && !profile ? adapter.credentialProblem(process.env) : undefined;
  if (noCredentials) throw new InputError({ file: 'environment', what: noCredentials.split(' — ')[0]!, todo: noCredentials.split(' — ')[1]! });
  return { config, configFile: file, skills, suite, profile, adapter, binary };
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

export type RunStatus = 'running' | 'completed' | 'interrupted' | 'failed';

export interface RunManifest {
  runId: string;
  harness: { name: 'skillprobe'; version: string };
  status: RunStatus;
  startedAt: string;
  endedAt?: string;
  agent: { id: string; binary: string; cliVersion?: string };
  model: string;
  reportedModel?: string;
  config: Config;
  configFile?: string;
  skills: { dir: string; name: string; hash: string }[];
  skillsHash: string;
  cases: { files: string[]; hash: string; defs: GradableCase[] };
  family: FamilyMember[];
  simulator: { profile: string; name: string; seed: number } | null;
  trials: { planned: number; finished: number; notStarted: number };
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
  await store.writeJson('run.json', manifest);

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
    await store.writeJson('run.json', manifest);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sim?.stop();
  }
}

export function describeRunDir(store: RunStore): string {
  return relative(process.cwd(), store.dir) || store.dir;
}
