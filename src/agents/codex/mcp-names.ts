import { splitMcpName, type McpToolName } from '../../mcp/names.js';

/**
 * How Codex CLI names an MCP tool (measured on 0.169, docs/cli-facts.md): `mcp__<server>__<tool>`, in its exec script,
 * its hook and its session record. Names only, so the simulator reads them without the adapter's config writing.
 */
const PREFIX = 'mcp__';

export const codexMcpName = (t: McpToolName): string => `${PREFIX}${t.server}__${t.tool}`;
export const codexMcpTool = (name: string): McpToolName | undefined => splitMcpName(name, PREFIX, '__');

/** A server's namespace, `mcp__<server>` (server names hold no `_`, as the config requires). */
const NAMESPACE = /^mcp__([A-Za-z0-9-]+)$/;

/** The server whose namespace `name` is, if it is one: its tools as a deferred list names it, or as a request body sends it. */
export const codexMcpServer = (name: string): string | undefined => NAMESPACE.exec(name)?.[1];

/**
 * The MCP servers whose tools a Codex request offers, from its `<tools>` developer text: `Deferred tool namespaces:`
 * then a `- mcp__<server>` line each (measured on 0.171: the tools themselves are never sent, and a server whose
 * listing had not come back when the request was made is not named). Its session record holds the same text.
 */
export function deferredMcpServers(text: string): string[] {
  const list = /Deferred tool namespaces:\n((?:- .*\n?)*)/.exec(text)?.[1] ?? '';
  return list.split('\n').flatMap((line) => codexMcpServer(line.replace(/^- /, '')) ?? []);
}
