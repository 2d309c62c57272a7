import { chooseReporters, refuseReportersWithout, writeReports } from '../runner/reports.js';
import { EXIT } from '../run/exit-codes.js';
import { InputError } from '../util/input-error.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { reporterFlags, REPORTERS_HELP, valued } from './flags.js';
import { text } from './parsers.js';
import { TRIAL_FLAGS } from './trial-flags.js';

export const rejudgeCommand = defineCommand({
  name: 'rejudge',
  description: "ask a run's judge every stored question again and report how often its answers change (and κ against human labels)",
  args: [['<run>', 'run folder, e.g. transcripts/<run-id>']],
  flags: {
    ...reporterFlags('print the rejudge figures as JSON (--reporter json)'),
    ...TRIAL_FLAGS,
    labels: valued(
      '--labels <file>',
      'human verdicts (`- { case, n, item, label: yes|no }`, arm `skill` unless given): Cohen’s κ of the stored verdicts against them',
      text('--labels'),
    ),
  },
  helpAfter: REPORTERS_HELP,
  optionsFrom(o) {
    if (o.context !== undefined)
      throw new InputError({
        file: '--context',
        what: "a judge's requests run with no tool at all, in no context",
        todo: 'drop --context (the run being rejudged keeps its own)',
      });
    if (o.drawSeed !== undefined && o.sim === undefined)
      throw new InputError({
        file: '--draw-seed',
        what: "seeds the model simulator's draws, and this rejudge has no simulator",
        todo: 'add --sim <profile>, or drop --draw-seed',
      });
    return {
      reporter: o.reporter,
      json: o.json,
      rejudge: {
        sim: o.sim,
        drawSeed: o.drawSeed,
        labels: o.labels,
        maxCostUsd: o.maxCost,
        login: o.login === true,
        concurrency: o.concurrency,
        trialSeconds: o.timeout,
        workdir: o.workdir,
      },
    };
  },
  async run([dir], o, io) {
    const reporters = chooseReporters(o, io);
    refuseReportersWithout(reporters, 'renderRejudge', 'rejudge');
    const { rejudgeRun } = await import('../commands/rejudge.js');
    const r = await rejudgeRun(dir!, { ...o.rejudge, cwd: io.cwd, callerEnv: io.env, stderr: io.stderr });
    const { failed } = await writeReports(reporters, (reporter) => reporter.renderRejudge!(r), io);
    // Nothing rejudge measures is a verdict: its exit code says only whether the judge's requests all ran.
    return exitCodeFor({ verdicts: [EXIT.pass], statuses: [r.status], failedReporters: failed }, io);
  },
});
