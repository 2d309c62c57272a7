import { join } from 'node:path';
import { loadResults } from '../runner/stored-results.js';
import { chooseReporters, refuseReportersWithout, reportAgents, reportContexts, reportRun } from '../runner/reports.js';
import { readStoredAgents } from '../runner/agents-run.js';
import { EXIT } from '../run/exit-codes.js';
import { isTuneFolder, reportTune } from '../commands/tune.js';
import { readTuneRecord } from '../run/tune-store.js';
import { isMutateFolder, reportMutate } from '../commands/mutate.js';
import { readMutateRecord } from '../run/mutate-store.js';
import { defineCommand } from './command.js';
import { exitCodeFor, reportDamaged } from './exit.js';
import { CONFIG_FLAGS, reporterFlags, REPORTERS_HELP, valued } from './flags.js';
import { text } from './parsers.js';
import { transcriptsFolder } from './suite-flags.js';
import { newestRun } from '../load/select.js';
import { InputError } from '../util/input-error.js';
import type { CliIo } from './command.js';

/** The newest run in `transcripts`, said on stderr so the report on stdout stays the report; an input error if none. */
function newestRunIn(transcripts: string, io: CliIo): string {
  const runId = newestRun(transcripts, io.cwd);
  if (runId === undefined)
    throw new InputError({
      file: transcripts,
      what: 'holds no run to report',
      todo: 'name a run folder (`skillprobe report transcripts/<run-id>`), or run the suite first (`skillprobe run`)',
    });
  const dir = join(transcripts, runId);
  io.stderr.write(`reporting the newest run: ${dir}\n`);
  return dir;
}

export const reportCommand = defineCommand({
  name: 'report',
  description: 'print the report of a stored run (runs nothing; writes only the files --reporter names)',
  args: [
    [
      '[run]',
      'run folder, e.g. transcripts/<run-id> (a run of several agents: all of them, with the matrix; a tune folder: the tune; a mutate folder: the mutants); default: the newest run in the transcripts folder',
    ],
  ],
  flags: {
    ...reporterFlags(),
    transcripts: valued(
      '--transcripts <dir>',
      "with no run named: the folder to take the newest from (default: the config's transcriptsDir)",
      text('--transcripts'),
    ),
    ...CONFIG_FLAGS,
  },
  helpAfter: REPORTERS_HELP,
  optionsFrom: (o) => o,
  async run([named], o, io) {
    const reporters = chooseReporters(o, io);
    const dir = named ?? newestRunIn(transcriptsFolder(o, io.cwd), io);
    if (isTuneFolder(dir, io.cwd)) {
      refuseReportersWithout(reporters, 'renderTune', 'tune');
      const record = await readTuneRecord(dir, io.cwd);
      const { failed } = await reportTune(dir, record, reporters, io);
      return exitCodeFor({ verdicts: [EXIT.pass], statuses: [record.status], failedReporters: failed }, io);
    }
    if (isMutateFolder(dir, io.cwd)) {
      refuseReportersWithout(reporters, 'renderMutate', 'mutate');
      const record = await readMutateRecord(dir, io.cwd);
      const { failed } = await reportMutate(dir, record, reporters, io);
      return exitCodeFor({ verdicts: [EXIT.pass], statuses: [record.status], failedReporters: failed }, io);
    }
    const stored = await readStoredAgents(dir, io.cwd);
    if (stored?.by === 'context') refuseReportersWithout(reporters, 'renderContexts', 'lab,field');
    const report = stored?.by === 'context' ? reportContexts : reportAgents;
    const agents = stored && { ...stored, ...(await report(dir, stored.runs, stored.missing, reporters, io)) };
    if (agents) {
      for (const r of agents.runs) reportDamaged(r.results, io);
      // An agent with nothing to report is missing data, as a damaged trial is.
      const verdicts = [...agents.runs.map((r) => r.results.exitCode), ...agents.missing.map(() => EXIT.error)];
      return exitCodeFor({ verdicts, failedReporters: agents.failed }, io);
    }
    const { regraded, store, ...loaded } = await loadResults(dir, io.cwd);
    if (regraded)
      io.stderr.write(
        `no current results.json in ${dir} (${regraded}): graded the stored transcripts in memory (\`skillprobe grade\` stores them)\n`,
      );
    const { failed } = await reportRun(reporters, { ...loaded, runDir: dir }, store, io);
    reportDamaged(loaded.results, io);
    return exitCodeFor({ verdicts: [loaded.results.exitCode], failedReporters: failed }, io);
  },
});
