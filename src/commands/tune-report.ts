import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { InputError } from '../util/input-error.js';
import { rewriteDescription } from '../load/rewrite-description.js';
import { REPORTERS } from '../report/registry.js';
import { TUNE_FILE, type TuneRecord } from '../run/tune-schema.js';
import { writeReports, type ReporterChoice, type ReportIo } from './reports.js';

/** The description's change as a unified diff of SKILL.md, or '' when the original stays (or the file is gone). */
async function resultDiff(r: TuneRecord, cwd: string): Promise<string> {
  if (r.result === undefined || r.result === r.original || !existsSync(r.skillFile)) return '';
  const now = await readFile(r.skillFile, 'utf8');
  const old = r.written ? rewriteDescription(now, r.skillFile, r.original) : now;
  const tuned = r.written ? now : rewriteDescription(now, r.skillFile, r.result);
  const shown = relative(cwd, r.skillFile) || r.skillFile;
  return createTwoFilesPatch(shown, shown, old, tuned, 'original', r.written ? 'written' : 'tuned (pass --write to write it)', {
    headerOptions: FILE_HEADERS_ONLY,
  });
}

/** Refuses, before anything runs, a chosen reporter that has no tune report. */
export function checkTuneReporters(choices: readonly ReporterChoice[]): void {
  for (const c of choices) {
    if (c.name !== 'none' && !REPORTERS[c.name]({ colour: false }).renderTune)
      throw new InputError({
        file: '--reporter',
        what: `the ${c.name} reporter has no tune report`,
        todo: 'use terminal, json, markdown or html',
      });
  }
}

export const isTuneFolder = (dir: string) => existsSync(join(dir, TUNE_FILE));

/** Every chosen report of a tune. */
export async function reportTune(
  dir: string,
  record: TuneRecord,
  choices: readonly ReporterChoice[],
  io: ReportIo & { cwd: string },
): Promise<{ failed: string[] }> {
  const input = { record, dir: relative(io.cwd, dir) || dir, diff: await resultDiff(record, io.cwd) };
  return writeReports(choices, (r) => r.renderTune!(input), io);
}
