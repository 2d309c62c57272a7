/**
 * MCP servers an eval file grants the agent, as the real servers a case offers (`mcp:`): a server started by its
 * command (`{command, args}`) is carried; one reached at a URL, and what a case's server has no field for (its `env`
 * values, a tool list, a timeout), are named as not carried. promptfoo grants them in a provider's `config.mcp`
 * (`{enabled, server, servers: [{name, command, args, url}]}`), waza in its `config.mcp_servers` (`{<name>: {type,
 * command, args, env, url}}`).
 */
import { isPlainObject } from '../../util/json.js';
import type { ProblemList } from '../../util/input-error.js';
import type { LocatedYaml } from '../yaml-file.js';
import { kindOf, type ImportedCase, type ImportNote, type SourcePath } from './format.js';

type Servers = NonNullable<ImportedCase['mcp']>;

/** A server's name as a case's MCP server name (letters, digits and `-`), else `mcp-<n>`, from 1. */
function serverName(name: unknown, n: number): string {
  const kept = typeof name === 'string' ? name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') : '';
  return kept !== '' ? kept : `mcp-${n}`;
}

/** A server as the file gives it: its name (when it has one), its fields, and where it was written. */
export interface GivenServer {
  name: unknown;
  s: unknown;
  at: SourcePath;
}

/** The servers granted, each started by its command; what a case cannot carry in `uncarried`, mistakes in `problems`. */
export function grantedServers(y: LocatedYaml, given: readonly GivenServer[], uncarried: ImportNote[], problems: ProblemList): Servers {
  const servers: Servers = {};
  given.forEach(({ name: named, s, at: sAt }, j) => {
    if (!isPlainObject(s))
      return problems.add(y.problem(sAt, `an MCP server is ${kindOf(s)}, not an object`, 'write the server as {command, args}'));
    const name = serverName(named, j + 1);
    if (typeof s.command !== 'string' || s.command.trim() === '') {
      if (typeof s.url === 'string')
        return uncarried.push({
          at: sAt,
          what: `MCP server "${name}": a remote server at ${s.url} (a case offers a real server it starts by command, or a stub)`,
        });
      return problems.add(y.problem(sAt, `MCP server "${name}" has neither a command nor a url`, 'write command: (and args:) to start it'));
    }
    const args = s.args ?? [];
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))
      return problems.add(
        y.problem(
          [...sAt, 'args'],
          `MCP server "${name}": args is ${Array.isArray(args) ? 'a list holding other than text' : kindOf(args)}`,
          'write a list of strings',
        ),
      );
    if (servers[name]) return problems.add(y.problem(sAt, `two MCP servers are named "${name}"`, 'give every server its own name'));
    servers[name] = { command: s.command, args };
    // A stdio server's type says only how it is reached, as a case's real server is.
    for (const k of Object.keys(s).filter(
      (k) => !['name', 'command', 'args'].includes(k) && !(k === 'type' && ['stdio', 'local'].includes(s.type as string)),
    ))
      uncarried.push({
        at: [...sAt, k],
        what:
          k === 'env'
            ? `MCP server "${name}": its env values (a case's server sees only the caller's variables its \`env\` names)`
            : `MCP server "${name}": "${k}"`,
      });
  });
  return servers;
}
