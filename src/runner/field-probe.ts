import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentAdapter, InvocationRequest } from '../agents/types.js';
import { runAgentCommand } from '../agents/spawn.js';
import type { Transcript } from '../transcript/types.js';
import { parseProfile } from '../sim/profile.js';
import { startSimulator } from '../sim/server.js';
import { treeChanges, treeState } from '../workspace/tree-state.js';
import { initGitRoot } from '../workspace/sealed.js';
import { inWatchedFolder } from '../workspace/watched.js';

/** What the probe's stand-in model does: each prompt one acting call a field trial must refuse. */
const PROBES = [
  { prompt: 'skillprobe field probe: run a command', act: 'shell' },
  { prompt: 'skillprobe field probe: write a file', act: 'write' },
] as const;

const PROBE_PROFILE = parseProfile({
  name: 'field-probe',
  rules: PROBES.map((p) => ({ prompt: `^${p.prompt}$`, do: [{ act: p.act }] })),
});

/**
 * Why one probe's evidence does not prove the CLI refused its acting call before it ran, or undefined: the call was
 * made and refused (the adapter's own field check of the transcript and the workspace). Pure.
 */
export function probeProblem(
  adapter: Pick<AgentAdapter, 'grading'>,
  t: Transcript,
  workspaceChanged: readonly string[],
): string | undefined {
  const acted = t.events.some((e) => e.kind === 'tool_call' && e.intent === 'act');
  if (!acted) return 'its stand-in model never got to make the acting call, so nothing was proved';
  return adapter.grading.isolationProblem(t, { arm: 'ablation', family: [], context: 'field', workspaceChanged });
}

/**
 * Why this CLI, on this machine, does not refuse a command and a write in the field before they run; undefined
 * when it does. Measured before anything is created, in a watched folder of `scratch` (watched.ts), as a field trial
 * runs (its argv, env and files), against a stand-in model on 127.0.0.1 that makes exactly those calls: nothing leaves the machine, no credential is passed.
 */
export async function fieldProbeProblem(
  adapter: AgentAdapter,
  binary: string,
  scratch: string,
  callerEnv: NodeJS.ProcessEnv,
): Promise<{ what: string; todo: string } | undefined> {
  const sim = await startSimulator(PROBE_PROFILE);
  try {
    return await inWatchedFolder(scratch, 'field-probe-', async (root) => {
      for (const [i, probe] of PROBES.entries()) {
        const dir = join(root, String(i));
        const req: InvocationRequest = {
          prompt: probe.prompt,
          model: adapter.defaultModel,
          maxTurns: 3,
          cliRetries: 0,
          deadlineMs: 60_000,
          workspace: join(dir, 'ws'),
          home: join(dir, 'home'),
          tmp: join(dir, 'tmp'),
          harnessDir: join(dir, 'harness'),
          // Only PATH of the caller's: the probe must carry no credential.
          callerEnv: { PATH: callerEnv.PATH },
          simulator: { url: sim.url, headers: {}, identityUrl: sim.url },
          binary,
          role: 'trial',
          context: 'field',
        };
        for (const d of [req.workspace, req.home, req.tmp, req.harnessDir]) await mkdir(d, { recursive: true });
        // A git root, as every trial's workspace is, so the CLI reads nothing from the folders above it.
        await initGitRoot(req.workspace);
        const prepared = (await adapter.prepareTrial?.(req)) ?? {};
        // A CLI whose trials do not record the skills it listed is measured as a run measures each arm.
        const listing = await adapter.probeListing?.(req);
        const before = await treeState(req.workspace);
        const inv = adapter.invocation(req);
        const r = await runAgentCommand(inv.file, inv.args, { cwd: req.workspace, env: inv.env, timeoutMs: req.deadlineMs });
        const changed = treeChanges(before, await treeState(req.workspace));
        // Parsed with the evidence a trial keeps: a CLI whose stream never shows a refused call (Codex) shows it there.
        const evidence = {
          ...(listing ? { shown: listing } : {}),
          ...prepared,
          ...(await adapter.collectEvidence?.(req)),
          workspaceChanged: changed,
        };
        const problem = probeProblem(adapter, adapter.parse(String(r.stdout), { evidence, exitCode: r.exitCode ?? null }), changed);
        if (problem) {
          return {
            what: `${adapter.skillListing.cli} did not refuse a ${probe.act === 'shell' ? 'command' : 'write'} in the field on this machine (${problem}), so field trials could act`,
            todo: 'run in the lab (context: lab), or run the field where the probe passes (its binary and version as pinned)',
          };
        }
      }
      return undefined;
    });
  } finally {
    await sim.stop();
  }
}
