import { readOnlyTools, type McpServer } from '../../load/mcp.js';
import { splitMcpName, type McpToolName } from '../../mcp/names.js';
import { serverEntries, type McpLaunch } from '../mcp-servers.js';

/**
 * Gemini CLI's MCP servers (measured on 0.61, docs/cli-facts.md): `mcpServers` in its settings; each tool reaches the
 * model as a function `mcp_<server>_<tool>`, and only when the settings' `tools.core` allowlist names it; a server
 * marked `trust` runs its tools without asking, any other's call is refused headless. Its stream names no tool
 * offered: a stub's record of the tools it listed when the CLI asked is the evidence.
 */
const PREFIX = 'mcp_';

export const geminiMcpName = (t: McpToolName): string => `${PREFIX}${t.server}_${t.tool}`;
export const geminiMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '_');

/** The settings' `mcpServers`: a server that only reads is trusted, so its calls run headless; any other's are refused. */
export const geminiMcpServers = (launches: readonly McpLaunch[], servers: readonly McpServer[]) =>
  serverEntries(launches, servers, (tools) => ({ trust: tools === 'all' }));

/**
 * The MCP tools a lab trial's `tools.core` allowlist names: a stub's all, a real server's that the suite marked
 * read-only by name (one marked read-only as a whole names no tool before it runs, so none of its tools is offered).
 */
export const geminiCoreMcpTools = (servers: readonly McpServer[]): string[] =>
  servers.flatMap((s) => {
    const tools = s.kind === 'stub' ? s.stub.tools.map((t) => t.name) : readOnlyTools(s);
    return tools === 'all' ? [] : tools.map((tool) => geminiMcpName({ server: s.name, tool }));
  });
