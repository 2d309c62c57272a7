import { stringify } from 'smol-toml';
import { isPlainObject } from '../../util/json.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { readJsonLines, str, type TranscriptLines } from '../json-lines.js';
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

/**
 * Why a field trial's stream (`--output-format stream-json`) fails its evidence, undefined when it holds: every
 * acting call must be answered by the refusal (or have been refused as malformed before the policy saw it, which runs
 * nothing either); an acting tool the CLI had not registered means the menu was wrong. Pure: the stream's text in.
 */
export function geminiFieldProblem(stream: TranscriptLines): string | undefined {
  const acting = new Map<string, string>();
  const answered = new Set<string>();
  let problem: string | undefined;
  readJsonLines(stream, (ev) => {
    const id = str(ev.tool_id) ?? '';
    if (ev.type === 'tool_use' && GEMINI_ACTING_TOOLS.includes(str(ev.tool_name) ?? '')) acting.set(id, str(ev.tool_name)!);
    if (ev.type !== 'tool_result' || !acting.has(id) || problem !== undefined) return;
    answered.add(id);
    const error = isPlainObject(ev.error) ? str(ev.error.type) : undefined;
    const output = str(ev.output) ?? '';
    if (error === 'tool_not_registered') problem = `${acting.get(id)} was not offered to the model: the field menu is wrong`;
    else if (
      ev.status !== 'error' ||
      !((error === 'policy_violation' && output.includes(FIELD_REFUSAL)) || error === 'invalid_tool_params')
    )
      problem = `the acting call ${acting.get(id)} was not refused: ${output.slice(0, 200)}`;
  });
  const unanswered = [...acting].find(([id]) => !answered.has(id));
  return problem ?? (unanswered && `the acting call ${unanswered[1]} has no answer in the stream: cannot verify it was refused`);
}
