import { fromFolder } from '../util/paths.js';
import { join } from 'node:path';
import type { Context } from '../run/config-schema.js';
import type { AgentRuns } from '../run/schema.js';
import { readManifestSync } from '../run/store.js';
import { plannedContexts, readAgentsRecord } from './agents-run.js';
import { InputError } from '../util/input-error.js';

/** One folder named to `compare`: a lab,field folder's record, or the contexts a single run's cases ran in. */
export interface ComparedFolder {
  dir: string;
  /** Its agents.json, when it holds several runs. */
  record?: AgentRuns;
  /** A single run's contexts, from its run.json (undefined when it cannot be read). */
  contexts?: readonly Context[];
}

export interface ContextPairs {
  /** Each context both folders ran, in the base's order: the two runs to compare. */
  pairs: { context: Context; base: string; candidate: string }[];
  /** Contexts one folder has no run for (the run stopped before it started), and why. */
  missing: { context: Context; why: string }[];
}

const byContext = (f: ComparedFolder): f is LabField => f.record?.by === 'context';
const runOf = (f: LabField, context: Context) => {
  const entry = f.record.agents.find((a) => a.id === context);
  return entry && join(f.dir, entry.dir);
};

/**
 * Two folders named to `compare`, paired context by context when both are lab,field folders (lab with lab, field with
 * field); undefined when neither is one (two runs compared as ever). A lab,field folder against anything else is
 * refused naming the run in it to compare instead: one comparison is of two runs measured alike, and compare never
 * guesses which half was meant.
 */
export function pairContexts(base: ComparedFolder, candidate: ComparedFolder): ContextPairs | undefined {
  if (!byContext(base) && !byContext(candidate)) return undefined;
  if (byContext(base) && byContext(candidate)) {
    const contexts = plannedContexts(base.record).filter((c) => plannedContexts(candidate.record).includes(c));
    const result: ContextPairs = { pairs: [], missing: [] };
    for (const context of contexts) {
      const [b, c] = [runOf(base, context), runOf(candidate, context)];
      if (b && c) result.pairs.push({ context, base: b, candidate: c });
      else result.missing.push({ context, why: `${b ? candidate.dir : base.dir} stopped before its ${context} run started` });
    }
    return result;
  }
  return byContext(base) ? refuseOneRun(base, candidate, 'candidate') : refuseOneRun(candidate as LabField, base, 'base');
}

type LabField = ComparedFolder & { record: AgentRuns };

/** A lab,field folder against one run (or a run of several agents): refused, naming the run in it to compare instead. */
function refuseOneRun(parent: LabField, single: ComparedFolder, side: 'base' | 'candidate'): never {
  const contexts = plannedContexts(parent.record);
  const only = single.contexts?.length === 1 ? single.contexts[0] : undefined;
  const match = only && runOf(parent, only);
  const args = (run: string) => (side === 'candidate' ? `${run} ${single.dir}` : `${single.dir} ${run}`);
  const runs = contexts.flatMap((c) => runOf(parent, c) ?? []);
  throw new InputError({
    file: single.dir,
    what: `${parent.dir} holds one run per context (${contexts.join(', ')}), and the ${side} ${single.record ? 'holds one run per agent' : `is one run${only ? ` in the ${only}` : ''}`}`,
    todo: match
      ? `compare it with the ${only} run: \`skillprobe compare ${args(match)}\``
      : `compare one run with one of ${runs.join(' or ')}, or two lab,field folders`,
  });
}

/** The two folders' records read, then paired (see `pairContexts`). */
export async function readContextRuns(dirs: { base: string; candidate: string }, cwd: string): Promise<ContextPairs | undefined> {
  const folder = async (dir: string): Promise<ComparedFolder> => {
    const record = await readAgentsRecord(dir, cwd);
    if (record) return { dir, record };
    const manifest = readManifestSync(fromFolder(cwd, dir));
    return { dir, ...(manifest.ok ? { contexts: [...new Set(manifest.value.cases.defs.map((c): Context => c.context ?? 'lab'))] } : {}) };
  };
  return pairContexts(await folder(dirs.base), await folder(dirs.candidate));
}
