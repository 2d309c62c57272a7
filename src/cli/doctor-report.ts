import type { Conformance } from '../agents/conformance.js';
import { EXIT } from '../run/exit-codes.js';
import type { AgentCheck, FoundCli } from '../commands/doctor.js';

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

/** The report of every agent's CLIs, as text. Pure. */
export function renderDoctor(checks: readonly AgentCheck[]): string {
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
  return `${[...lines, '', footer].join('\n')}\n`;
}

/**
 * The exit codes the CLIs found give: a version that passed (recorded, or by the live check) passes, one that failed
 * fails, an unchecked or unknown one is inconclusive; no CLI at all is an error. Pure.
 */
export function doctorVerdicts(checks: readonly AgentCheck[]): number[] {
  const found = checks.flatMap((a) => a.found);
  if (found.length === 0) return [EXIT.error];
  return found.map((cli) => {
    const passed =
      cli.probe?.passed ?? (cli.conformance?.kind === 'unrecorded' ? undefined : cli.conformance && cli.conformance.kind === 'passed');
    return passed === undefined ? EXIT.inconclusive : passed ? EXIT.pass : EXIT.fail;
  });
}
