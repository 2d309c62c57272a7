import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lockRunFolder } from '../run/lock.js';
import type { RunStatus } from '../run/schema.js';
import { newRunId } from '../run/store.js';
import { fromFolder } from '../util/paths.js';
import { checkRunnable, type RunPlace, type SuiteToRun } from './execute.js';

/**
 * The life of a folder of nested runs kept by one record (a tune's tune.json, a mutate's mutate.json): made (or, on a
 * resume, reopened) and locked, the record written as it starts, its status set by what the loop returns or `failed`
 * when it throws, and written once more as it ends, the lock released whatever happened. A kill between the writes
 * loses nothing finished: every nested run is its own folder and the record was written after it.
 */
export interface RecordFolder<R extends { status: RunStatus; endedAt?: string }> {
  /** `tune` or `mutate`: the new folder's prefix (`<kind>-<id>`) and the lock's holder. */
  kind: string;
  /** The record as it starts, once its folder is known. */
  start: (dir: string) => R;
  write: (dir: string, record: R) => Promise<void>;
  /** The loop: it keeps the record in step as it goes and returns the status it ends with. */
  drive: (dir: string, record: R) => Promise<RunStatus>;
}

export async function inRecordFolder<R extends { status: RunStatus; endedAt?: string }>(
  loaded: SuiteToRun,
  o: Pick<RunPlace, 'cwd' | 'callerEnv' | 'workdir'> & { resume?: string },
  f: RecordFolder<R>,
): Promise<{ dir: string; record: R }> {
  const dir = fromFolder(o.cwd, o.resume ?? join(fromFolder(o.cwd, loaded.config.transcriptsDir), `${f.kind}-${newRunId()}`));
  await checkRunnable([loaded], { cwd: o.cwd, callerEnv: o.callerEnv, workdir: o.workdir });
  await mkdir(dir, { recursive: true });
  const lock = lockRunFolder(dir, o.resume === undefined ? f.kind : `${f.kind} --resume`);
  const record = f.start(dir);
  try {
    await f.write(dir, record);
    record.status = await f.drive(dir, record);
  } catch (e) {
    record.status = 'failed';
    throw e;
  } finally {
    record.endedAt = new Date().toISOString();
    await f.write(dir, record).finally(() => lock.release());
  }
  return { dir, record };
}
