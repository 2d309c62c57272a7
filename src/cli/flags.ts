import { Option } from 'commander';
import { text } from './parsers.js';
import { NO_STDOUT, reporterFlag, type ReporterChoice } from '../runner/reports.js';
import { REPORTER_NAMES, REPORTERS } from '../report/registry.js';

/**
 * One flag as data: commander's spelling, its help, and the parser that turns its text into the typed value the
 * command receives. The key a flag is listed under is the name commander stores it as (checked when registered).
 */
export interface Flag<T> {
  readonly spec: string;
  readonly help: string;
  /** A method, so a flag of any value type fits a flag set (its parameter is read bivariantly). */
  parse?(value: string, previous?: T): T;
  readonly choices?: readonly string[];
}

export type FlagSet = Record<string, Flag<unknown>>;

/** What commander hands a command for a flag set: each flag's parsed value, or nothing when it was not given. */
export type FlagValues<F extends FlagSet> = { [K in keyof F]?: F[K] extends Flag<infer T> ? T : never };

/** A flag with no value: present or not. */
export const toggle = (spec: string, help: string): Flag<boolean> => ({ spec, help });

export const valued = <T>(spec: string, help: string, parse: (value: string, previous?: T) => T): Flag<T> => ({ spec, help, parse });

export const choice = <const C extends readonly string[]>(spec: string, help: string, choices: C): Flag<C[number]> => ({
  spec,
  help,
  choices,
});

/** The commander option for a flag, refusing a key that is not the name commander stores the value under. */
export function optionFor(key: string, flag: Flag<unknown>): Option {
  const option = new Option(flag.spec, flag.help);
  if (option.attributeName() !== key)
    throw new Error(`flag ${flag.spec} is listed as ${key}, but commander stores it as ${option.attributeName()}`);
  if (flag.parse) option.argParser(flag.parse);
  if (flag.choices) option.choices([...flag.choices]);
  return option;
}

/** `-c, --config`, the same on every command that reads the config. */
export const CONFIG_FLAGS = {
  config: valued('-c, --config <file>', 'config file (default: skillprobe.config.yaml if present)', text('--config')),
};

/** The suite's files, on every command that loads it. */
export const SUITE_FLAGS = {
  skills: valued('--skills <dir>', 'skills folder', text('--skills')),
  cases: valued('--cases <glob>', 'case files (glob)', text('--cases')),
};

/** `--grep`, `--tag` (repeatable) and `--last-failed`, on every command that takes a suite. */
export const SELECTION_FLAGS = {
  grep: valued('--grep <regex>', 'only cases whose id or prompt matches', text('--grep')),
  tag: valued('--tag <tag>', 'only cases with this tag (repeatable: any of them)', (v: string, prev: string[] = []) => [
    ...prev,
    text('--tag')(v),
  ]),
  lastFailed: toggle(
    '--last-failed',
    'only the cases that failed, were inconclusive or errored in the newest run of the transcripts folder',
  ),
};

/** `--reporter NAME[=FILE]` (repeatable) and `--json` (whose help says what the command prints) on every command that reports. */
export const reporterFlags = (json = 'print the results as JSON (--reporter json)') => ({
  reporter: valued<ReporterChoice[]>(
    '--reporter <name[=file]>',
    `${REPORTER_NAMES.join(', ')}; to stdout, or to FILE (repeatable; the terminal report prints unless another takes stdout, or ${NO_STDOUT})`,
    reporterFlag,
  ),
  json: toggle('--json', json),
});

/** The reporters listed after a reporting command's flags. */
export const REPORTERS_HELP =
  `\nReporters (--reporter NAME or NAME=FILE; at most one prints to stdout, ${NO_STDOUT} nothing):\n` +
  REPORTER_NAMES.map((name) => `  ${name.padEnd(9)} ${REPORTERS[name]({ colour: false }).description}`).join('\n') +
  '\n';
