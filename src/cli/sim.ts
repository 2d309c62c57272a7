import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { loadProfile } from '../sim/profile.js';
import { startSimulator } from '../sim/server.js';
import { EXIT } from '../run/exit-codes.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { valued } from './flags.js';
import { int } from './parsers.js';
import { listenProblem, untilStopped } from './serving.js';

export const simCommand = defineCommand({
  name: 'sim',
  description: 'serve the model SIMULATOR on 127.0.0.1 (Anthropic Messages API) until stopped',
  args: [['<profile>', 'simulator profile (YAML)']],
  flags: { port: valued('-p, --port <port>', 'port (default: a free one)', int('--port', 0, 65_535)) },
  optionsFrom: (o) => o,
  async run([profileFile], o, io) {
    const sim = await startSimulator(loadProfile(profileFile!, io.cwd), { port: o.port }).catch((e: unknown) => {
      throw listenProblem(e, o.port);
    });
    io.stdout.write(
      `skillprobe model SIMULATOR listening on ${sim.url} (not a real model); Ctrl-C stops\n` +
        AGENT_IDS.map((id) => `  ${adapterFor(id).skillListing.cli}: ${adapterFor(id).simulatorHint(sim.url)}\n`).join(''),
    );
    await untilStopped(io);
    await sim.stop();
    return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  },
});
