import { EXIT } from '../run/exit-codes.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, valued } from './flags.js';
import { text } from './parsers.js';
import { transcriptsFolder } from './suite-flags.js';

export const historyCommand = defineCommand({
  name: 'history',
  description: 'the runs in a transcripts folder, newest first: agent, model, CLI version, verdicts, trials, cost',
  flags: {
    transcripts: valued('--transcripts <dir>', "the transcripts folder (default: the config's transcriptsDir)", text('--transcripts')),
    ...CONFIG_FLAGS,
    case: valued('--case <id>', 'one case across the runs: its rate and verdict in each', text('--case')),
  },
  optionsFrom: (o) => o,
  async run(_args, o, io) {
    const { readHistory } = await import('../runner/history.js');
    const { renderCaseHistory, renderHistory } = await import('../report/runs.js');
    const rows = await readHistory(transcriptsFolder(o, io.cwd), io.cwd);
    io.stdout.write(o.case === undefined ? renderHistory(rows) : renderCaseHistory(rows, o.case));
    return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  },
});
