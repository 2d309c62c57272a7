import { EXIT } from '../run/exit-codes.js';
import { defineCommand } from './command.js';
import { valued } from './flags.js';
import { positive, text } from './parsers.js';

export const rejudgeCommand = defineCommand({
  name: 'rejudge',
  description: "ask a run's judge every stored question again and report how often its answers change (and κ against human labels)",
  args: [['<run>', 'run folder, e.g. transcripts/<run-id>']],
  flags: {
    sim: valued('--sim <profile>', 'rejudge with the built-in model SIMULATOR (a simulated run needs it)', text('--sim')),
    labels: valued(
      '--labels <file>',
      'human verdicts (`- { case, n, item, label: yes|no }`, arm `skill` unless given): Cohen’s κ of the stored verdicts against them',
      text('--labels'),
    ),
    maxCost: valued('--max-cost <usd>', 'stop once the judge’s reported costs reach this many USD', positive('--max-cost')),
    workdir: valued('--workdir <dir>', 'where sealed workspaces are created (default: the system temp folder)', text('--workdir')),
  },
  optionsFrom: (o) => o,
  async run([dir], o, io) {
    const { rejudgeRun, rejudgeText } = await import('../commands/rejudge.js');
    const r = await rejudgeRun(dir!, {
      sim: o.sim,
      labels: o.labels,
      maxCostUsd: o.maxCost,
      workdir: o.workdir,
      callerEnv: io.env,
      stderr: io.stderr,
    });
    io.stdout.write(rejudgeText(r));
    return r.status === 'completed'
      ? EXIT.pass
      : r.status === 'cost_capped'
        ? EXIT.costCapped
        : r.status === 'interrupted'
          ? EXIT.interrupted
          : EXIT.internal;
  },
});
