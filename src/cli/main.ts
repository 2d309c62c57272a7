import { Command } from 'commander';
import { HARNESS_VERSION } from '../runner/execute.js';
import { nearestName } from '../util/text.js';
import { EXIT } from '../run/exit-codes.js';
import type { CliIo } from './command.js';
import { exitCodeForError } from './exit.js';
import { COMMANDS } from './registry.js';

/** The first line of `--help`: the commands of a first hour, in the order they are used. */
export const GETTING_STARTED =
  'getting started: `skillprobe init` writes a starter suite for your skills, `skillprobe lint` checks it, `skillprobe run --sim sim/skillprobe.profile.yaml` runs it against the model simulator (no key, no cost), `skillprobe run` against the real model, and `skillprobe report` shows the newest run again\n\n';

/**
 * A first word that is no command, even with `--help` after it (which commander would answer with the top help and
 * exit 0): a usage mistake, said as commander says one.
 */
function unknownCommand(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith('-'));
  const names = COMMANDS.map((c) => c.name);
  if (first === undefined || names.includes(first) || first === 'help' || args.indexOf(first) !== 0) return undefined;
  const near = nearestName(first, names);
  return `error: unknown command '${first}'${near ? `\n(Did you mean ${near}?)` : ''}\n`;
}

/** Runs the command line `args` (what follows the program's name) and returns its exit code; nothing is left thrown. */
export async function main(args: readonly string[], io: CliIo): Promise<number> {
  const unknown = unknownCommand(args);
  if (unknown) {
    io.stderr.write(unknown);
    return EXIT.usage;
  }
  let code: number = EXIT.pass;
  const program = new Command()
    .name('skillprobe')
    .description('Does an Agent Skill fire when it should, stay quiet when it should not, and plan a call that runs?')
    .version(HARNESS_VERSION)
    .addHelpText('before', GETTING_STARTED)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const given: CliIo = { ...io, argv: args };
  for (const command of COMMANDS) command.addTo(program, given, (c) => (code = c));
  try {
    await program.parseAsync([...args], { from: 'user' });
    return code;
  } catch (e) {
    return exitCodeForError(e, io);
  }
}
