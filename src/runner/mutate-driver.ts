import { join, relative } from 'node:path';
import type { Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { MutateRecord, StoredMutant } from '../run/mutate-schema.js';
import { writeMutateRecord } from '../run/mutate-store.js';
import type { RunStatus } from '../run/schema.js';
import type { PlannedMutant } from '../mutate/mutants.js';
import { flippedFromPass, noticed } from '../mutate/outcome.js';
import { compareRuns } from '../verdict/compare.js';
import type { RunToCompare } from '../verdict/comparison.js';
import { derivedDrawSeed } from '../util/random.js';
import { fromFolder, namedAs } from '../util/paths.js';
import { InputError } from '../util/input-error.js';
import type { RunPlace, SuiteToRun } from './execute.js';
import { inRecordFolder } from './record-folder.js';
import type { NestedRunner } from './tune-driver.js';
import { familyProblem } from './tune-family.js';

/**
 * `skillprobe mutate`'s loop: the unmutated run (or the stored one `--base` names), then each mutant's family written
 * and checked and its run made, each a nested run folder, each compared with the unmutated run as `compare` would.
 * The record is written after every run, so a kill loses nothing finished and `--resume` reads the finished runs back.
 */
export interface MutateRunOptions {
  cwd: string;
  sim?: string;
  workdir?: string;
  callerEnv: NodeJS.ProcessEnv;
  stderr: NonNullable<RunPlace['stderr']>;
  resume?: string;
}

/** A mutate run ready to go: every input checked, the mutants planned, nothing spent. */
export interface PreparedMutate<S extends SuiteToRun = SuiteToRun> {
  loaded: S;
  /** The config each run takes: the skill arm, the suite's design, no cap of its own (the driver passes what is left). */
  config: Config;
  planned: PlannedMutant[];
  /** The record as it starts (or as stored, on a resume): its mutants in `planned`'s order. */
  record: MutateRecord;
  /** A stored unmutated run (`--base`), read back. */
  base?: RunToCompare;
  /** The cap on the whole mutate: `--max-cost`, else on a resume the one it began with. */
  maxCostUsd?: number;
}

const STOPPING = new Set<RunStatus>(['interrupted', 'cost_capped', 'failed', 'isolation_stopped']);

/** Where a mutant's folder is, relative to the mutate folder: its family in `skills/`, its run in `run/`. */
export const mutantDir = (m: Pick<PlannedMutant, 'skill' | 'operator'>) => join(m.skill, m.operator);

export const runMutate = <S extends SuiteToRun>(
  p: PreparedMutate<S>,
  o: MutateRunOptions,
  say: (text: string) => void,
  nested: NestedRunner<S>,
): Promise<{ dir: string; record: MutateRecord }> =>
  inRecordFolder(p.loaded, o, {
    kind: 'mutate',
    start: (dir) =>
      Object.assign(p.record, { mutateId: relative(fromFolder(o.cwd, p.loaded.config.transcriptsDir), dir), status: 'running' as const }),
    write: writeMutateRecord,
    drive: (dir) => drive(p, o, dir, say, nested),
  });

async function drive<S extends SuiteToRun>(
  p: PreparedMutate<S>,
  o: MutateRunOptions,
  dir: string,
  say: (text: string) => void,
  nested: NestedRunner<S>,
): Promise<RunStatus> {
  const { loaded, record } = p;
  const place: RunPlace = { cwd: o.cwd, sim: o.sim, workdir: o.workdir, callerEnv: o.callerEnv, stderr: o.stderr };
  const spent = () => record.costUsd ?? 0;
  const left = () => (p.maxCostUsd === undefined ? undefined : p.maxCostUsd - spent());
  // A run started with nothing left would store a cap of 0, which no run folder may hold: the mutate stops capped.
  const capSpent = () => (left() ?? 1) <= 0;
  const run = async (name: string, skills: Skill[]) => {
    const draws = record.draws && { drawSeed: derivedDrawSeed(record.draws.seed, name) };
    const result = await nested(
      loaded,
      { ...place, ...draws },
      {
        dir: join(dir, name),
        skills,
        cases: loaded.suite.cases,
        config: { ...p.config, maxCostUsd: left() },
        role: 'trial',
      },
    );
    record.trials += result.trials;
    if (result.costUsd !== undefined) record.costUsd = spent() + result.costUsd;
    if (result.manifest.status === 'isolation_stopped')
      throw new InputError({
        file: namedAs(loaded.config.transcriptsDir, o.cwd, result.dir),
        what: `the run's first trials all failed the isolation check (${result.manifest.stoppedBecause})`,
        todo: 'fix what it names (`skillprobe lint` checks the family), then mutate again',
      });
    return result;
  };

  let base = p.base;
  if (!base) {
    say(`original: ${loaded.suite.cases.length} cases, the family unmutated\n`);
    if (capSpent()) return 'cost_capped';
    const result = await run('original', loaded.skills);
    record.base.status = result.manifest.status;
    await writeMutateRecord(dir, record);
    if (result.manifest.status !== 'completed') return result.manifest.status;
    base = { dir: namedAs(loaded.config.transcriptsDir, o.cwd, result.dir), manifest: result.manifest, results: result.results };
  }

  for (const [i, planned] of p.planned.entries()) {
    const stored = record.mutants[i]!;
    if (!('edits' in planned) || stored.refused !== undefined || stored.status === 'completed') continue;
    const at = mutantDir(planned);
    const checked = await familyProblem(loaded.skills, planned.edits, join(dir, at, 'skills'), o.cwd, loaded.adapter, loaded.neighbours);
    if ('problem' in checked) {
      stored.refused = checked.problem;
      say(`${at}: refused (${checked.problem})\n`);
      await writeMutateRecord(dir, record);
      continue;
    }
    say(`${at}: ${planned.what}\n`);
    if (capSpent()) return 'cost_capped';
    const result = await run(join(at, 'run'), checked.skills);
    Object.assign(stored, mutantResult(base, result, at, stored));
    await writeMutateRecord(dir, record);
    if (STOPPING.has(result.manifest.status)) return result.manifest.status;
  }
  return 'completed';
}

/** A mutant's run as the record keeps it: its status and cost, and, when it finished, whether the suite noticed it. */
function mutantResult(
  base: RunToCompare,
  result: { dir: string; manifest: RunToCompare['manifest']; results: RunToCompare['results']; trials: number; costUsd?: number },
  at: string,
  stored: StoredMutant,
): Partial<StoredMutant> {
  const common = { dir: at, status: result.manifest.status, trials: stored.trials + result.trials, costUsd: result.costUsd };
  if (result.manifest.status !== 'completed') return common;
  const mutant: RunToCompare = { dir: join(at, 'run'), manifest: result.manifest, results: result.results };
  const comparison = compareRuns(base, mutant);
  const rate = (r: RunToCompare, caseId: string) => r.results.summary.cases.find((c) => c.caseId === caseId && c.arm === 'skill')?.rate.p;
  return {
    ...common,
    noticed: noticed(comparison),
    pValue: comparison.suite.pRegressed,
    flipped: flippedFromPass(base.results, result.results),
    observed: base.manifest.cases.defs.flatMap((d) => {
      const [from, to] = [rate(base, d.id), rate(mutant, d.id)];
      return from === undefined || to === undefined ? [] : [{ caseId: d.id, from, to }];
    }),
  };
}
