import { AGENT_IDS } from '../agents/registry.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, toggle, valued } from './flags.js';
import { text } from './parsers.js';

export const doctorCommand = defineCommand({
  name: 'doctor',
  description:
    "the agent CLIs found (installed beside skillprobe, on PATH, --agent-binary): each one's version, whether it passed skillprobe's conformance checks and what differs, and the package to add for a missing one; and each real MCP server of the suite here (or --config's), started as a run starts it",
  flags: {
    ...CONFIG_FLAGS,
    agent: valued('--agent <id>', `only this agent's CLI: ${AGENT_IDS.join(', ')}`, text('--agent')),
    agentBinary: valued('--agent-binary <path>', "also check this binary as the --agent's CLI", text('--agent-binary')),
    probe: toggle('--probe', 'run a short live check against the simulator on every version the conformance checks never ran on'),
    json: toggle('--json', 'print the findings as JSON'),
  },
  helpAfter:
    '\nExit 0: every CLI found passed (its version recorded as passing, or the live check), and every real MCP server answered; 1: a CLI failed, or a server did not answer (a run would refuse it); 2: the suite did not load; 3: a CLI was never checked; 4: none was found.',
  optionsFrom: (o) => ({ ...o, probe: o.probe === true, json: o.json === true }),
  async run(_args, o, io) {
    const { examineClis } = await import('../commands/doctor.js');
    const { checkSuiteServers } = await import('../commands/doctor-mcp.js');
    const { doctorVerdicts, renderDoctor } = await import('./doctor-report.js');
    // The suite first: one that does not load is refused before any CLI is asked its version.
    const suite = await checkSuiteServers(o.config, io);
    const checks = await examineClis(o, io);
    io.stdout.write(o.json ? `${JSON.stringify({ agents: checks, mcp: suite ?? null }, null, 2)}\n` : renderDoctor(checks, suite));
    return exitCodeFor({ verdicts: doctorVerdicts(checks, suite) }, io);
  },
});
