import { splitMcpName, type McpToolName } from '../../mcp/names.js';

/**
 * How Gemini CLI names an MCP tool to the model (measured on 0.61, docs/cli-facts.md): a function
 * `mcp_<server>_<tool>`. Names only, so the simulator reads them without the adapter's settings writing.
 */
const PREFIX = 'mcp_';

export const geminiMcpName = (t: McpToolName): string => `${PREFIX}${t.server}_${t.tool}`;
export const geminiMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '_');
