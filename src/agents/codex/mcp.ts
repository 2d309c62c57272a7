import type { McpServer } from '../../load/mcp.js';
import { splitMcpName, type McpToolName } from '../../mcp/names.js';
import { serverEntries, type McpLaunch } from '../mcp-servers.js';

/**
 * Codex CLI's MCP servers (measured on 0.169, docs/cli-facts.md): `[mcp_servers.<name>]` in its config.toml; its
 * request names only the deferred namespace `mcp__<server>`, and the model calls a tool from code mode's `exec`
 * script as `tools.mcp__<server>__<tool>(…)`; the stream shows the call as an `mcp_tool_call` item (server, tool,
 * arguments, result or error). Under `approval_policy = "never"` a call needs the server's
 * `default_tools_approval_mode = "approve"`, else it fails unrun: only a server that only reads gets it.
 */
const PREFIX = 'mcp__';

export const codexMcpName = (t: McpToolName): string => `${PREFIX}${t.server}__${t.tool}`;
export const codexMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '__');

/** The config's `mcp_servers` table: a server that only reads runs its tools unasked; any other's calls fail unrun. */
export const codexMcpServers = (launches: readonly McpLaunch[], servers: readonly McpServer[]) =>
  serverEntries(launches, servers, (approved) => (approved ? { default_tools_approval_mode: 'approve' } : {}));
