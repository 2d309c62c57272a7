import { CommanderError } from 'commander';
import { InputError } from '../util/input-error.js';
import { RunFolderError, StoreWriteError } from '../run/store.js';
import type { Results, RunStatus } from '../run/schema.js';
import { plural } from '../util/text.js';
import { EXIT, STOPPED_EXIT } from '../run/exit-codes.js';
import { worstExitCode } from '../verdict/verdict.js';
import { WorkspaceRootError } from '../workspace/sealed.js';
import type { CliIo, ExitCode } from './command.js';

/** How a command that judged something ended: what its exit code is made of. */
export interface Ending {
  /** The exit codes its verdicts (or comparison) give; the worst counts. */
  verdicts: readonly number[];
  /** The status of each run it made or read: one that stopped short decides the code. */
  statuses?: readonly RunStatus[];
  /** Reporters that failed to print or write. */
  failedReporters?: readonly string[];
  /** `--no-gate`: the verdicts are reported, the exit is clean; `says` names what the code would have been. */
  gateOff?: { say: (text: string) => void; whose: string };
}

/** The one rule every command's exit code follows. */
export function exitCodeFor(ending: Ending, io: CliIo): ExitCode {
  const verdicts = worstExitCode([...ending.verdicts]);
  const stopped = (ending.statuses ?? []).map((s) => STOPPED_EXIT[s]).find((code) => code !== undefined);
  let code = stopped ?? verdicts;
  if (ending.gateOff && stopped === undefined) {
    ending.gateOff.say(`gate off (--no-gate): the ${ending.gateOff.whose} exit code would be ${verdicts}\n`);
    code = EXIT.pass;
  }
  const failed = ending.failedReporters ?? [];
  // A reporter that failed turns a clean exit into a harness fault: CI must not go green on a missing report.
  if (failed.length === 0 || code !== EXIT.pass) return code as ExitCode;
  io.stderr.write(`skillprobe: ${failed.join(', ')} failed; the verdicts' exit code would be ${code}\n`);
  return EXIT.internal as ExitCode;
}

/** The exit code of a command that threw, said on stderr: a user's mistake in one line, never a stack trace. */
export function exitCodeForError(e: unknown, io: CliIo): number {
  if (e instanceof CommanderError) {
    // Help asked for and the version are not errors; everything else commander reports (a bad flag, an unknown or
    // missing command, whose usage it printed on stderr) is a usage mistake.
    return e.exitCode === 0 ? EXIT.pass : EXIT.usage;
  }
  if (e instanceof InputError) {
    // One problem, one line; several, a count and a line each.
    const n = e.problems.length;
    io.stderr.write(n === 1 ? `skillprobe: ${e.message}\n` : `skillprobe: ${n} input problems:\n${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof WorkspaceRootError || e instanceof RunFolderError) {
    io.stderr.write(`skillprobe: ${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof StoreWriteError) {
    // The run stopped at the first trial it could not store; every trial stored before it stays gradable.
    io.stderr.write(`skillprobe: ${e.message}\n`);
    return EXIT.internal;
  }
  // A harness fault, never to be mistaken for a verdict: its own exit code.
  io.stderr.write(`skillprobe: internal error (please report): ${(e as Error).stack ?? String(e)}\n`);
  return EXIT.internal;
}

/** Trials the store could not read: named on stderr, one line each, and counted as missing data in the exit code. */
export function reportDamaged(results: Results, io: CliIo): void {
  if (!results.damaged.length) return;
  io.stderr.write(`${plural(results.damaged.length, 'damaged trial file')} left out of grading (exit code at least ${EXIT.error}):\n`);
  for (const d of results.damaged) io.stderr.write(`  ${d.path}: ${d.problem}\n`);
}
