import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { writeFileWhole } from '../util/atomic-file.js';
import { fromFolder } from '../util/paths.js';
import { RunFolderError } from './store.js';

/**
 * The record of a command that holds several runs (tune.json, mutate.json): written whole or not at all, so a kill
 * mid-write leaves the previous record; read back with one clear message when it is missing or damaged.
 */
export interface RecordFile<T> {
  file: string;
  version: number;
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  /** The folder a user should pass instead, and what to do when the record is damaged. */
  folder: string;
  restart: string;
}

export async function writeRecord<T extends object>(dir: string, kind: RecordFile<T>, record: T): Promise<void> {
  await writeFileWhole(join(dir, kind.file), JSON.stringify({ ...record, version: kind.version }, null, 2) + '\n');
}

export async function readRecord<T>(dir: string, kind: RecordFile<T>, cwd?: string): Promise<T> {
  const file = join(dir, kind.file);
  const text = await readFile(fromFolder(cwd, file), 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new RunFolderError(
      file,
      e.code === 'ENOENT' ? `no ${kind.file} here: not a ${kind.file.replace('.json', '')} folder` : `cannot be read (${e.code})`,
      `pass the folder ${kind.folder}`,
    );
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RunFolderError(file, 'is not JSON (damaged)', `${kind.restart}; the run folders inside it still report`);
  }
  const parsed = kind.schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RunFolderError(file, `${issue.path.join('.') || 'the record'}: ${issue.message}`, kind.restart);
  }
  return parsed.data;
}
