import { existsSync } from 'node:fs';
import { cp, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gradeStoredJudged, JUDGE_DIR } from '../runner/judge-steps.js';
import { InputError, ProblemList } from '../util/input-error.js';
import type { Context } from '../run/config-schema.js';
import { RUN_STATUSES, type AgentRuns, type Results, type RunManifest } from '../run/schema.js';
import { currentOwner, newRunId, RunStore, writeAgentRuns } from '../run/store.js';
import { plannedContexts, readAgentsRecord } from '../runner/agents-run.js';
import { configDifferences } from '../runner/resume.js';
import { buildResults } from '../verdict/results.js';
import { fromFolder } from '../util/paths.js';

interface Shard {
  dir: string;
  store: RunStore;
  manifest: RunManifest;
}

const shardName = (s: Shard) => (s.manifest.shard ? `shard ${s.manifest.shard.index}/${s.manifest.shard.total} (${s.dir})` : s.dir);

/** What must be the same in every shard for their trials to form one run, each as it reads in a message. */
const MUST_AGREE: [what: string, of: (m: RunManifest) => string][] = [
  ['agent', (m) => m.agent.id],
  ['CLI version', (m) => m.agent.cliVersion ?? 'unknown'],
  ['model', (m) => m.model],
  ['model reported by the CLI', (m) => m.reportedModel ?? 'unknown'],
  ['skills (hash)', (m) => m.skillsHash],
  ['neighbours (hash)', (m) => m.neighboursHash ?? 'none'],
  ["cases' neighbours (hash)", (m) => m.caseNeighboursHash ?? 'none'],
  ['cases (hash)', (m) => m.cases.hash],
  ['fixtures (hash)', (m) => m.fixturesHash ?? 'none'],
  [
    'simulator',
    (m) =>
      m.simulator
        ? `${m.simulator.name} seed ${m.simulator.seed} behaviour ${m.simulator.behaviourHash?.slice(0, 8) ?? 'unrecorded'}`
        : 'none',
  ],
  ['shard count', (m) => String(m.shard!.total)],
  ['suite the shards split', (m) => `${m.shard!.suiteCases.length} cases: ${m.shard!.suiteCases.join(', ')}`.slice(0, 100)],
];

/** A config value at a dotted path, as it reads in a message. */
function configValue(config: RunManifest['config'], path: string): string {
  const value = path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], config);
  return value === undefined ? 'unset' : JSON.stringify(value);
}

/** Every reason the shards cannot be one run, each naming the folders and the difference. */
function disagreements(shards: readonly Shard[]): ProblemList {
  const problems = new ProblemList();
  const todo = 'run every shard of one suite with the same skills, cases, config, agent and model';
  for (const s of shards.filter((s) => !s.manifest.shard)) {
    problems.add({
      file: s.dir,
      what: 'is not a shard (it was not run with --shard I/N)',
      todo: 'merge only the folders of one sharded run',
    });
  }
  // What shards must agree on is compared among the shards only: a folder that is none is named above.
  const [first, ...rest] = shards.filter((s) => s.manifest.shard);
  for (const s of rest) {
    for (const [what, of] of MUST_AGREE) {
      const [theirs, ours] = [of(s.manifest), of(first!.manifest)];
      if (theirs !== ours) problems.add({ file: s.dir, what: `differs from ${first!.dir} in ${what}: ${theirs} vs ${ours}`, todo });
    }
    // Each machine may pick its own binary path; what it is shows in the CLI version.
    const config = configDifferences(s.manifest.config, first!.manifest.config).filter((p) => p !== 'agentBinary');
    if (config.length) {
      const each = config.map((p) => `${p} ${configValue(s.manifest.config, p)} vs ${configValue(first!.manifest.config, p)}`);
      problems.add({ file: s.dir, what: `differs from ${first!.dir} in config: ${each.join(', ')}`, todo });
    }
  }
  const indexOf = new Map<number, string>();
  const caseOf = new Map<string, string>();
  for (const s of shards) {
    const i = s.manifest.shard?.index;
    if (i !== undefined && indexOf.has(i))
      problems.add({ file: s.dir, what: `is shard ${i} again (also ${indexOf.get(i)})`, todo: 'give each shard once' });
    else {
      if (i !== undefined) indexOf.set(i, s.dir);
      for (const id of s.manifest.cases.defs.map((d) => d.id)) {
        if (caseOf.has(id))
          problems.add({
            file: s.dir,
            what: `holds case "${id}", which ${caseOf.get(id)} holds too`,
            todo: 'give the shards of one run, each run with its own --shard I/N',
          });
        caseOf.set(id, s.dir);
      }
    }
  }
  for (const s of shards.filter((s) => s.manifest.status === 'running')) {
    problems.add({ file: s.dir, what: 'is still running', todo: 'wait for it to finish, or resume it first (skillprobe run --resume)' });
  }
  return problems;
}

/** The cases the shards were to split that no shard given holds, and the shards that are missing. */
function missingCases(shards: readonly Shard[]): ProblemList {
  const problems = new ProblemList();
  const suite = shards[0]?.manifest.shard?.suiteCases ?? [];
  const held = new Set(shards.flatMap((s) => s.manifest.cases.defs.map((d) => d.id)));
  const missing = suite.filter((id) => !held.has(id));
  if (missing.length) {
    const total = shards[0]!.manifest.shard!.total;
    const given = new Set(shards.map((s) => s.manifest.shard!.index));
    const absent = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !given.has(i));
    problems.add({
      file: 'merge',
      what: `${missing.length} case(s) of the suite are in no shard given: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''} (shard${absent.length === 1 ? '' : 's'} ${absent.join(', ')} of ${total} not given)`,
      todo: 'pass every shard folder of the run',
    });
  }
  return problems;
}

/** The worst status of the shards: a merged run is complete only when every shard is. */
const worstStatus = (shards: readonly Shard[]) =>
  shards.map((s) => s.manifest.status).sort((a, b) => RUN_STATUSES.indexOf(b) - RUN_STATUSES.indexOf(a))[0]!;

export interface MergedRun {
  store: RunStore;
  manifest: RunManifest;
  results: Results;
  /** Shards that did not complete (interrupted, cost-capped, failed): the merged run is partial until they do. */
  unfinished: { name: string; dir: string; status: RunManifest['status']; shard: string }[];
}

/** One run's manifest from its shards: the cases in the suite's order, the trial counts and histories summed. */
function mergedManifest(shards: readonly Shard[]): RunManifest {
  const first = shards[0]!.manifest;
  const order = first.shard!.suiteCases;
  const defs = shards.flatMap((s) => s.manifest.cases.defs).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const sum = (k: keyof RunManifest['trials']) => shards.reduce((n, s) => n + s.manifest.trials[k], 0);
  const resumedAt = shards.flatMap((s) => s.manifest.resumedAt ?? []).sort();
  const forcedChanges = shards.flatMap((s) => (s.manifest.forcedChanges ?? []).map((c) => `${shardName(s)}: ${c}`));
  const ends = shards
    .map((s) => s.manifest.endedAt)
    .filter((e): e is string => e !== undefined)
    .sort();
  const { shard: _shard, resumedAt: _resumed, forcedChanges: _forced, endedAt: _ended, ...common } = first;
  return {
    ...common,
    runId: newRunId(),
    status: worstStatus(shards),
    owner: currentOwner(),
    startedAt: shards.map((s) => s.manifest.startedAt).sort()[0]!,
    ...(ends.length ? { endedAt: ends.at(-1)! } : {}),
    cases: { ...first.cases, defs },
    trials: { planned: sum('planned'), finished: sum('finished'), notStarted: sum('notStarted') },
    ...(resumedAt.length ? { resumedAt } : {}),
    ...(forcedChanges.length ? { forcedChanges } : {}),
    mergedFrom: shards.map((s) => ({
      runId: s.manifest.runId,
      dir: s.dir,
      shard: `${s.manifest.shard!.index}/${s.manifest.shard!.total}`,
    })),
  };
}

/**
 * `skillprobe merge RUN…`: joins the folders of one sharded run into a new run folder in `transcriptsDir`, after
 * checking the shards are shares of the same run, and computes results once over all cases (so the multiple-testing
 * correction spans the whole suite, as in an unsharded run). A merge that fails part-way leaves no folder behind.
 * Relative folders are taken from `cwd`, the user's working folder.
 */
export async function mergeShards(dirs: readonly string[], transcriptsDir: string, cwd: string, now = new Date()): Promise<MergedRun> {
  if (dirs.length === 0)
    throw new InputError({ file: 'merge', what: 'no shard folders given', todo: 'pass the run folders of every shard' });
  const shards: Shard[] = [];
  for (const dir of dirs) shards.push({ dir, ...(await RunStore.open(dir, cwd)) });
  disagreements(shards).throwIfAny();
  missingCases(shards).throwIfAny();

  const final = mergedManifest(shards);
  const store = await RunStore.create(fromFolder(cwd, transcriptsDir), final.runId);
  try {
    // Written first as running: were this process killed mid-copy, the folder would read as unfinished.
    await store.writeManifest({ ...final, status: 'running' });
    for (const s of shards) await store.copyTrialsFrom(s.store);
    // Each shard's judge asked about its own trials (and its own controls): their answers serve the merged run.
    for (const s of shards) {
      const judged = join(s.store.dir, JUDGE_DIR);
      if (existsSync(judged)) await cp(judged, join(store.dir, JUDGE_DIR), { recursive: true });
    }
    await store.writeManifest(final);
    const { outcomes, damaged, judge } = await gradeStoredJudged(store, final);
    const results = buildResults(final, outcomes, damaged, now, judge);
    await store.writeResults(results);
    const unfinished = shards
      .filter((s) => s.manifest.status !== 'completed')
      .map((s) => ({
        name: shardName(s),
        dir: s.dir,
        status: s.manifest.status,
        shard: `${s.manifest.shard!.index}/${s.manifest.shard!.total}`,
      }));
    return { store, manifest: final, results, unfinished };
  } catch (e) {
    await rm(store.dir, { recursive: true, force: true });
    throw e;
  }
}

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
