import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Context } from '../run/config-schema.js';
import type { AgentRuns } from '../run/schema.js';
import { newRunId, writeAgentRuns } from '../run/store.js';
import { plannedContexts, readAgentsRecord } from '../runner/agents-run.js';
import { InputError } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';
import { mergeShards, type MergedRun } from './merge.js';

/** The shards of a lab,field run: each a lab,field folder, and the run folder each holds per context. */
export interface LabFieldShards {
  contexts: Context[];
  /** Per context, each shard's run folder of that context, in the order the shards were given. */
  runs: Map<Context, string[]>;
}

const todo = 'merge the folders of one `run --context lab,field --shard I/N`, every one a lab,field folder';

/**
 * The folders given to `merge`, when they are the shards of a lab,field run (`run --context lab,field --shard I/N`):
 * each holding the same contexts' runs. Undefined when none is a lab,field folder (shards merged as ever); a mix, or
 * a shard missing a context's run, is refused naming the folder.
 */
export async function labFieldShards(dirs: readonly string[], cwd: string): Promise<LabFieldShards | undefined> {
  const records = await Promise.all(dirs.map(async (dir) => ({ dir, record: await readAgentsRecord(dir, cwd) })));
  const labField = records.filter((r): r is { dir: string; record: AgentRuns } => r.record?.by === 'context');
  if (labField.length === 0) return undefined;
  const first = labField[0]!;
  const other = records.find((r) => r.record?.by !== 'context');
  if (other) throw new InputError({ file: other.dir, what: `is not a lab,field folder, and ${first.dir} is`, todo });
  const contexts = plannedContexts(first.record);
  const runs = new Map(contexts.map((c) => [c, [] as string[]]));
  for (const { dir, record } of labField) {
    if (plannedContexts(record).join(',') !== contexts.join(','))
      throw new InputError({
        file: dir,
        what: `ran ${plannedContexts(record).join(',')}, and ${first.dir} ran ${contexts.join(',')}`,
        todo,
      });
    for (const context of contexts) {
      const entry = record.agents.find((a) => a.id === context);
      if (!entry)
        throw new InputError({
          file: dir,
          what: `holds no ${context} run (the shard stopped before it)`,
          todo: `finish the shard first (\`skillprobe run --resume ${dir}\` with its --shard I/N), then merge again`,
        });
      runs.get(context)!.push(join(dir, entry.dir));
    }
  }
  return { contexts, runs };
}

/** A lab,field run's shards merged context by context: one lab,field folder holding each context's merged run. */
export async function mergeContextShards(
  shards: LabFieldShards,
  transcriptsDir: string,
  cwd: string,
): Promise<{ dir: string; merged: MergedRun[] }> {
  const runId = newRunId();
  const dir = join(fromFolder(cwd, transcriptsDir), runId);
  await mkdir(dir, { recursive: true });
  const merged: MergedRun[] = [];
  for (const context of shards.contexts) merged.push(await mergeShards(shards.runs.get(context)!, dir, cwd));
  await writeAgentRuns(dir, {
    runId,
    startedAt: merged.map((m) => m.manifest.startedAt).sort()[0]!,
    by: 'context',
    planned: shards.contexts,
    agents: merged.map(({ store, manifest, results }, i) => ({
      id: shards.contexts[i]!,
      dir: basename(store.dir),
      binary: manifest.agent.binary,
      ...(manifest.agent.cliVersion ? { cliVersion: manifest.agent.cliVersion } : {}),
      model: manifest.model,
      status: manifest.status,
      exitCode: results.exitCode,
    })),
  });
  return { dir, merged };
}
