import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentAdapter, TrialRole } from '../src/agents/types.js';
import { loadCases, type Case } from '../src/load/cases.js';
import { loadSkills } from '../src/load/skills.js';
import { configSchema, type Arm, type Context } from '../src/run/config-schema.js';
import { RunStore } from '../src/run/store.js';
import { probeArmListings, runTrial, type TrialContext, type TrialRecord } from '../src/runner/trial.js';
import { WorkspacePool } from '../src/workspace/pool.js';
import { testBinary } from './agent-binaries.js';

/**
 * skillprobe's own runner (the arm listings, then one trial at a time) against a model server of the test's, with
 * the caller's environment as given: what `run` does, minus the reporting.
 */
export async function runTrials(
  adapter: AgentAdapter,
  project: string,
  modelUrl: string,
  callerEnv: NodeJS.ProcessEnv,
  plan: [caseId: string, arm: Arm][],
  settings: { model: string; deadlineSeconds: number; role?: TrialRole; cases?: Case[]; context?: Context },
): Promise<{ records: TrialRecord[]; workdir: string }> {
  const config = configSchema.parse({
    agent: adapter.id,
    model: settings.model,
    maxTurns: 3,
    retries: { cli: 0, infra: 0 },
    timeouts: { trialSeconds: settings.deadlineSeconds },
    ...(settings.context ? { context: settings.context } : {}),
  });
  const skills = loadSkills(join(project, 'skills'));
  // The cases as given (loaded with their fixtures, as `run` loads them), else the project's case files.
  const cases = settings.cases ?? loadCases(join(project, 'cases/*.yaml'), skills, config.decision).cases;
  const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
  const workspaces = new WorkspacePool({ root: workdir, skills, skillsFolder: adapter.skillsFolder, keep: false, prefetch: 0 });
  const ctx: TrialContext = {
    adapter,
    binary: adapter.resolveBinary(testBinary(adapter.id)),
    config,
    skills,
    store: await RunStore.create(join(project, 'runs'), 'run'),
    callerEnv,
    simulatorUrl: modelUrl,
    keepWorkspaces: false,
    workspaces,
    signal: new AbortController().signal,
    role: settings.role ?? 'trial',
  };
  ctx.armListings = await probeArmListings(ctx, [...new Set(plan.map(([, arm]) => arm))], [settings.context ?? 'lab']);
  const records: TrialRecord[] = [];
  for (const [caseId, arm] of plan)
    records.push(
      await runTrial(
        ctx,
        cases.find((c) => c.id === caseId)!,
        { caseId, arm, n: 1 },
      ),
    );
  await workspaces.drain();
  return { records, workdir };
}
