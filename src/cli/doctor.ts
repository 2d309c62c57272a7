import { AGENT_IDS } from '../agents/registry.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { toggle, valued } from './flags.js';
import { text } from './parsers.js';

export const doctorCommand = defineCommand({
  name: 'doctor',
  description:
    "the agent CLIs found (installed beside skillprobe, on PATH, --agent-binary): each one's version, whether it passed skillprobe's conformance checks and what differs, and the package to add for a missing one",
  flags: {
    agent: valued('--agent <id>', `only this agent's CLI: ${AGENT_IDS.join(', ')}`, text('--agent')),
    agentBinary: valued('--agent-binary <path>', "also check this binary as the --agent's CLI", text('--agent-binary')),
    probe: toggle('--probe', 'run a short live check against the simulator on every version the conformance checks never ran on'),
    json: toggle('--json', 'print the findings as JSON'),
  },
  helpAfter:
    '\nExit 0: every CLI found passed (its version recorded as passing, or the live check); 1: one failed; 3: one was never checked; 4: none was found.',
  optionsFrom: (o) => ({ ...o, probe: o.probe === true, json: o.json === true }),
  async run(_args, o, io) {
    const { examineClis } = await import('../commands/doctor.js');
    const { doctorVerdicts, renderDoctor } = await import('./doctor-report.js');
    const checks = await examineClis(o, io);
    io.stdout.write(o.json ? `${JSON.stringify({ agents: checks }, null, 2)}\n` : renderDoctor(checks));
    return exitCodeFor({ verdicts: doctorVerdicts(checks) }, io);
  },
});
