import { spawn } from 'node:child_process';
import { EXIT } from '../run/exit-codes.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, toggle, valued } from './flags.js';
import { int } from './parsers.js';
import { transcriptsFolder } from './suite-flags.js';
import { listenProblem, untilStopped } from './serving.js';

/** The desktop's opener for a URL (`--open`); it outlives nothing of ours, so it is left to itself. */
function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  spawn(opener, [url], { stdio: 'ignore', detached: true })
    .on('error', () => undefined)
    .unref();
}

export const viewCommand = defineCommand({
  name: 'view',
  description:
    'serve the transcripts folder on 127.0.0.1: the runs, each run live, a case across runs, compare, trials, and labels for the judge',
  args: [['[dir]', "the transcripts folder (default: the config's transcriptsDir)"]],
  flags: {
    port: valued('-p, --port <port>', 'port (default: a free one)', int('--port', 0, 65_535)),
    open: toggle('--open', 'open the page in the desktop browser'),
    ...CONFIG_FLAGS,
  },
  optionsFrom: (o) => o,
  async run([dir], o, io) {
    const { startView } = await import('../commands/view.js');
    const transcriptsDir = dir ?? transcriptsFolder(o, io.cwd);
    const { checkTranscriptsFolder } = await import('../runner/history.js');
    checkTranscriptsFolder(transcriptsDir, io.cwd);
    const view = await startView({ transcriptsDir, cwd: io.cwd, labeller: io.env.USER ?? io.env.USERNAME ?? 'someone' }, o.port ?? 0).catch(
      (e: unknown) => {
        throw listenProblem(e, o.port);
      },
    );
    io.stdout.write(`skillprobe view: ${transcriptsDir} at ${view.url} (127.0.0.1 only); Ctrl-C stops\n`);
    if (o.open) openInBrowser(view.url);
    await untilStopped(io);
    await view.stop();
    return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  },
});
