/** An MCP tool as a suite names it: its server's name and the tool's own. */
export interface McpToolName {
  server: string;
  tool: string;
}

/**
 * A model-wire tool name read back as an MCP tool, for a CLI that writes `<prefix><server><join><tool>`: server names
 * never hold `_` (the config refuses them), so the first `join` after the prefix ends the server's name.
 */
export function splitMcpName(name: string, prefix: string, join: string): McpToolName | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const at = rest.indexOf(join);
  return at > 0 && at + join.length < rest.length ? { server: rest.slice(0, at), tool: rest.slice(at + join.length) } : undefined;
}

/** How a suite and its reports write an MCP tool: `<server>/<tool>`. */
export const mcpToolText = (t: McpToolName): string => `${t.server}/${t.tool}`;
