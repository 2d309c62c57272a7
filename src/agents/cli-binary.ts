import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { InputError } from '../util/input-error.js';
import { OWN_MANIFEST, requireFromPackage } from '../util/package-root.js';
import { notExecutable } from '../util/paths.js';
import { inWatchedFolder } from '../workspace/watched.js';
import type { CliPackage } from './conformance.js';
import { runAgentCommand } from './spawn.js';

/**
 * The version of the CLI package `pkg` skillprobe pins (its tests and the demo run it), from its own package.json: the
 * CLIs are optional peers a user installs beside skillprobe, pinned exactly among its devDependencies.
 */
export function pinnedVersion(pkg: string): string {
  return OWN_MANIFEST.devDependencies?.[pkg] ?? 'latest';
}

/** The command that adds the pinned CLI to the project that has skillprobe. */
export const installCommand = (pkg: string): string => `npm install -D ${pkg}@${pinnedVersion(pkg)}`;

/** An installed package's own package.json (where it is, and what it says), or undefined when it is not installed. */
export function installedManifest(
  pkg: string,
): { path: string; json: { version?: string; bin?: string | Record<string, string> } } | undefined {
  const path = installedFile(`${pkg}/package.json`);
  return path
    ? { path, json: JSON.parse(readFileSync(path, 'utf8')) as { version?: string; bin?: string | Record<string, string> } }
    : undefined;
}

/** `require.resolve` that answers undefined for a package that is not installed. */
export function installedFile(specifier: string): string | undefined {
  try {
    return requireFromPackage.resolve(specifier);
  } catch {
    return undefined;
  }
}

/**
 * An `--agent-binary` override, absolute (the loader took it from the user's working folder: trials run in their own
 * workspaces, where a relative path would name nothing), checked to be an executable file.
 */
export function overrideBinary(bin: string, { command }: CliPackage): string {
  const unusable = notExecutable(bin);
  if (unusable) {
    throw new InputError({
      file: 'agentBinary',
      what: `agent binary ${unusable}`,
      todo: `give the path of the agent CLI (for a command on PATH: its full path, \`command -v ${command}\`)`,
    });
  }
  return bin;
}

/** The CLI is not installed beside skillprobe: the package to add (skillprobe installs none itself). */
export function notInstalled({ name }: CliPackage, cli: string): InputError {
  return new InputError({
    file: name,
    what: `the ${cli} is not installed beside skillprobe`,
    todo: `add it to the project that has skillprobe: ${installCommand(name)} (or pass --agent-binary PATH; \`npx skillprobe doctor\` lists the CLIs found)`,
  });
}

/**
 * The first version number a CLI prints for `args` (offline), or undefined when it will not say. It runs with a
 * HOME of its own (a watched folder: killed meanwhile, this process leaves no CLI behind), since some CLIs write state
 * there even to print their version; `env` adds what the CLI needs.
 */
export async function printedVersion(
  file: string,
  args: readonly string[],
  env: (home: string) => Record<string, string> = () => ({}),
): Promise<string | undefined> {
  return inWatchedFolder(tmpdir(), 'version-', async (home) => {
    const r = await runAgentCommand(file, args, { timeoutMs: 30_000, env: { PATH: process.env.PATH ?? '', HOME: home, ...env(home) } });
    return /\d+\.\d+\.\d+\S*/.exec(String(r.stdout ?? ''))?.[0];
  });
}
