import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { installCommand, installedManifest, pinnedVersion } from '../agents/cli-binary.js';
import { conformanceOf, type Conformance } from '../agents/conformance.js';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import { InputError } from '../util/input-error.js';
import { fromFolder, isWithin, onSearchPath } from '../util/paths.js';
import { probeCli, type ProbeResult } from './doctor-probe.js';

/** Where a CLI was found: installed beside skillprobe (what a run uses by default), on PATH, or named by the user. */
export type CliSource = 'installed' | 'PATH' | '--agent-binary';

export interface FoundCli {
  source: CliSource;
  binary: string;
  /** The version it says it is; undefined when it would not say. */
  version?: string;
  /** Whether that version passed skillprobe's conformance suite (undefined: no version to look up). */
  conformance?: Conformance;
  /** The short live check `--probe` ran on a version the suite never ran against. */
  probe?: ProbeResult;
}

/** One agent's CLIs: what skillprobe pins, and every copy found. */
export interface AgentCheck {
  agent: string;
  /** The CLI's name for people (`Claude Code`). */
  cli: string;
  package: string;
  /** The version skillprobe's tests and demo pin. */
  pinned: string;
  /** The command that installs the pinned version beside skillprobe. */
  install: string;
  found: FoundCli[];
}

export interface DoctorOptions {
  /** Only this agent (`--agent`); every registered one by default. */
  agent?: string;
  /** A binary to check as the agent's (`--agent-binary`, from the working folder); needs `agent`. */
  agentBinary?: string;
  /** Run the short live check on every found version the suite never ran against. */
  probe: boolean;
}

/** Every CLI of the agents asked for, found, its version read and looked up, and (with `--probe`) checked live. */
export async function examineClis(opts: DoctorOptions, io: { cwd: string; env: NodeJS.ProcessEnv }): Promise<AgentCheck[]> {
  if (opts.agentBinary !== undefined && opts.agent === undefined)
    throw new InputError({
      file: '--agent-binary',
      what: 'names a binary but not whose it is',
      todo: 'add --agent ID (claude-code, codex or gemini)',
    });
  const ids = opts.agent === undefined ? AGENT_IDS : [adapterFor(opts.agent, '--agent').id];
  const checks: AgentCheck[] = [];
  for (const id of ids) {
    const adapter = adapterFor(id);
    const given = opts.agentBinary === undefined ? undefined : adapter.resolveBinary(fromFolder(io.cwd, opts.agentBinary));
    const found = await Promise.all(locateClis(adapter, io.env.PATH, given).map((at) => withVersion(adapter, at)));
    for (const cli of found) {
      if (opts.probe && cli.conformance?.kind === 'unrecorded') cli.probe = await probeCli(adapter, cli.binary, io.env);
    }
    const pkg = adapter.package.name;
    checks.push({
      agent: id,
      cli: adapter.skillListing.cli,
      package: pkg,
      pinned: pinnedVersion(pkg),
      install: installCommand(pkg),
      found,
    });
  }
  return checks;
}

/** The package's folder when it is installed beside skillprobe. */
function installedFolder(adapter: AgentAdapter): string | undefined {
  const manifest = installedManifest(adapter.package.name);
  return manifest && dirname(manifest.path);
}

/**
 * Where the agent's CLI is: the installed package (what a run uses without `--agent-binary`), the command on PATH
 * unless it is that same package (npm's `.bin` links into it), and the binary the user named.
 */
function locateClis(
  adapter: AgentAdapter,
  searchPath: string | undefined,
  given: string | undefined,
): { source: CliSource; binary: string }[] {
  const out: { source: CliSource; binary: string }[] = [];
  const folder = installedFolder(adapter);
  const installed = folder === undefined ? undefined : resolvedOrNothing(adapter);
  if (installed) out.push({ source: 'installed', binary: installed });
  const onPath = onSearchPath(adapter.package.command, searchPath);
  if (onPath && !(folder && isWithin(realpathSync(onPath), realpathSync(folder)))) out.push({ source: 'PATH', binary: onPath });
  if (given !== undefined) out.push({ source: '--agent-binary', binary: given });
  return out;
}

/** The installed binary, or undefined when the package is there without it (a platform package left out). */
function resolvedOrNothing(adapter: AgentAdapter): string | undefined {
  try {
    return adapter.resolveBinary();
  } catch (e) {
    if (e instanceof InputError) return undefined;
    throw e;
  }
}

/**
 * Its version and record. The installed package says its version in its manifest (no process started); any other
 * binary is asked.
 */
async function withVersion(adapter: AgentAdapter, at: { source: CliSource; binary: string }): Promise<FoundCli> {
  const version = at.source === 'installed' ? installedManifest(adapter.package.name)?.json.version : await adapter.cliVersion(at.binary);
  return { ...at, ...(version === undefined ? {} : { version, conformance: conformanceOf(adapter.conformance, version) }) };
}
