import { splitMcpName, type McpToolName } from '../../mcp/names.js';

/**
 * How Claude Code names an MCP tool to the model and in its init event's `tools` (measured on 2.1.197 and
 * 2.1.332, docs/cli-facts.md, test/mcp.e2e.test.ts): `mcp__<server>__<tool>`. Names only, so the simulator and the parser read them without the
 * adapter's file writing.
 */
export const CLAUDE_MCP_PREFIX = 'mcp__';

export const claudeMcpName = (t: McpToolName): string => `${CLAUDE_MCP_PREFIX}${t.server}__${t.tool}`;
export const claudeMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, CLAUDE_MCP_PREFIX, '__');
