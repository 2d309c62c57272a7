import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pMap from 'p-map';
import { readResultsHeadSync, RunFolderError, RunStore } from '../run/store.js';
import { AGENT_RUNS_FILE } from '../run/schema.js';
import { TUNE_FILE } from '../run/tune-schema.js';
import { readTuneRecord } from '../run/tune-store.js';
import { MUTATE_FILE } from '../run/mutate-schema.js';
import { readMutateRecord } from '../run/mutate-store.js';
import { summariseMutate, summariseRun, summariseTune, type RunSummary } from '../report/runs.js';
import { storedCases, type StoredCase } from '../lint/suite-health.js';
import { InputError } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';

/** Refuses a transcripts folder that is not there (exit 2), before anything is served or read. */
export function checkTranscriptsFolder(transcriptsDir: string, cwd: string): void {
  if (!existsSync(fromFolder(cwd, transcriptsDir)))
    throw new InputError({
      file: transcriptsDir,
      what: 'no such transcripts folder',
      todo: 'run the suite first, or point --transcripts at the folder that holds run folders',
    });
}

/**
 * Every run folder in `transcriptsDir`, newest first by name: a run of several agents gives one id per agent's run
 * (`<run>/<agent's run>`), a tune or a mutate folder its own (the runs inside it are its record's).
 */
export function listRunFolders(transcriptsDir: string, cwd: string): string[] {
  checkTranscriptsFolder(transcriptsDir, cwd);
  const runsIn = (dir: string, prefix = ''): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => {
        const at = join(dir, d.name);
        if (existsSync(join(at, 'run.json'))) return [prefix + d.name];
        if (prefix) return [];
        if (existsSync(join(at, AGENT_RUNS_FILE))) return runsIn(at, `${d.name}/`);
        return existsSync(join(at, TUNE_FILE)) || existsSync(join(at, MUTATE_FILE)) ? [d.name] : [];
      });
  return runsIn(fromFolder(cwd, transcriptsDir)).sort().reverse();
}

/** One run folder's summary; a folder that cannot be read is a summary that says why, never a crash. */
export async function readRunSummary(transcriptsDir: string, runId: string, cwd: string): Promise<RunSummary> {
  const dir = join(transcriptsDir, runId);
  try {
    if (existsSync(join(fromFolder(cwd, dir), TUNE_FILE))) return summariseTune(runId, await readTuneRecord(dir, cwd));
    if (existsSync(join(fromFolder(cwd, dir), MUTATE_FILE))) return summariseMutate(runId, await readMutateRecord(dir, cwd));
    const { store, manifest } = await RunStore.open(dir, cwd);
    const stored = readResultsHeadSync(store.dir);
    if (stored.ok) return summariseRun(runId, manifest, stored.value);
    // A run still going writes its results when it ends: their absence is no problem yet.
    if (manifest.status === 'running' && stored.problem === 'missing') return summariseRun(runId, manifest);
    return summariseRun(runId, manifest, undefined, `results.json ${stored.problem}: \`skillprobe grade ${dir}\``);
  } catch (e) {
    if (e instanceof RunFolderError) return { runId, problem: e.message };
    throw e;
  }
}

/** Run folders read at once: enough to overlap the disk, few enough that a thousand never sit in memory together. */
export const READ_AT_ONCE = 8;

/** Every run folder in `transcriptsDir`, newest first, each as its summary. */
export async function readHistory(transcriptsDir: string, cwd: string): Promise<RunSummary[]> {
  return pMap(listRunFolders(transcriptsDir, cwd), (id) => readRunSummary(transcriptsDir, id, cwd), { concurrency: READ_AT_ONCE });
}

/** Each case's stored trials over the runs in the transcripts folder (none before its first run): what lint and mutate weigh a suite's health by. */
export async function storedSuiteCases(transcriptsDir: string, cwd: string): Promise<Map<string, StoredCase>> {
  if (!existsSync(fromFolder(cwd, transcriptsDir))) return new Map();
  return storedCases(await readHistory(transcriptsDir, cwd));
}
