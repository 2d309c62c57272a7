import type { McpToolName } from '../mcp/names.js';
import type { IsolationExpectation } from './types.js';

/**
 * Why the tools a CLI offered the model lack a stub MCP server's tool, or undefined: a stub the CLI did not start or
 * list is a trial in another room (`isolation_error`), never one where the model chose not to use it. `nameOf` is the
 * CLI's name for a server's tool on its model wire.
 */
export function mcpListingProblem(
  offered: readonly string[],
  expected: Pick<IsolationExpectation, 'mcp'>,
  nameOf: (t: McpToolName) => string,
): string | undefined {
  const listed = new Set(offered);
  const missing = (expected.mcp ?? []).flatMap((s) =>
    (s.stubTools ?? []).filter((tool) => !listed.has(nameOf({ server: s.name, tool }))).map((tool) => `${s.name}/${tool}`),
  );
  return missing.length ? `MCP stub tools not offered to the model: ${missing.join(', ')}` : undefined;
}

/**
 * For a CLI whose stream names no tool it offered: the tools the trial's MCP servers listed when the CLI asked for them
 * (a stub's record, a real server's watch), as the CLI names them to the model; with `offered`, only those of the
 * servers the CLI's own record says its request offered (Codex names a server, never its tools).
 */
export const listedMcpTools = (
  records: readonly { server: string; listed?: string[] }[] = [],
  nameOf: (t: McpToolName) => string,
  offered?: readonly string[],
): string[] =>
  records
    .filter((r) => offered === undefined || offered.includes(r.server))
    .flatMap((r) => (r.listed ?? []).map((tool) => nameOf({ server: r.server, tool })));
