import { importEvalSet } from '../commands/import.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, toggle, valued } from './flags.js';
import { text } from './parsers.js';

export const importCommand = defineCommand({
  name: 'import',
  description:
    'write a skill-creator trigger eval set (JSON: query, should_trigger) as a case file to edit (never overwrites without --force)',
  args: [['<file>', 'the eval set: [{"query": "…", "should_trigger": true}, …]']],
  flags: {
    ...CONFIG_FLAGS,
    skills: valued('--skills <dir>', 'skills folder', text('--skills')),
    skill: valued(
      '--skill <name>',
      'the skill it is for (default: the skill folder holding the file, or its name before the first dot)',
      text('--skill'),
    ),
    out: valued('--out <path>', 'the case file to write (default: cases/<skill>.yaml)', text('--out')),
    force: toggle('--force', 'overwrite the case file if it exists'),
  },
  optionsFrom: (o) => o,
  run: (args, o, io) => exitCodeFor({ verdicts: [importEvalSet(args[0]!, o, { cwd: io.cwd, out: io.stdout, err: io.stderr })] }, io),
});
