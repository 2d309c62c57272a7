import { stringify } from 'smol-toml';
import { isPlainObject } from '../../util/json.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { readJsonLines, str, type TranscriptLines } from '../json-lines.js';
import type { ToolCallEvent, ToolResultEvent, Transcript } from '../../transcript/types.js';
import type { InvocationRequest } from '../types.js';
import { SKILL_TOOL } from './parse.js';
import { GEMINI_ACTING_TOOLS, settingsJson, settingsTable } from './settings.js';

export { GEMINI_ACTING_TOOLS };

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

/** Any arguments at all, newlines included (the engine matches the arguments' JSON text). */
const ANY_ARGUMENTS = '[\\s\\S]*';

/**
 * The admin-tier policy (`--admin-policy`) of a field trial: the skill tool allowed (the CLI denies it headless), each
 * acting tool kept on the menu and every call of it refused with the field refusal.
 */
export function geminiFieldPolicy(): string {
  return stringify({
    rule: [
      { toolName: SKILL_TOOL, decision: 'allow', priority: 100 },
      { toolName: [...GEMINI_ACTING_TOOLS], decision: 'allow', priority: 100 },
      { toolName: [...GEMINI_ACTING_TOOLS], argsPattern: ANY_ARGUMENTS, decision: 'deny', priority: 200, denyMessage: FIELD_REFUSAL },
    ],
  });
}

/** A field trial's user settings: every trial's (`settingsTable`) with the default tools and sub-agents left as they are. */
export const geminiFieldSettings = (req: Pick<InvocationRequest, 'model' | 'maxTurns' | 'cliRetries'>, hiddenBuiltins: readonly string[]) =>
  settingsJson(settingsTable(req, hiddenBuiltins));

/** An acting call and its answer, as the stream or the canonical transcript holds them. */
interface Answered {
  tool: string;
  /** Absent: no answer (the trial ended first). */
  answer?: { isError: boolean; text: string; errorType?: string };
}

/** The CLI's answer to a call of a tool it had not registered (its stream's `tool_not_registered`). */
const NOT_REGISTERED_TEXT = /^Tool "[^"]+" not found/;

/**
 * Why a field trial's acting calls fail the evidence, undefined when they hold: each must be answered by the refusal
 * (or, where the stream says so, have been rejected as malformed before the policy saw it, which runs nothing either);
 * an acting tool the CLI had not registered means the menu was wrong; a call without an answer cannot be verified.
 */
function actingCallsProblem(calls: readonly Answered[]): string | undefined {
  for (const { tool, answer } of calls) {
    if (!answer) return `the acting call ${tool} has no answer: cannot verify it was refused`;
    if (answer.errorType === 'tool_not_registered' || (answer.isError && NOT_REGISTERED_TEXT.test(answer.text)))
      return `${tool} was not offered to the model: the field menu is wrong`;
    const refused = answer.isError && (answer.text.includes(FIELD_REFUSAL) || answer.errorType === 'invalid_tool_params');
    if (!refused) return `the acting call ${tool} was not refused: ${answer.text.slice(0, 200)}`;
  }
  return undefined;
}

/** The acting calls of a field trial's stream (`--output-format stream-json`), each with its answer and error type. Pure. */
export function geminiFieldProblem(stream: TranscriptLines): string | undefined {
  const calls = new Map<string, Answered>();
  readJsonLines(stream, (ev) => {
    const id = str(ev.tool_id) ?? '';
    if (ev.type === 'tool_use' && GEMINI_ACTING_TOOLS.includes(str(ev.tool_name) ?? '')) calls.set(id, { tool: str(ev.tool_name)! });
    const call = ev.type === 'tool_result' ? calls.get(id) : undefined;
    if (call && !call.answer) {
      const errorType = isPlainObject(ev.error) ? str(ev.error.type) : undefined;
      call.answer = { isError: ev.status === 'error', text: str(ev.output) ?? '', ...(errorType ? { errorType } : {}) };
    }
  });
  return actingCallsProblem([...calls.values()]);
}

/**
 * The same check on the canonical transcript (what an adapter's isolation check receives): it keeps no error type,
 * so only the refusal passes, and a malformed acting call fails closed.
 */
export function geminiFieldTranscriptProblem(t: Transcript): string | undefined {
  const results = new Map(t.events.filter((e): e is ToolResultEvent => e.kind === 'tool_result').map((e) => [e.id, e]));
  const calls = t.events
    .filter((e): e is ToolCallEvent => e.kind === 'tool_call' && GEMINI_ACTING_TOOLS.includes(e.name))
    .map((c): Answered => {
      const r = results.get(c.id);
      return { tool: c.name, ...(r ? { answer: { isError: r.isError, text: r.text } } : {}) };
    });
  return actingCallsProblem(calls);
}
