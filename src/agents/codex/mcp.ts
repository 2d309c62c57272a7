import { readOnlyTools, type McpServer } from '../../load/mcp.js';
import { serverEntries, type McpLaunch } from '../mcp-servers.js';
import { codexMcpName } from './mcp-names.js';

/**
 * Codex CLI's MCP servers (measured on 0.169, docs/cli-facts.md): `[mcp_servers.<name>]` in its config.toml; its
 * request names only the deferred namespace `mcp__<server>`, and the model calls a tool from code mode's `exec`
 * script as `tools.mcp__<server>__<tool>(…)`; the stream shows the call as an `mcp_tool_call` item (server, tool,
 * arguments, result or error). Under `approval_policy = "never"` a call needs the server's
 * `default_tools_approval_mode = "approve"`, or its tool's `tools.<tool>.approval_mode = "approve"`, else it fails
 * unrun: only the tools that only read get it. Its field hook is handed a call as `mcp__<server>__<tool>` with the
 * call's arguments as `tool_input`.
 */

/**
 * How long Codex waits for a server to start. Past its default (10 s) it runs the turn without that server's tools, so
 * a server slow to start on a loaded machine would read as a model that never called it.
 */
export const CODEX_MCP_STARTUP_SECONDS = 60;

/**
 * The config's `mcp_servers` table: the tools that only read run unasked; any other's calls fail unrun. Each server is
 * `required`: Codex then waits for its listing before the first request, and ends before any request when one fails
 * to start (measured on 0.171.0: without it, a server whose listing came back 2 s after its start was left out of the
 * request, the model offered none of its tools).
 */
export const codexMcpServers = (launches: readonly McpLaunch[], servers: readonly McpServer[]) =>
  serverEntries(launches, servers, (tools) => ({
    startup_timeout_sec: CODEX_MCP_STARTUP_SECONDS,
    required: true,
    ...(tools === 'all'
      ? { default_tools_approval_mode: 'approve' }
      : tools.length
        ? { tools: Object.fromEntries(tools.map((tool) => [tool, { approval_mode: 'approve' }])) }
        : {}),
  }));

/**
 * The trial's MCP tools that only read, as the field's hook matches a call's name: a tool's own name, or a whole
 * server's prefix ending in `*` (see `isReadOnlyMcpCall`).
 */
export const codexReadOnlyMcp = (servers: readonly McpServer[] = []): string[] =>
  servers.flatMap((s) => {
    const tools = readOnlyTools(s);
    return tools === 'all' ? [codexMcpName({ server: s.name, tool: '*' })] : tools.map((tool) => codexMcpName({ server: s.name, tool }));
  });
