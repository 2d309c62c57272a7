/**
 * What the simulator needs to know from one Anthropic Messages request, read statelessly: the whole
 * conversation travels in every request, so nothing has to be remembered between requests.
 */

export interface ToolOutcome {
  tool: string;
  input: Record<string, unknown>;
  isError: boolean;
  text: string;
}

export interface ConversationView {
  /** Skills listed to the model in the Skill tool's reminder. */
  offeredSkills: string[];
  /** Tool names the request offers. */
  tools: string[];
  prompt: string;
  /** Assistant turns already taken (0 on the first request). */
  turn: number;
  /** Results of the tool calls of the previous assistant turn. */
  lastResults: ToolOutcome[];
  /** An injected skill body in the last user message, if any. */
  injectedBody?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const LISTING_HEAD = 'The following skills are available for use with the Skill tool:';
const BODY_PREFIX = 'Base directory for this skill: ';

function blocksOf(message: unknown): Json[] {
  if (!isObject(message)) return [];
  const c = message.content;
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  return Array.isArray(c) ? c.filter(isObject) : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n');
  return '';
}

export function parseListing(text: string): string[] {
  const at = text.indexOf(LISTING_HEAD);
  if (at < 0) return [];
  const names: string[] = [];
  for (const line of text.slice(at + LISTING_HEAD.length).split('\n')) {
    if (line.startsWith('</system-reminder>')) break;
    const m = /^- ([^:\s]+)(?::|$)/.exec(line);
    if (m) names.push(m[1]!);
  }
  return names;
}

export function viewConversation(body: unknown): ConversationView {
  const req = isObject(body) ? body : {};
  const messages = Array.isArray(req.messages) ? req.messages.filter(isObject) : [];
  const tools = Array.isArray(req.tools) ? req.tools.filter(isObject).map((t) => String(t.name ?? '')) : [];
  const first = messages.find((m) => m.role === 'user');
  const firstTexts = blocksOf(first)
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''));
  // Older models get the listing as a reminder in the first user message; newer ones as a `system`-role message.
  const offeredSkills = [
    ...new Set(messages.flatMap((m) => blocksOf(m).filter((b) => b.type === 'text').flatMap((b) => parseListing(String(b.text ?? ''))))),
  ];
  const prompt = [...firstTexts].reverse().find((t) => !t.trimStart().startsWith('<system-reminder>')) ?? '';

  const assistantTurns = messages.filter((m) => m.role === 'assistant');
  const calls = new Map<string, Json>();
  const lastAssistant = assistantTurns.at(-1);
  for (const b of blocksOf(lastAssistant)) if (b.type === 'tool_use') calls.set(String(b.id), b);

  const lastAssistantAt = messages.lastIndexOf(lastAssistant as Json);
  const last = lastAssistant ? messages.slice(lastAssistantAt + 1).find((m) => m.role === 'user') : undefined;
  const lastResults: ToolOutcome[] = [];
  let injectedBody: string | undefined;
  if (last) {
    for (const b of blocksOf(last)) {
      if (b.type === 'tool_result') {
        const call = calls.get(String(b.tool_use_id));
        lastResults.push({
          tool: String(call?.name ?? ''),
          input: isObject(call?.input) ? call.input : {},
          isError: b.is_error === true,
          text: textOf(b.content),
        });
      } else if (b.type === 'text' && typeof b.text === 'string' && b.text.startsWith(BODY_PREFIX)) {
        injectedBody = b.text;
      }
    }
  }
  return { offeredSkills, tools, prompt: prompt.trim(), turn: assistantTurns.length, lastResults, injectedBody };
}
