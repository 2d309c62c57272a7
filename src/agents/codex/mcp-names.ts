import { splitMcpName, type McpToolName } from '../../mcp/names.js';

/**
 * How Codex CLI names an MCP tool (measured on 0.169, docs/cli-facts.md): `mcp__<server>__<tool>`, in its exec script,
 * its hook and its session record. Names only, so the simulator reads them without the adapter's config writing.
 */
const PREFIX = 'mcp__';

export const codexMcpName = (t: McpToolName): string => `${PREFIX}${t.server}__${t.tool}`;
export const codexMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '__');
