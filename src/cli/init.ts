import { initProject } from '../commands/init.js';
import { EXIT } from '../run/exit-codes.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { valued } from './flags.js';
import { text } from './parsers.js';

export const initCommand = defineCommand({
  name: 'init',
  description: 'scaffold a config, a starter suite and a simulator profile for the skills in .claude/skills or skills (never overwrites)',
  flags: { dir: valued('--dir <dir>', 'the project folder (default: the current folder)', text('--dir')) },
  optionsFrom: (o) => o,
  run(_args, o, io) {
    initProject(o.dir ?? io.cwd, { out: io.stdout, cwd: io.cwd });
    return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  },
});
