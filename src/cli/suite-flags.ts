import { collectConfig } from '../load/config.js';
import { ProblemList } from '../util/input-error.js';
import type { CaseSelection } from '../load/select.js';
import type { LoadedSuite } from '../runner/load-suite.js';
import type { CliIo } from './command.js';
import type { FlagValues, SELECTION_FLAGS } from './flags.js';

export const caseSelection = (o: FlagValues<typeof SELECTION_FLAGS>): CaseSelection => ({
  grep: o.grep,
  tags: o.tag,
  lastFailed: o.lastFailed === true,
});

/** With --last-failed and nothing failed last time: says so (on stderr beside a document on stdout); true then. */
export function nothingToRun(loaded: LoadedSuite, io: CliIo, toStderr = false): boolean {
  if (loaded.nothingFailedIn === undefined) return false;
  (toStderr ? io.stderr : io.stdout).write(`--last-failed: every case passed in run ${loaded.nothingFailedIn}; nothing to run\n`);
  return true;
}

/**
 * `--transcripts`, else the config file's `transcriptsDir` (skillprobe.config.yaml when present), else the default; as
 * given, relative to `cwd`, the user's working folder.
 */
export function transcriptsFolder(o: { transcripts?: string; config?: string }, cwd: string): string {
  const problems = new ProblemList();
  const loaded = collectConfig(o.config, { transcriptsDir: o.transcripts }, problems, cwd);
  problems.throwIfAny();
  return loaded!.config.transcriptsDir;
}
