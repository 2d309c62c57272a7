import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOnlyTools } from '../../load/mcp.js';
import { splitMcpName, type McpToolName } from '../../mcp/names.js';
import { prepareMcpServers, serverEntries } from '../mcp-servers.js';
import type { InvocationRequest } from '../types.js';

/**
 * Claude Code's MCP servers (measured on 2.1.197, docs/cli-facts.md): `--mcp-config` names a JSON file of
 * `mcpServers`, and with `--strict-mcp-config` no other server is read; each tool reaches the model, and the init
 * event's `tools`, as `mcp__<server>__<tool>`, the init event's `mcp_servers` says whether each server connected.
 */
const PREFIX = 'mcp__';

export const claudeMcpName = (t: McpToolName): string => `${PREFIX}${t.server}__${t.tool}`;
export const claudeMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '__');

/** Where a trial's MCP config is written: outside the workspace. */
export const mcpConfigFile = (req: Pick<InvocationRequest, 'harnessDir'>) => join(req.harnessDir, 'mcp-config.json');

/** Writes the trial's MCP config (and its stubs' tools); nothing when it is offered no server. */
export async function writeMcpConfig(req: InvocationRequest): Promise<void> {
  const launches = await prepareMcpServers(req);
  if (launches.length === 0) return;
  const mcpServers = serverEntries(launches, req.mcp ?? [], () => ({ type: 'stdio' }));
  await writeFile(mcpConfigFile(req), JSON.stringify({ mcpServers }, null, 2) + '\n');
}

/**
 * The permission rules that let the model's calls of the trial's read-only MCP tools run without asking (a stub's all,
 * a real server's those the suite marked read-only): in `-p` any other tool's call is refused, as the field refuses
 * acting calls.
 */
export function mcpAllowedTools(req: Pick<InvocationRequest, 'mcp'>): string[] {
  return (req.mcp ?? []).flatMap((s) => {
    const tools = readOnlyTools(s);
    return tools === 'all' ? [`${PREFIX}${s.name}`] : tools.map((tool) => claudeMcpName({ server: s.name, tool }));
  });
}

/** The same tools as the field's refusing hook matches names (a whole server: every name it prefixes). */
export const mcpReadOnlyPatterns = (req: Pick<InvocationRequest, 'mcp'>): string[] =>
  mcpAllowedTools(req).map((rule) => (rule.split('__').length === 2 ? `${rule}__.*` : rule));
