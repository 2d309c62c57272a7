import type { Conformance } from '../agents/conformance.js';
import { EXIT } from '../run/exit-codes.js';
import type { AgentCheck, FoundCli } from '../commands/doctor.js';
import type { SuiteServers } from '../commands/doctor-mcp.js';
import { DEFAULT_CONFIG_FILE } from '../load/config.js';

/** What a version's record says, in a few words. Pure. */
export function conformanceWords(c: Conformance): string {
  if (c.kind === 'unrecorded') {
    const checked = c.checked.map((r) => `${r.version} ${r.passed ? 'passed' : 'failed'}`).join(', ');
    return `never run through skillprobe's conformance checks (${checked || 'none recorded'})`;
  }
  return `${c.kind} skillprobe's conformance checks (${c.record.date})`;
}

/** What differs on this copy: the record's list, or what the live check found. */
const differences = (cli: FoundCli): readonly string[] =>
  cli.probe?.differs ?? (cli.conformance?.kind === 'passed' || cli.conformance?.kind === 'failed' ? cli.conformance.record.differs : []);

function cliLines(cli: FoundCli): string[] {
  const standing = cli.conformance ? conformanceWords(cli.conformance) : 'would not say its version';
  const probe = cli.probe ? [`    live check (--probe): ${cli.probe.passed ? 'passed' : 'failed'}`] : [];
  const unchecked =
    cli.conformance?.kind === 'unrecorded' && !cli.probe
      ? ['    for a short live check against the simulator: skillprobe doctor --probe']
      : [];
  return [
    `  ${cli.source}: ${cli.version ?? 'version unknown'}, ${standing}`,
    `    ${cli.binary}`,
    ...probe,
    ...differences(cli).map((d) => `    differs: ${d}`),
    ...unchecked,
  ];
}

/** The suite's real MCP servers, each as its start check went (undefined: no suite here). */
function serverLines(suite: SuiteServers | undefined): string[] {
  if (!suite) return [`No ${DEFAULT_CONFIG_FILE} here: a suite's real MCP servers are started where one is, or with --config FILE.`];
  if (suite.servers.length === 0) return [`The suite in ${suite.config} offers its trials no real MCP server.`];
  return [
    `The real MCP servers of the suite in ${suite.config}, each started as a run starts it before any trial:`,
    ...suite.servers.flatMap((c) =>
      c.problem
        ? [`  ${c.at}: ${c.problem.what}`, `    a run refuses it (exit 2): ${c.problem.todo}`]
        : [`  ${c.at}: MCP server "${c.name}" answered MCP's \`initialize\` in ${(c.ms / 1000).toFixed(2)} s`],
    ),
  ];
}

/** The report of every agent's CLIs, and of the suite's real MCP servers, as text. Pure. */
export function renderDoctor(checks: readonly AgentCheck[], suite?: SuiteServers): string {
  const lines = checks.flatMap((a) => {
    const installed = a.found.some((f) => f.source === 'installed');
    return [
      `${a.cli} (${a.agent}; package ${a.package}, skillprobe pins ${a.pinned})`,
      ...a.found.flatMap(cliLines),
      ...(installed ? [] : [`  not installed beside skillprobe; to run it without --agent-binary: ${a.install}`]),
    ];
  });
  const none = checks.every((a) => a.found.length === 0);
  const footer = none
    ? 'No agent CLI found: install the one you use beside skillprobe (the command above).'
    : 'A run uses the installed CLI unless --agent-binary names another.';
  return `${[...lines, '', footer, '', ...serverLines(suite)].join('\n')}\n`;
}

/**
 * The exit codes the CLIs found give: a version that passed (recorded, or by the live check) passes, one that failed
 * fails, an unchecked or unknown one is inconclusive; no CLI at all is an error. Each real MCP server of the suite:
 * one that answered passes, one that did not fails. Pure.
 */
export function doctorVerdicts(checks: readonly AgentCheck[], suite?: SuiteServers): number[] {
  const servers = (suite?.servers ?? []).map((c) => (c.problem ? EXIT.fail : EXIT.pass));
  const found = checks.flatMap((a) => a.found);
  if (found.length === 0) return [EXIT.error, ...servers];
  return [...found.map(cliVerdict), ...servers];
}

function cliVerdict(cli: FoundCli): number {
  const passed =
    cli.probe?.passed ?? (cli.conformance?.kind === 'unrecorded' ? undefined : cli.conformance && cli.conformance.kind === 'passed');
  return passed === undefined ? EXIT.inconclusive : passed ? EXIT.pass : EXIT.fail;
}
