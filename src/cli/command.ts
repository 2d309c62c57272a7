import { Argument, type Command } from 'commander';
import type { ReportIo } from '../runner/reports.js';
import { optionFor, type FlagSet, type FlagValues } from './flags.js';

/** The world a command runs in, passed in so that no command reaches for process globals itself. */
export interface CliIo extends ReportIo {
  /** The command line as given, after the program's name: what a command printed to go on with it starts from. */
  argv?: readonly string[];
  /** Resolves when the user asks a command that serves until stopped to stop (the process's Ctrl-C or SIGTERM unless given). */
  untilStopped?: () => Promise<void>;
}

declare const exitCodeBrand: unique symbol;

/**
 * An exit code made by the one rule (`exitCodeFor`, or `exitCodeForError` for what a command threw): a command's `run`
 * can return no other, so no command exits by a number of its own.
 */
export type ExitCode = number & { readonly [exitCodeBrand]: true };

/** One command as data: its words, arguments and flags, how its flags become its options, and what it does. */
export interface CliCommand<F extends FlagSet, O> {
  readonly name: string;
  readonly description: string;
  /** Commander's spelling of each argument (`<run>`, `<runs...>`) and its help. */
  readonly args?: readonly (readonly [spec: string, help: string])[];
  readonly flags: F;
  /** Help printed after the flags. */
  readonly helpAfter?: string;
  /** The command's typed options from its parsed flags: the one place a flag's value is read. */
  optionsFrom(values: FlagValues<F>): O;
  /** Does the work and returns the exit code `exitCodeFor` gives it; a user mistake is thrown as an InputError. */
  run(args: readonly string[], options: O, io: CliIo): Promise<ExitCode> | ExitCode;
}

/** A command ready to be added to a program, its types settled. */
export interface RegisteredCommand {
  readonly name: string;
  /** Adds the command to `program`; its exit code reaches `done` once it has run. */
  addTo(program: Command, io: CliIo, done: (code: number) => void): void;
}

export function defineCommand<F extends FlagSet, O>(spec: CliCommand<F, O>): RegisteredCommand {
  return {
    name: spec.name,
    addTo(program, io, done) {
      const cmd = program.command(spec.name).description(spec.description);
      for (const [arg, help] of spec.args ?? []) cmd.addArgument(new Argument(arg, help));
      for (const [key, flag] of Object.entries(spec.flags)) cmd.addOption(optionFor(key, flag));
      if (spec.helpAfter) cmd.addHelpText('after', spec.helpAfter);
      cmd.action(async (...given: unknown[]) => {
        // Commander passes the arguments, then the options, then the command; a variadic argument arrives as a list.
        const args = given.slice(0, spec.args?.length ?? 0).flatMap((a) => (a === undefined ? [] : a)) as string[];
        done(await spec.run(args, spec.optionsFrom(cmd.opts() as FlagValues<F>), io));
      });
    },
  };
}
