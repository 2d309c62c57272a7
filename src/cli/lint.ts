import { lintProject } from '../commands/lint.js';
import { ProblemList } from '../util/input-error.js';
import { wrongEntry } from '../util/paths.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, SUITE_FLAGS, toggle, valued } from './flags.js';
import { text } from './parsers.js';

/** Paths given as flags must exist as the kind of entry they name: a usage mistake (exit 2), never a finding. */
function checkFlagPaths(paths: readonly [flag: string, path: string | undefined, kind: 'file' | 'folder'][], cwd: string): void {
  const problems = new ProblemList();
  for (const [flag, path, kind] of paths) {
    const wrong = path === undefined ? undefined : wrongEntry(path, kind, cwd);
    if (wrong) problems.add({ file: flag, what: wrong, todo: `check the ${flag} path` });
  }
  problems.throwIfAny();
}

export const lintCommand = defineCommand({
  name: 'lint',
  description: 'check the skills, the cases and a simulator profile without running anything (exit 1 on any error)',
  flags: {
    ...CONFIG_FLAGS,
    ...SUITE_FLAGS,
    sim: valued('--sim <profile>', 'also check this simulator profile against the skills and cases', text('--sim')),
    json: toggle('--json', 'print the findings as a JSON array'),
  },
  optionsFrom: (o) => o,
  async run(_args, o, io) {
    checkFlagPaths(
      [
        ['--config', o.config, 'file'],
        ['--sim', o.sim, 'file'],
        ['--skills', o.skills, 'folder'],
      ],
      io.cwd,
    );
    // Its findings are its verdicts: an error among them fails.
    return exitCodeFor({ verdicts: [await lintProject(o, { cwd: io.cwd, out: io.stdout })] }, io);
  },
});
