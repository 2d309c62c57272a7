import { InputError } from '../util/input-error.js';
import { unwritableFolder } from '../util/paths.js';
import { chooseReporters, humanStream, refuseReportersWithout, reportContexts, reportRun, type ReporterChoice } from '../runner/reports.js';
import type { LabFieldShards } from '../commands/merge.js';
import { describeRunDir } from '../util/paths.js';
import { plural } from '../util/text.js';
import { defineCommand, type CliIo, type ExitCode } from './command.js';
import { exitCodeFor, reportDamaged } from './exit.js';
import { CONFIG_FLAGS, reporterFlags, REPORTERS_HELP, valued } from './flags.js';
import { text } from './parsers.js';
import { transcriptsFolder } from './suite-flags.js';

/** The shards of a lab,field run merged context by context into one lab,field folder, reported as `run` reports one. */
async function mergeLabField(shards: LabFieldShards, out: string, reporters: ReporterChoice[], io: CliIo): Promise<ExitCode> {
  refuseReportersWithout(reporters, 'renderContexts', 'lab,field');
  const { mergeContextShards } = await import('../commands/merge.js');
  const { dir, merged } = await mergeContextShards(shards, out, io.cwd);
  const { failed } = await reportContexts(dir, merged, [], reporters, io);
  for (const m of merged) reportDamaged(m.results, io);
  const human = humanStream(reporters, io);
  const count = shards.runs.get(shards.contexts[0]!)!.length;
  human.write(
    `merged ${plural(count, 'shard')} of ${shards.contexts.join(' and ')} → run folder ${describeRunDir({ dir }, io.cwd)} (agents.json names each context's run folder)\n`,
  );
  for (const u of merged.flatMap((m) => m.unfinished))
    human.write(
      `${u.name} is ${u.status}: a partial run; resume the shard's lab,field folder (\`skillprobe run --resume DIR --shard ${u.shard}\`), then merge again\n`,
    );
  return exitCodeFor(
    { verdicts: merged.map((m) => m.results.exitCode), statuses: merged.map((m) => m.manifest.status), failedReporters: failed },
    io,
  );
}

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
    const { labFieldShards, mergeShards } = await import('../commands/merge.js');
    const labField = await labFieldShards(dirs, io.cwd);
    if (labField) return mergeLabField(labField, out, reporters, io);
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
