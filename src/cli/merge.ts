import { InputError } from '../util/input-error.js';
import { unwritableFolder } from '../util/paths.js';
import { chooseReporters, humanStream, reportRun } from '../runner/reports.js';
import { describeRunDir } from '../util/paths.js';
import { plural } from '../util/text.js';
import { defineCommand } from './command.js';
import { exitCodeFor, reportDamaged } from './exit.js';
import { CONFIG_FLAGS, reporterFlags, REPORTERS_HELP, valued } from './flags.js';
import { text } from './parsers.js';
import { transcriptsFolder } from './suite-flags.js';

export const mergeCommand = defineCommand({
  name: 'merge',
  description: 'join the run folders of a sharded run (run --shard I/N) into one run and report it',
  args: [['<runs...>', "every shard's run folder"]],
  flags: {
    ...reporterFlags(),
    transcripts: valued(
      '--transcripts <dir>',
      "where the merged run folder is created (default: the config's transcriptsDir)",
      text('--transcripts'),
    ),
    ...CONFIG_FLAGS,
  },
  helpAfter: REPORTERS_HELP,
  optionsFrom: (o) => o,
  async run(dirs, o, io) {
    const reporters = chooseReporters(o, io);
    const out = transcriptsFolder(o, io.cwd);
    const unwritable = unwritableFolder(out, { mustExist: false, cwd: io.cwd });
    if (unwritable) throw new InputError({ file: '--transcripts', what: unwritable, todo: 'point it at a folder you can write to' });
    const { mergeShards } = await import('../commands/merge.js');
    const { store, manifest, results, unfinished } = await mergeShards(dirs, out, io.cwd);
    const runDir = describeRunDir(store, io.cwd);
    const { failed } = await reportRun(reporters, { manifest, results, runDir }, store, io);
    reportDamaged(results, io);
    const human = humanStream(reporters, io);
    human.write(`merged ${plural(dirs.length, 'shard')} (${plural(results.outcomes.length, 'trial')}) → run folder ${runDir}\n`);
    for (const u of unfinished) {
      human.write(
        `${u.name} is ${u.status}: a partial run; \`skillprobe run --resume ${u.dir} --shard ${u.shard}\` finishes it, then merge again\n`,
      );
    }
    return exitCodeFor({ verdicts: [results.exitCode], statuses: [manifest.status], failedReporters: failed }, io);
  },
});
