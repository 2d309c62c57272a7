import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import { claudeCode } from '../agents/claude-code/adapter.js';
import { killAllAgentGroups } from '../agents/spawn.js';
import type { AgentAdapter } from '../agents/types.js';
import { loadCases, type CaseSuite } from '../load/cases.js';
import { loadConfig, type Config } from '../load/config.js';
import { familyHash, loadSkills, type Skill } from '../load/skills.js';
import { createProgress } from '../runner/progress.js';
import { runSuite } from '../runner/run-suite.js';
import type { TrialRecord } from '../runner/trial.js';
import { loadProfile, type Profile } from '../sim/profile.js';
import { startSimulator, type RunningSimulator } from '../sim/server.js';
import { newRunId, RunStore } from '../store/run-store.js';
import { FixedScheduler } from '../trials/schedule.js';
import { checkWorkspaceRoot } from '../workspace/sealed.js';

const require = createRequire(import.meta.url);
export const HARNESS_VERSION: string = (require('../../package.json') as { version: string }).version;

const ADAPTERS: Record<Config['agent'], AgentAdapter> = { 'claude-code': claudeCode };

export interface RunOptions {
  config?: string;
  sim?: string;
  keepWorkspaces?: boolean;
  workdir?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
}

export interface LoadedSuite {
  config: Config;
  configFile?: string;
  skills: Skill[];
  suite: CaseSuite;
  profile?: Profile;
  adapter: AgentAdapter;
  binary: string;
}

/** Everything that can be wrong with the user's input is found here, before a single trial starts. */
export function loadSuite(opts: RunOptions): LoadedSuite {
  const { config, file } = loadConfig(opts.config, opts.overrides);
  const skills = loadSkills(config.skillsDir);
  const suite = loadCases(config.cases, skills);
  const profile = opts.sim ? loadProfile(opts.sim) : undefined;
  const adapter = ADAPTERS[config.agent];
  const binary = adapter.resolveBinary(config.agentBinary);
  return { config, configFile: file, skills, suite, profile, adapter, binary };
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
  cases: { files: string[]; hash: string; ids: string[] };
  simulator: { profile: string; name: string; seed: number } | null;
  trials: { planned: number; finished: number; notStarted: number };
}

export interface RunOutcome {
  store: RunStore;
  manifest: RunManifest;
  records: TrialRecord[];
}

export async function executeRun(loaded: LoadedSuite, opts: RunOptions): Promise<RunOutcome> {
  const { config, skills, suite, adapter, binary, profile } = loaded;
  await checkWorkspaceRoot(opts.workdir ? resolve(opts.workdir) : undefined);
  const runId = newRunId();
  const store = await RunStore.create(config.transcriptsDir, runId);
  const scheduler = new FixedScheduler(suite.cases, config.arms, config.trials);
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
    cases: { files: suite.files, hash: suite.hash, ids: suite.cases.map((c) => c.id) },
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
  try {
    if (profile) sim = await startSimulator(profile);
    const result = await runSuite(
      {
        adapter,
        binary,
        config,
        skills,
        store,
        callerEnv: process.env,
        simulatorUrl: sim?.url,
        workRoot: opts.workdir ? resolve(opts.workdir) : undefined,
        keepWorkspaces: opts.keepWorkspaces ?? false,
        signal: abort.signal,
      },
      suite.cases,
      scheduler,
      createProgress(),
      () => undefined,
    );
    const init = result.records.map((r) => r.transcript.events.find((e) => e.kind === 'init')).find((e) => e !== undefined);
    if (init?.kind === 'init') {
      manifest.agent.cliVersion = init.cliVersion;
      manifest.reportedModel = init.model;
    }
    manifest.status = abort.signal.aborted ? 'interrupted' : 'completed';
    manifest.trials = { planned: manifest.trials.planned, finished: result.records.length, notStarted: result.notStarted };
    return { store, manifest, records: result.records };
  } catch (e) {
    manifest.status = 'failed';
    throw e;
  } finally {
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
