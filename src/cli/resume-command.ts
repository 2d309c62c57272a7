import { shellWord } from '../util/shell-words.js';

/** Flags a resume must not repeat, each with whether a value follows it: the resume names its run folder itself, a
 * resumed canary keeps its base, and a top-up or a forced resume is for the user to ask for. */
const NOT_REPEATED: ReadonlyMap<string, boolean> = new Map([
  ['--resume', true],
  ['--add-trials', true],
  ['--baseline', true],
  ['--force', false],
]);

/**
 * The command line that goes on with the run in `runDir`: the one the user typed (`argv`, after the program's name:
 * its `--sim`, `--grep`, `--trials` and every other flag, which a resume must repeat to find the same suite), with
 * `--resume <runDir>` in place of any resume, top-up or base it named, and `replace`'s flags given new values.
 */
export function resumeCommand(argv: readonly string[], runDir: string, replace: ReadonlyMap<string, string> = new Map()): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const flag = word.startsWith('--') ? word.split('=')[0]! : word;
    const takesValue = NOT_REPEATED.get(flag) ?? (replace.has(flag) ? true : undefined);
    if (takesValue === undefined) {
      kept.push(word);
      continue;
    }
    // `--flag value` skips the value too; `--flag=value` is one word.
    if (takesValue && !word.includes('=')) i++;
  }
  const added = [...replace].flatMap(([flag, value]) => [flag, value]);
  return ['skillprobe', ...kept.map(shellWord), '--resume', shellWord(runDir), ...added].join(' ');
}
