import { isDeepStrictEqual } from 'node:util';
import { gradeStored } from '../grade/stored.js';
import { InputError, ProblemList } from '../load/input-error.js';
import type { Config } from '../run/config-schema.js';
import { RUN_STATUSES, type Results, type RunManifest } from '../run/schema.js';
import { currentOwner, newRunId, RunStore } from '../run/store.js';
import { buildResults } from '../verdict/results.js';

interface Shard {
  dir: string;
  store: RunStore;
  manifest: RunManifest;
}

/** Settings a machine may choose for itself: how many trials at once, where folders go, where its binary lives. */
const local = (c: Config) => ({ ...c, concurrency: 0, transcriptsDir: '', agentBinary: undefined });

/** What must be the same in every shard for their trials to form one run, each with how to show it. */
const MUST_AGREE: [what: string, of: (m: RunManifest) => unknown][] = [
  ['agent', (m) => m.agent.id],
  ['CLI version', (m) => m.agent.cliVersion],
  ['model', (m) => m.model],
  ['model reported by the CLI', (m) => m.reportedModel],
  ['skills (hash)', (m) => m.skillsHash],
  ['cases (hash)', (m) => m.cases.hash],
  ['simulator', (m) => (m.simulator ? { name: m.simulator.name, seed: m.simulator.seed } : null)],
  ['config', (m) => local(m.config)],
  ['shard count', (m) => m.shard?.total],
  ['suite the shards split', (m) => m.shard?.suiteCases],
];

const show = (v: unknown) => (v === undefined ? 'unknown' : typeof v === 'string' ? v : JSON.stringify(v).slice(0, 120));

/** Every reason the shards cannot be one run, each naming the folders and the difference. */
function disagreements(shards: readonly Shard[]): ProblemList {
  const problems = new ProblemList();
  const [first, ...rest] = shards;
  for (const s of shards.filter((s) => !s.manifest.shard)) {
    problems.add({ file: s.dir, what: 'is not a shard (it was not run with --shard I/N)', todo: 'merge only the folders of one sharded run' });
  }
  for (const s of rest) {
    for (const [what, of] of MUST_AGREE) {
      if (!isDeepStrictEqual(of(first!.manifest), of(s.manifest))) {
        problems.add({ file: s.dir, what: `differs from ${first!.dir} in ${what}: ${show(of(s.manifest))} vs ${show(of(first!.manifest))}`, todo: 'run every shard of one suite with the same skills, cases, config, agent and model' });
      }
    }
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const i = s.manifest.shard?.index;
    if (i === undefined) continue;
    if (seen.has(i)) problems.add({ file: s.dir, what: `is shard ${i} again (also ${seen.get(i)})`, todo: 'give each shard once' });
    seen.set(i, s.dir);
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
const worstStatus = (shards: readonly Shard[]) => shards.map((s) => s.manifest.status).sort((a, b) => RUN_STATUSES.indexOf(b) - RUN_STATUSES.indexOf(a))[0]!;

/**
 * `skillprobe merge RUN…`: joins the folders of one sharded run into a new run folder in `transcriptsDir`, after
 * checking the shards are shares of the same run, and computes results once over all cases (so the multiple-testing
 * correction spans the whole suite, as in an unsharded run).
 */
export async function mergeShards(dirs: readonly string[], transcriptsDir: string, now = new Date()): Promise<{ store: RunStore; manifest: RunManifest; results: Results }> {
  const shards: Shard[] = [];
  for (const dir of dirs) shards.push({ dir, ...(await RunStore.open(dir)) });
  const problems = disagreements(shards);
  problems.throwIfAny();
  missingCases(shards).throwIfAny();
  if (shards.length === 0) throw new InputError({ file: 'merge', what: 'no shard folders given', todo: 'pass the run folders of every shard' });

  const first = shards[0]!.manifest;
  const order = first.shard!.suiteCases;
  const defs = shards.flatMap((s) => s.manifest.cases.defs).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const sum = (k: keyof RunManifest['trials']) => shards.reduce((n, s) => n + s.manifest.trials[k], 0);
  const times = shards.map((s) => s.manifest.startedAt).sort();
  const ends = shards.map((s) => s.manifest.endedAt).filter((e): e is string => e !== undefined).sort();
  const { shard: _shard, ...common } = first;
  const merged: RunManifest = {
    ...common,
    runId: newRunId(),
    status: 'running',
    owner: currentOwner(),
    startedAt: times[0]!,
    cases: { ...first.cases, defs },
    trials: { planned: sum('planned'), finished: sum('finished'), notStarted: sum('notStarted') },
    mergedFrom: shards.map((s) => ({ runId: s.manifest.runId, dir: s.dir, shard: `${s.manifest.shard!.index}/${s.manifest.shard!.total}` })),
  };
  const store = await RunStore.create(transcriptsDir, merged.runId);
  // Written first as running: a merge that dies half-way leaves a folder that says it is unfinished.
  await store.writeManifest(merged);
  for (const s of shards) await store.copyTrialsFrom(s.store);
  const manifest: RunManifest = { ...merged, status: worstStatus(shards), ...(ends.length ? { endedAt: ends.at(-1)! } : {}) };
  await store.writeManifest(manifest);
  const { outcomes, damaged } = await gradeStored(store, manifest);
  const results = buildResults(manifest, outcomes, damaged, now);
  await store.writeResults(results);
  return { store, manifest, results };
}
