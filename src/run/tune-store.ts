import { readRecord, writeRecord, type RecordFile } from './record-store.js';
import { TUNE_FILE, TUNE_FORMAT_VERSION, tuneRecordSchema, type TuneRecord } from './tune-schema.js';

const TUNE_RECORD: RecordFile<TuneRecord> = {
  file: TUNE_FILE,
  version: TUNE_FORMAT_VERSION,
  schema: tuneRecordSchema,
  folder: '`skillprobe tune` printed (transcripts/tune-<id>)',
  restart: 'start a new tune',
};

/** Writes tune.json whole or not at all: a kill mid-write leaves the previous record. */
export const writeTuneRecord = (dir: string, record: TuneRecord): Promise<void> => writeRecord(dir, TUNE_RECORD, record);

/** A tune folder's record, or one clear message when the folder holds none or a damaged one. */
export const readTuneRecord = (dir: string, cwd?: string): Promise<TuneRecord> => readRecord(dir, TUNE_RECORD, cwd);
