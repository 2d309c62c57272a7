import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOnlyTools } from '../../load/mcp.js';
import { prepareMcpServers, serverEntries } from '../mcp-servers.js';
import type { InvocationRequest } from '../types.js';
import { claudeMcpName, CLAUDE_MCP_PREFIX as PREFIX } from './mcp-names.js';

/**
 * Claude Code's MCP servers (measured on 2.1.197 and 2.1.332, docs/cli-facts.md, test/mcp.e2e.test.ts): `--mcp-config`
 * names a JSON file of `mcpServers`, and with `--strict-mcp-config` no other server is read; each tool is named
 * `mcp__<server>__<tool>` (mcp-names.ts) in the init event's `tools`, whose `mcp_servers` says whether each server
 * connected. 2.1.197 offers each tool among a request's tools; 2.1.332 defers it: the request names it in a
 * system-role message, and the model loads it with ToolSearch before it calls it.
 */

/** Where a trial's MCP config is written: outside the workspace. */
export const mcpConfigFile = (req: Pick<InvocationRequest, 'harnessDir'>) => join(req.harnessDir, 'mcp-config.json');

/** Writes the trial's MCP config (and its stubs' tools); nothing when it is offered no server. */
export async function writeMcpConfig(req: InvocationRequest): Promise<void> {
  const launches = await prepareMcpServers(req);
  if (launches.length === 0) return;
  const mcpServers = serverEntries(launches, req.mcp ?? [], () => ({ type: 'stdio' }));
  await writeFile(mcpConfigFile(req), JSON.stringify({ mcpServers }, null, 2) + '\n');
}

/** Each read-only MCP tool of the trial as a rule: a whole server (a stub's all, `readOnly: true`), or one tool. */
const readOnlyRules = (req: Pick<InvocationRequest, 'mcp'>): { server: string; tool?: string }[] =>
  (req.mcp ?? []).flatMap((s) => {
    const tools = readOnlyTools(s);
    return tools === 'all' ? [{ server: s.name }] : tools.map((tool) => ({ server: s.name, tool }));
  });

/**
 * The permission rules that let the model's calls of the trial's read-only MCP tools run without asking (a stub's all,
 * a real server's those the suite marked read-only): in `-p` any other tool's call is refused, as the field refuses
 * acting calls.
 */
export const mcpAllowedTools = (req: Pick<InvocationRequest, 'mcp'>): string[] =>
  readOnlyRules(req).map((r) => (r.tool === undefined ? `${PREFIX}${r.server}` : claudeMcpName({ server: r.server, tool: r.tool })));

/** The same tools as the field's refusing hook matches names (a whole server: every name it prefixes). */
export const mcpReadOnlyPatterns = (req: Pick<InvocationRequest, 'mcp'>): string[] =>
  readOnlyRules(req).map((r) => (r.tool === undefined ? `${PREFIX}${r.server}__.*` : claudeMcpName({ server: r.server, tool: r.tool })));
