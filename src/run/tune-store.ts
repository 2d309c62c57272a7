import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileWhole } from '../util/atomic-file.js';
import { RunFolderError } from './store.js';
import { TUNE_FILE, TUNE_FORMAT_VERSION, tuneRecordSchema, type TuneRecord } from './tune-schema.js';
import { fromFolder } from '../util/paths.js';

/** Writes tune.json whole or not at all: a kill mid-write leaves the previous record. */
export async function writeTuneRecord(dir: string, record: TuneRecord): Promise<void> {
  await writeFileWhole(join(dir, TUNE_FILE), JSON.stringify({ ...record, version: TUNE_FORMAT_VERSION }, null, 2) + '\n');
}

/** A tune folder's record, or one clear message when the folder holds none or a damaged one. */
export async function readTuneRecord(dir: string, cwd?: string): Promise<TuneRecord> {
  const file = join(dir, TUNE_FILE);
  const text = await readFile(fromFolder(cwd, file), 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new RunFolderError(
      file,
      e.code === 'ENOENT' ? 'no tune.json here: not a tune folder' : `cannot be read (${e.code})`,
      'pass the folder `skillprobe tune` printed (transcripts/tune-<id>)',
    );
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RunFolderError(file, 'is not JSON (damaged)', 'start a new tune; the run folders inside it still report');
  }
  const parsed = tuneRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RunFolderError(file, `${issue.path.join('.') || 'the record'}: ${issue.message}`, 'start a new tune');
  }
  return parsed.data;
}
