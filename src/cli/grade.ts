import { join } from 'node:path';
import { gradeRun } from '../runner/stored-results.js';
import { chooseReporters, humanStream, reportRun } from '../runner/reports.js';
import { defineCommand } from './command.js';
import { exitCodeFor, reportDamaged } from './exit.js';
import { reporterFlags, REPORTERS_HELP } from './flags.js';

export const gradeCommand = defineCommand({
  name: 'grade',
  description: 'regrade a stored run with the current graders and rewrite its results.json (runs nothing)',
  args: [['<run>', 'run folder, e.g. transcripts/<run-id>']],
  flags: reporterFlags(),
  helpAfter: REPORTERS_HELP,
  optionsFrom: (o) => o,
  async run([dir], o, io) {
    const reporters = chooseReporters(o, io);
    const { store, manifest, results } = await gradeRun(dir!, io.cwd);
    const { failed } = await reportRun(reporters, { manifest, results, runDir: dir! }, store, io);
    reportDamaged(results, io);
    humanStream(reporters, io).write(`regraded ${results.outcomes.length} trials → ${join(dir!, 'results.json')}\n`);
    return exitCodeFor({ verdicts: [results.exitCode], failedReporters: failed }, io);
  },
});
