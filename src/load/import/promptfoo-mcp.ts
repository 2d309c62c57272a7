/**
 * The MCP servers a promptfoo config grants its provider (`providers: [{id, config: {mcp: {enabled, server, servers}}}]`,
 * a server `{name, command, args}` started over stdio, or `{name, url, headers}` reached over the network), as the real
 * servers a case offers (`mcp:`). A server started by its command is carried; one at a URL, and what a case's server
 * has no field for (its `env` values, `timeout`, …), are named as not carried.
 */
import type { ProblemList } from '../../util/input-error.js';
import { valueHash } from '../../util/json.js';
import type { LocatedYaml } from '../yaml-file.js';
import { isObject, kindOf, type ImportedCase, type ImportNote, type SourcePath } from './format.js';

type Servers = NonNullable<ImportedCase['mcp']>;

/** A promptfoo server name as an MCP server name of a case (letters, digits and `-`), else `mcp-<n>`, from 1. */
const serverName = (name: unknown, n: number) =>
  typeof name === 'string' && name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') !== ''
    ? name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')
    : `mcp-${n}`;

/** The servers one provider's `mcp` grants, each at its path; what it cannot carry in `uncarried`, mistakes in `problems`. */
function providerServers(y: LocatedYaml, at: SourcePath, mcp: Record<string, unknown>, uncarried: ImportNote[], problems: ProblemList) {
  const servers: Servers = {};
  const given = [
    ...(mcp.server === undefined ? [] : [{ s: mcp.server, at: [...at, 'server'] }]),
    ...(Array.isArray(mcp.servers) ? mcp.servers.map((s, j) => ({ s, at: [...at, 'servers', j] })) : []),
  ];
  for (const k of Object.keys(mcp).filter((k) => !['enabled', 'server', 'servers'].includes(k)))
    uncarried.push({ at: [...at, k], what: `its MCP setting "${k}"` });
  given.forEach(({ s, at: sAt }, j) => {
    if (!isObject(s))
      return problems.add(y.problem(sAt, `an MCP server is ${kindOf(s)}, not an object`, 'write {name, command, args}, or {name, url}'));
    const name = serverName(s.name, j + 1);
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
    for (const k of Object.keys(s).filter((k) => !['name', 'command', 'args'].includes(k)))
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

/**
 * The MCP servers the config's provider grants, and where they were written; none when no provider grants any. Each
 * provider is its own run in promptfoo, where a case offers one set: providers granting different servers are named
 * as not carried.
 */
export function promptfooMcp(
  y: LocatedYaml,
  providers: unknown[],
  uncarried: ImportNote[],
  problems: ProblemList,
): { servers: Servers; at: SourcePath } | undefined {
  const grants = providers.flatMap((p, i) => {
    const mcp = isObject(p) && isObject(p.config) ? p.config.mcp : undefined;
    if (!isObject(mcp) || mcp.enabled === false) return [];
    const at = ['providers', i, 'config', 'mcp'];
    return [{ at, servers: providerServers(y, at, mcp, uncarried, problems) }];
  });
  const granting = grants.filter((g) => Object.keys(g.servers).length > 0);
  if (granting.length === 0) return undefined;
  const [first] = granting as [(typeof granting)[number]];
  if (granting.some((g) => valueHash(g.servers) !== valueHash(first.servers))) {
    uncarried.push({
      at: ['providers'],
      what: `the MCP servers of its ${granting.length} providers, which differ (each provider is its own run, where a case offers one set of servers: import one provider's)`,
    });
    return undefined;
  }
  return { servers: first.servers, at: first.at };
}
