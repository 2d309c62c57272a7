import { MUTATE_FILE, MUTATE_FORMAT_VERSION, mutateRecordSchema, type MutateRecord } from './mutate-schema.js';
import { readRecord, writeRecord, type RecordFile } from './record-store.js';

const MUTATE_RECORD: RecordFile<MutateRecord> = {
  file: MUTATE_FILE,
  version: MUTATE_FORMAT_VERSION,
  schema: mutateRecordSchema,
  folder: '`skillprobe mutate` printed (transcripts/mutate-<id>)',
  restart: 'start a new mutate',
};

export const writeMutateRecord = (dir: string, record: MutateRecord): Promise<void> => writeRecord(dir, MUTATE_RECORD, record);

/** A mutate folder's record, or one clear message when the folder holds none or a damaged one. */
export const readMutateRecord = (dir: string, cwd?: string): Promise<MutateRecord> => readRecord(dir, MUTATE_RECORD, cwd);
