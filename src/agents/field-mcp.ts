import { readsOnly, type StoredMcpServer } from '../run/schema.js';
import type { ToolCallEvent, Transcript } from '../transcript/types.js';
import { FIELD_REFUSAL } from './field-refusal.js';

/**
 * Why a field trial's MCP calls fail the evidence, or undefined: a call of a tool that only reads (a stub's, a real
 * server's the suite marked) may run; any other must be answered by the field refusal. Fails closed: a call with no
 * answer, or with a tool of a server the trial was not offered, cannot be shown not to have run. Pure.
 */
export function fieldMcpProblem(t: Transcript, servers: readonly StoredMcpServer[] = []): string | undefined {
  const answers = new Map(t.events.flatMap((e) => (e.kind === 'tool_result' ? [[e.id, e] as const] : [])));
  const acting = (call: ToolCallEvent) => {
    const server = servers.find((s) => s.name === call.mcp!.server);
    return server === undefined || !readsOnly(server, call.mcp!.tool);
  };
  for (const call of t.events) {
    if (call.kind !== 'tool_call' || call.intent !== 'mcp' || !call.mcp || !acting(call)) continue;
    const answer = answers.get(call.id);
    if (!answer?.isError || !answer.text.includes(FIELD_REFUSAL))
      return `field: the acting MCP call ${call.mcp.server}/${call.mcp.tool} was not refused: ${(answer?.text ?? 'no answer').slice(0, 200)}`;
  }
  return undefined;
}
