import { isPlainObject } from '../../util/json.js';
import { ACT_KINDS, type ActKind, type ConversationView, type SkillBody, type ToolOutcome } from '../conversation.js';
import { objectsIn, offeredMcpTools, promptAmong, splitTurns, stringIn, userTurns, type Json } from './request-reading.js';
import { isSkillFile, skillOfFile } from './skill-files.js';
import { claudeMcpTool } from '../../agents/claude-code/mcp-names.js';

/** Claude Code's Anthropic Messages request, as the simulated model reads it. */

const LISTING_HEAD = 'The following skills are available for use with the Skill tool:';
/** How Claude Code starts the skill body it injects after a Skill call. */
const BODY_PREFIX = 'Base directory for this skill: ';
/** What Claude Code writes as the user after an empty answer: its own nudge, never a turn of the user's. */
const EMPTY_NUDGE = '[Your previous response had no visible output.';
export const SKILL_TOOL = 'Skill';
export const READ_TOOL = 'Read';
export const SEARCH_TOOL = 'Glob';
/** The lookup that loads a deferred tool's schema (Claude Code 2.1.332). */
export const TOOL_SEARCH = 'ToolSearch';
/** How the CLI names the tools it defers, one a line after this head, in a message of its own. */
const DEFERRED_HEAD = 'The following deferred tools are now available via ToolSearch.';
/** Claude Code's acting tools, by what they do; a sub-agent is `Agent` in the request (`Task` in older builds). */
export const ACT_TOOLS: Record<ActKind, readonly string[]> = {
  shell: ['Bash'],
  write: ['Write'],
  fetch: ['WebFetch'],
  agent: ['Agent', 'Task'],
};
const ACTING_TOOLS = new Set(Object.values(ACT_TOOLS).flat());

/** Claude Code's listing names skills but gives no paths. */
const NO_FILES: ReadonlyMap<string, string> = new Map();

function blocksOf(message: unknown): Json[] {
  if (!isPlainObject(message)) return [];
  const c = message.content;
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  return objectsIn(c);
}

const textsOf = (message: unknown): string[] =>
  blocksOf(message)
    .filter((b) => b.type === 'text')
    .map((b) => stringIn(b.text));

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return objectsIn(content)
    .map((b) => stringIn(b.text))
    .join('\n');
}

/** The listing's lines `- name: description`, or `- name` alone when the budget left no room for descriptions. */
function parseListing(text: string): [name: string, description: string][] {
  const at = text.indexOf(LISTING_HEAD);
  if (at < 0) return [];
  const listed: [string, string][] = [];
  for (const line of text.slice(at + LISTING_HEAD.length).split('\n')) {
    if (line.startsWith('</system-reminder>')) break;
    const m = /^- ([^:\s]+)(?::(.*)|$)/.exec(line);
    if (m) listed.push([m[1]!, (m[2] ?? '').trim()]);
  }
  return listed;
}

/** The tool names listed after the deferred tools' head, up to the first blank line. */
function parseDeferred(text: string): string[] {
  const at = text.indexOf(DEFERRED_HEAD);
  if (at < 0) return [];
  const lines = text.slice(at).split('\n').slice(1);
  const end = lines.findIndex((l) => l.trim() === '' || l.startsWith('<'));
  return (end < 0 ? lines : lines.slice(0, end)).map((l) => l.trim());
}

/** Read prefixes every line with its number and a tab. */
const withoutLineNumbers = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\t/, ''))
    .join('\n');

function outcome(call: Json | undefined, result: Json): ToolOutcome {
  const input = isPlainObject(call?.input) ? call.input : {};
  const filePath = stringIn(input.file_path);
  const seen = { isError: result.is_error === true, text: textOf(result.content) };
  switch (stringIn(call?.name)) {
    case SKILL_TOOL:
      return { action: 'skill', skill: stringIn(input.skill) || undefined, ...seen };
    case READ_TOOL:
      return isSkillFile(filePath) ? { action: 'read', skill: skillOfFile(filePath, NO_FILES), ...seen } : { action: 'other', ...seen };
    case SEARCH_TOOL:
      return { action: 'search', ...seen };
    case TOOL_SEARCH:
      return { action: 'load', ...seen };
    default:
      if (claudeMcpTool(stringIn(call?.name))) return { action: 'mcp', ...seen };
      return { action: ACTING_TOOLS.has(stringIn(call?.name)) ? 'act' : 'other', ...seen };
  }
}

export function anthropicView(body: unknown): ConversationView {
  const req = isPlainObject(body) ? body : {};
  const messages = objectsIn(req.messages);
  const declared = objectsIn(req.tools);
  const tools = declared.map((t) => String(t.name ?? ''));
  const mcpTools = offeredMcpTools(declared, claudeMcpTool);
  // Older models get the listing as a reminder in the first user message; newer ones as a `system`-role message.
  const skillDescriptions = new Map<string, string>();
  for (const [name, description] of messages.flatMap((m) => textsOf(m).flatMap(parseListing))) {
    if (!skillDescriptions.has(name)) skillDescriptions.set(name, description);
  }
  const offeredSkills = [...skillDescriptions.keys()];
  // A deferred tool is named in a message, its schema kept back until the lookup loads it; from then on the request
  // offers it among its tools.
  const deferred = tools.includes(TOOL_SEARCH) ? messages.flatMap((m) => textsOf(m).flatMap(parseDeferred)) : [];
  const offers = (k: ActKind) => ACT_TOOLS[k].some((t) => tools.includes(t));
  const defers = (k: ActKind) => !offers(k) && ACT_TOOLS[k].some((t) => deferred.includes(t));
  const deferredActs = ACT_KINDS.filter(defers);
  const canAct = ACT_KINDS.filter((k) => offers(k) || defers(k));
  const mcpLoadable = deferred.map(claudeMcpTool).filter((t) => t !== undefined);

  // The user's own turns: their messages that answer no tool call and are more than what the CLI injects.
  const userWords = (m: Json) =>
    m.role !== 'user' || blocksOf(m).some((b) => b.type === 'tool_result')
      ? ''
      : promptAmong(
          textsOf(m).filter((t) => !t.startsWith(BODY_PREFIX) && !t.startsWith(EMPTY_NUDGE)),
          ['<system-reminder>'],
        );
  const { userTurn, latest, earlier } = userTurns(messages, userWords, (m) => (m.role === 'assistant' ? textsOf(m).join('\n') : undefined));
  const { turns, lastTurn, after } = splitTurns(messages.slice(latest), (m) => m.role === 'assistant');
  const calls = new Map(
    lastTurn
      .flatMap(blocksOf)
      .filter((b) => b.type === 'tool_use')
      .map((b) => [String(b.id), b]),
  );
  const answer = blocksOf(after.find((m) => m.role === 'user'));
  const lastResults = answer.filter((b) => b.type === 'tool_result').map((b) => outcome(calls.get(String(b.tool_use_id)), b));
  const injected = answer.find((b) => b.type === 'text' && stringIn(b.text).startsWith(BODY_PREFIX));
  const read = lastResults.find((r) => r.action === 'read' && !r.isError);
  const skillBody: SkillBody | undefined = injected
    ? { text: stringIn(injected.text), argumentsFilled: true }
    : read && { text: withoutLineNumbers(read.text), argumentsFilled: false };

  return {
    wire: 'anthropic',
    offeredSkills,
    skillDescriptions,
    skillFiles: NO_FILES,
    canInvokeSkill: tools.includes(SKILL_TOOL),
    canReadFile: tools.includes(READ_TOOL),
    ...(canAct.length > 0 ? { canAct } : {}),
    ...(deferredActs.length > 0 ? { deferredActs } : {}),
    tools,
    ...(mcpTools.length ? { mcpTools } : {}),
    ...(mcpLoadable.length ? { mcpLoadable } : {}),
    prompt: promptAmong(textsOf(messages.find((m) => m.role === 'user')), ['<system-reminder>']),
    turn: turns,
    userTurn,
    earlier,
    lastResults,
    skillBody,
  };
}
