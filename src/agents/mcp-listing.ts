import type { McpToolName } from '../mcp/names.js';
import type { IsolationExpectation } from './types.js';

/**
 * Why the tools a CLI offered the model lack one of the trial's MCP servers' tools, or undefined: a stub's (as the
 * suite declares them) or a real server's (as its watch saw it list them to the CLI; a server that listed nothing is
 * checked by what started, `unofferedServerProblem`). A tool the CLI did not list is a trial in another room
 * (`isolation_error`), never one where the model chose not to use it. `nameOf` is the CLI's name for a server's tool
 * on its model wire.
 */
export function mcpListingProblem(
  offered: readonly string[],
  expected: Pick<IsolationExpectation, 'mcp' | 'mcpRecords'>,
  nameOf: (t: McpToolName) => string,
): string | undefined {
  const listed = new Set(offered);
  const toolsOf = (server: string, stubTools?: readonly string[]) =>
    stubTools ?? expected.mcpRecords?.find((r) => r.server === server)?.listed ?? [];
  const missing = (expected.mcp ?? []).flatMap((s) =>
    toolsOf(s.name, s.stubTools)
      .filter((tool) => !listed.has(nameOf({ server: s.name, tool })))
      .map((tool) => `${s.name}/${tool}`),
  );
  return missing.length ? `MCP tools not offered to the model: ${missing.join(', ')}` : undefined;
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
