import { readFile } from 'node:fs/promises';
import { spawnAgent } from '../agents/spawn.js';
import type { AgentAdapter } from '../agents/types.js';
import { trialStatus } from '../grade/status.js';
import type { Case } from '../load/cases.js';
import type { Config } from '../run/config-schema.js';
import type { Skill } from '../load/skills.js';
import { CASE_HEADER, TRIAL_HEADER } from '../sim/server.js';
import type { RunStore } from '../run/store.js';
import type { Transcript } from '../transcript/types.js';
import type { WorkspacePool } from '../workspace/pool.js';
import { trialKey, type TrialMeta, type TrialRef } from '../run/schema.js';

export interface TrialContext {
  adapter: AgentAdapter;
  binary: string;
  config: Config;
  skills: Skill[];
  store: RunStore;
  callerEnv: NodeJS.ProcessEnv;
  simulatorUrl?: string;
  keepWorkspaces: boolean;
  workspaces: WorkspacePool;
  signal: AbortSignal;
}

export interface TrialRecord {
  ref: TrialRef;
  transcript: Transcript;
  meta: TrialMeta;
}

/** Runs one trial: sealed workspace → agent → raw transcript on disk; infra errors retried as configured. */
export async function runTrial(ctx: TrialContext, c: Case, ref: TrialRef): Promise<TrialRecord> {
  const maxAttempts = 1 + ctx.config.retries.infra;
  const deadlineMs = ctx.config.timeouts.trialSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    const ws = await ctx.workspaces.take(ref.arm);
    try {
      const inv = ctx.adapter.invocation({
        prompt: c.prompt,
        model: ctx.config.model,
        maxTurns: ctx.config.maxTurns,
        cliRetries: ctx.config.retries.cli,
        deadlineMs,
        workspace: ws.dir,
        home: ws.home,
        callerEnv: ctx.callerEnv,
        binary: ctx.binary,
        simulator: ctx.simulatorUrl ? { url: ctx.simulatorUrl, headers: { [TRIAL_HEADER]: trialKey(ref), [CASE_HEADER]: c.id } } : undefined,
      });
      const files = await ctx.store.prepareTrial(ref);
      const spawned = await spawnAgent(inv, {
        cwd: ws.dir,
        deadlineMs,
        signal: ctx.signal,
        attempt,
        stdoutFile: files.partial,
        maxOutputBytes: Math.round(ctx.config.maxOutputMB * 1024 * 1024),
      });
      const meta: TrialMeta = ctx.keepWorkspaces ? { ...spawned, workspace: ws.dir } : spawned;
      const transcript = ctx.adapter.parse(await readFile(files.partial, 'utf8'));
      const verdict = trialStatus(transcript, meta, {
        arm: ref.arm,
        family: ctx.skills.map((s) => s.dir),
        isolationProblem: ctx.adapter.grading.isolationProblem,
      });
      const retry = verdict.status === 'infra_error' && attempt < maxAttempts && !ctx.signal.aborted;
      // A failed attempt is kept beside the trial (`<n>.a1.jsonl`), never overwritten or lost.
      await ctx.store.commitTrial(ref, meta, retry ? attempt : undefined);
      if (!retry) {
        return { ref, transcript, meta };
      }
    } finally {
      ctx.workspaces.release(ws);
    }
  }
}
