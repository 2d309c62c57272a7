import { distinctCommandServers, serversOf, type McpServer } from '../load/mcp.js';
import { placeText } from '../util/input-error.js';

/**
 * What a plan (`plan`, `tune --plan`, `mutate --plan`) leaves to the run: it starts none of the user's real MCP
 * servers (it spends nothing and runs nothing of theirs), while a run starts each before any trial and refuses one
 * that does not answer; so it says which of the cases' servers it did not start, and what starts them now. Empty
 * without one. Pure.
 */
export function unstartedServersNote(cases: readonly { mcpServers?: readonly McpServer[] }[]): string {
  const real = distinctCommandServers(serversOf(cases));
  if (real.length === 0) return '';
  const named = real.map((s) => `"${s.name}" (${placeText(s.at)})`).join(', ');
  const them = real.length === 1 ? 'it' : 'each';
  return `\nNot started by this plan: the real MCP server${real.length === 1 ? '' : 's'} ${named}. A run starts ${them} before any trial and refuses one that does not answer (exit 2); \`skillprobe doctor\` starts ${real.length === 1 ? 'it' : 'them'} now.\n`;
}
