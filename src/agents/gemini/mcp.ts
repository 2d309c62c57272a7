import { readOnlyTools, type McpServer } from '../../load/mcp.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { serverEntries, type McpLaunch } from '../mcp-servers.js';

/**
 * Gemini CLI's MCP servers (measured on 0.61, docs/cli-facts.md): `mcpServers` in its settings; each tool reaches the
 * model as a function `mcp_<server>_<tool>`, and only when the settings' `tools.core` allowlist or an admin-policy
 * allow rule names it; a server marked `trust` runs its tools without asking, any other's call is refused headless.
 * Its stream names no tool offered: a stub's record of the tools it listed when the CLI asked is the evidence.
 */

/** The settings' `mcpServers`: a server that only reads is trusted, so its calls run headless; any other's are refused. */
export const geminiMcpServers = (launches: readonly McpLaunch[], servers: readonly McpServer[]) =>
  serverEntries(launches, servers, (tools) => ({ trust: tools === 'all' }));

/** Any arguments at all, newlines included (the policy engine matches the arguments' JSON text). */
const ANY_ARGUMENTS = '[\\s\\S]*';

/**
 * An admin-policy rule's refusal of every call whose arguments match (any): unlike a plain deny, it leaves the tool on
 * the menu (the engine cannot know a call's arguments when it builds the menu), so the model sees the tool and its call
 * is answered by the field refusal.
 */
export const REFUSE_EVERY_CALL = { argsPattern: ANY_ARGUMENTS, decision: 'deny', priority: 200, denyMessage: FIELD_REFUSAL };

/**
 * A trial's admin-policy rules for its MCP servers' tools, by server (`mcpName`, `toolName = "*"` naming every tool of
 * it, so no tool's name is needed before the server lists it): each kept on the menu (an allow, which outranks both
 * the lab's `tools.core` allowlist and the CLI's headless refusal of an untrusted server's tools, either of which would
 * take them off it); every call of a tool that may act refused, the tools marked read-only allowed above that refusal.
 */
export function geminiMcpRules(servers: readonly McpServer[]): object[] {
  return servers.flatMap((s) => {
    const tools = readOnlyTools(s);
    const offered = { mcpName: s.name, toolName: '*', decision: 'allow', priority: 100 };
    if (tools === 'all') return [offered];
    const reads = tools.map((toolName) => ({ mcpName: s.name, toolName, decision: 'allow', priority: 300 }));
    return [offered, { mcpName: s.name, toolName: '*', ...REFUSE_EVERY_CALL }, ...reads];
  });
}
