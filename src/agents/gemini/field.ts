import { stringify } from 'smol-toml';
import type { McpServer } from '../../load/mcp.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import type { ToolResultEvent, Transcript } from '../../transcript/types.js';
import type { InvocationRequest } from '../types.js';
import { geminiMcpRules, REFUSE_EVERY_CALL } from './mcp.js';
import { SKILL_TOOL } from './parse.js';
import { GEMINI_ACTING_TOOLS, settingsJson, settingsTable } from './settings.js';

/**
 * Gemini CLI 0.61 in the field: its default interactive menu offered, every acting call refused by the policy engine
 * before it runs. Measured: a plain `deny` rule (the lab's, or the CLI's own headless one) takes the tool off the
 * menu, and so do `tools.core` and `tools.exclude`; a `deny` rule with an `argsPattern` leaves the tool registered
 * (the engine cannot know the call's arguments when it builds the menu) and refuses every call whose arguments match,
 * so a pattern that matches any arguments refuses every call. An `allow` rule without one, below it, outranks the
 * CLI's own headless deny, which would otherwise take the tool off the menu.
 */

/** What the model is sent for a refused call (`functionResponse.response.error`), and the stream's `tool_result.output`. */
export const GEMINI_FIELD_REFUSAL = `Tool execution denied by policy. ${FIELD_REFUSAL}`;

/**
 * The admin-tier policy (`--admin-policy`) of a field trial: the skill tool allowed (the CLI denies it headless), each
 * acting tool kept on the menu and every call of it refused with the field refusal; the MCP servers' likewise, but for
 * the tools that only read (`geminiMcpRules`).
 */
export function geminiFieldPolicy(servers: readonly McpServer[] = []): string {
  return stringify({
    rule: [
      { toolName: SKILL_TOOL, decision: 'allow', priority: 100 },
      { toolName: [...GEMINI_ACTING_TOOLS], decision: 'allow', priority: 100 },
      { toolName: [...GEMINI_ACTING_TOOLS], ...REFUSE_EVERY_CALL },
      ...geminiMcpRules(servers),
    ],
  });
}

/**
 * A field trial's user settings: every trial's (`settingsTable`) with the default tools and sub-agents left as they
 * are, and no built-in skill hidden: the model sees them beside the family, as a default session lists them; the
 * trial's MCP servers (`mcpServers`, as `geminiMcpServers` writes them) offered with all their tools.
 */
export const geminiFieldSettings = (
  req: Pick<InvocationRequest, 'model' | 'maxTurns' | 'cliRetries'>,
  mcpServers: Record<string, unknown> = {},
) => settingsJson({ ...settingsTable(req, []), ...(Object.keys(mcpServers).length ? { mcpServers } : {}) });

/** The CLI's answer to a call of a tool it had not registered (its stream's `tool_not_registered`). */
const NOT_REGISTERED_TEXT = /^Tool "[^"]+" not found/;

/**
 * Why a field trial's acting calls fail the evidence, from the canonical transcript (what the isolation check
 * receives); undefined when they hold. Each must be answered by the refusal: the transcript keeps no error type, so a
 * call rejected as malformed before the policy saw it fails closed. An acting tool the CLI had not registered means
 * the menu was wrong; a call without an answer cannot be verified.
 */
export function geminiFieldTranscriptProblem(t: Transcript): string | undefined {
  const results = new Map(t.events.filter((e): e is ToolResultEvent => e.kind === 'tool_result').map((e) => [e.id, e]));
  for (const call of t.events) {
    if (call.kind !== 'tool_call' || !GEMINI_ACTING_TOOLS.includes(call.name)) continue;
    const answer = results.get(call.id);
    if (!answer) return `the acting call ${call.name} has no answer: cannot verify it was refused`;
    if (answer.isError && NOT_REGISTERED_TEXT.test(answer.text))
      return `${call.name} was not offered to the model: the field menu is wrong`;
    if (!answer.isError || !answer.text.includes(FIELD_REFUSAL))
      return `the acting call ${call.name} was not refused: ${answer.text.slice(0, 200)}`;
  }
  return undefined;
}
