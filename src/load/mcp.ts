import { valueHash } from '../util/json.js';
import { isAbsolute, resolve } from 'node:path';
import type { McpServersConfig } from '../run/config-schema.js';
import { readOnlyToolsOf } from '../run/schema.js';
import type { InputProblem, ProblemList } from '../util/input-error.js';
import { notExecutable, onSearchPath, shownFrom } from '../util/paths.js';
import { stubFileSchema, stubProblems, TOOL_NAME, type StubFile } from '../mcp/stub-spec.js';
import { parseYamlText, readTextFile, validateYaml } from './yaml-file.js';

/** A stub server, loaded: its tools and canned answers. */
export interface StubServer {
  name: string;
  kind: 'stub';
  stub: StubFile;
  /** sha256 over its name and tools: part of each case's identity. */
  hash: string;
  /** Where the suite names it. */
  at: Pick<InputProblem, 'file' | 'line' | 'col'>;
}

/** A real server (opt-in): the command found, its arguments, the caller's variables it may see, which tools only read. */
export interface CommandServer {
  name: string;
  kind: 'command';
  command: string;
  args: string[];
  /**
   * The folder it runs in: that of the file naming it, against which its command was found, so a relative path among
   * its arguments means what it meant there (a trial's CLI would otherwise start it in the trial's workspace).
   */
  cwd: string;
  env: string[];
  readOnly: boolean | string[];
  hash: string;
  at: Pick<InputProblem, 'file' | 'line' | 'col'>;
}

export type McpServer = StubServer | CommandServer;

/** The servers these cases offer their trials, each case's own (a server several name is listed for each). */
export const serversOf = (cases: readonly { mcpServers?: readonly McpServer[] }[]): McpServer[] => cases.flatMap((c) => c.mcpServers ?? []);

/**
 * The real servers among these, each once: one named by several cases or suites (the same command, arguments,
 * variables and folder) is one process to start. Stubs are the harness's own.
 */
export function distinctCommandServers(servers: readonly McpServer[]): CommandServer[] {
  const distinct = new Map<string, CommandServer>();
  for (const s of servers) if (s.kind === 'command') distinct.set(JSON.stringify([s.command, s.args, s.env, s.cwd]), s);
  return [...distinct.values()];
}

/** The tools of a server a suite names: a stub's, and a real server's it marked read-only (it names no other). */
export const namedTools = (s: McpServer): readonly string[] =>
  s.kind === 'stub' ? s.stub.tools.map((t) => t.name) : Array.isArray(s.readOnly) ? s.readOnly : [];

/** The tools a server offers that only read (a stub's all of them): a field trial may let these run. */
export const readOnlyTools = (s: McpServer): 'all' | readonly string[] =>
  readOnlyToolsOf(s.kind === 'stub' ? { stubTools: [] } : { readOnly: s.readOnly });

/** Where a file's `mcp:` is read: paths relative to `base`; `locate` places a problem at a key of it. */
export interface McpPlace {
  base: string;
  cwd?: string;
  /** The PATH a bare command name is looked up on (the caller's). */
  searchPath?: string;
  locate(path: readonly (string | number)[]): Pick<InputProblem, 'file' | 'line' | 'col'>;
}

function loadStub(name: string, given: string, place: McpPlace, problems: ProblemList): StubServer | undefined {
  // Named from the working folder, as every message names a path.
  const file = shownFrom(place.cwd, resolve(place.base, given));
  return problems.collect(() => {
    const y = parseYamlText(file, readTextFile(file, 'MCP stub file', { utf8: 'strict', cwd: place.cwd }));
    const stub = validateYaml(y, stubFileSchema);
    const wrong = stubProblems(stub);
    for (const p of wrong) problems.add(y.problem(p.at, `MCP stub "${name}": ${p.what}`, p.todo));
    return wrong.length ? undefined : { name, kind: 'stub' as const, stub, hash: valueHash({ name, stub }), at: place.locate([name]) };
  });
}

/** The executable a command names: a path (relative to `base`), or a bare name found on the search path. */
function findCommand(command: string, place: McpPlace): string | undefined {
  if (command.includes('/') || isAbsolute(command)) {
    const path = resolve(place.base, command);
    return notExecutable(path) ? undefined : path;
  }
  return onSearchPath(command, place.searchPath);
}

/**
 * The servers a file's `mcp:` names, each checked: a stub's file parsed (every tool's schema, pattern and answer), a
 * real server's command found. `taken`: names already offered (the suite's, for a case), which may not be named again.
 */
export function loadMcpServers(
  given: McpServersConfig,
  place: McpPlace,
  problems: ProblemList,
  taken: readonly McpServer[] = [],
): McpServer[] {
  const out: McpServer[] = [];
  for (const [name, spec] of Object.entries(given)) {
    if (taken.some((s) => s.name === name)) {
      problems.add({
        ...place.locate([name]),
        what: `MCP server "${name}" is already offered by the config's \`mcp\``,
        todo: 'give this one another name, or remove one of them',
      });
      continue;
    }
    if ('stub' in spec) {
      const stub = loadStub(name, spec.stub, place, problems);
      if (stub) out.push(stub);
      continue;
    }
    const command = findCommand(spec.command, place);
    if (command === undefined) {
      problems.add({
        ...place.locate([name, 'command']),
        what: `MCP server "${name}": command "${spec.command}" is not an executable file${spec.command.includes('/') ? '' : ' on the PATH'}`,
        todo: 'install it, or give the path of its executable',
      });
      continue;
    }
    // Each CLI's field refusal names these tools (a hook's pattern, a policy's rule): only a name it carries unchanged.
    const unnamed = Array.isArray(spec.readOnly) ? spec.readOnly.findIndex((tool) => !TOOL_NAME.test(tool)) : -1;
    if (unnamed >= 0) {
      problems.add({
        ...place.locate([name, 'readOnly', unnamed]),
        what: `MCP server "${name}": read-only tool ${JSON.stringify((spec.readOnly as string[])[unnamed])} is no tool name`,
        todo: 'name each tool as its server lists it: 1 to 64 letters, digits, `_` or `-`',
      });
      continue;
    }
    const { args, env, readOnly } = spec;
    const server = { name, kind: 'command' as const, command, args, cwd: place.base, env, readOnly };
    out.push({ ...server, hash: valueHash({ name, ...spec }), at: place.locate([name]) });
  }
  return out;
}
