/**
 * The MCP servers a promptfoo config grants its provider (`providers: [{id, config: {mcp: {enabled, server, servers}}}]`),
 * as each case's `mcp`.
 */
import { isPlainObject } from '../../util/json.js';
import type { ProblemList } from '../../util/input-error.js';
import { valueHash } from '../../util/json.js';
import type { LocatedYaml } from '../yaml-file.js';
import { type ImportedCase, type ImportNote, type SourcePath } from './format.js';
import { grantedServers } from './mcp-grants.js';

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
): { servers: NonNullable<ImportedCase['mcp']>; at: SourcePath } | undefined {
  const grants = providers.flatMap((p, i) => {
    const mcp = isPlainObject(p) && isPlainObject(p.config) ? p.config.mcp : undefined;
    if (!isPlainObject(mcp) || mcp.enabled === false) return [];
    const at = ['providers', i, 'config', 'mcp'];
    for (const k of Object.keys(mcp).filter((k) => !['enabled', 'server', 'servers'].includes(k)))
      uncarried.push({ at: [...at, k], what: `its MCP setting "${k}"` });
    const given = [
      ...(mcp.server === undefined ? [] : [{ s: mcp.server, at: [...at, 'server'] }]),
      ...(Array.isArray(mcp.servers) ? mcp.servers.map((s, j) => ({ s, at: [...at, 'servers', j] })) : []),
    ].map((g) => ({ ...g, name: isPlainObject(g.s) ? g.s.name : undefined }));
    return [{ at, servers: grantedServers(y, given, uncarried, problems) }];
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
