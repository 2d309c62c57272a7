import { isPlainObject } from '../../util/json.js';
import type { ConversationView, OfferedMcpTool, ToolOutcome } from '../conversation.js';
import {
  commandAction,
  commandInArguments,
  commandInScript,
  callsMcpTool,
  commandResult,
  offersShell,
  SCRIPT_TOOL,
  scriptResult,
  SHELL_TOOL,
} from './codex-commands.js';
import { isCodexFieldRefusal } from '../../agents/codex/field-evidence.js';
import { codexMcpServer, deferredMcpServers } from '../../agents/codex/mcp-names.js';
import { codexActs } from './openai-responses-acting.js';
import { objectsIn, promptAmong, splitTurns, stringIn, userTurns, type Json } from './request-reading.js';

/** Codex's OpenAI Responses request, as the simulated model reads it. */

/** Context Codex sends as user messages around the user's own prompt. */
const INJECTED = ['<environment_context>', '# AGENTS.md instructions', '<skill>'];

export interface CodexListing {
  names: string[];
  /** Each name's description as listed, its `(file: …)` part left out; a name listed twice keeps the first. */
  descriptions: Map<string, string>;
  /** Absolute SKILL.md paths: the listing's short `r0/name/SKILL.md` with its root alias expanded. */
  files: Map<string, string>;
}

/**
 * Codex lists skills in a `<skills_instructions>` developer message: a `### Skill roots` table of aliases, then
 * `### Available skills` lines `- name: description (file: r0/name/SKILL.md)`.
 */
export function parseCodexListing(text: string): CodexListing {
  const listing: CodexListing = { names: [], descriptions: new Map(), files: new Map() };
  const block = /<skills_instructions>([\s\S]*?)<\/skills_instructions>/.exec(text)?.[1];
  if (block === undefined) return listing;
  const roots = new Map<string, string>();
  for (const m of block.matchAll(/^- `([^`]+)` = `([^`]+)`\s*$/gm)) roots.set(m[1]!, m[2]!);
  const expand = (short: string) => {
    const slash = short.indexOf('/');
    const root = slash > 0 ? roots.get(short.slice(0, slash)) : undefined;
    return root === undefined ? short : root + short.slice(slash);
  };
  const available = block.split('### Available skills')[1]?.split(/^### /m)[0] ?? '';
  for (const line of available.split('\n')) {
    const m = /^- ([^:\s]+):(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1]!;
    const filePart = /\s*\(file: (.+)\)\s*$/.exec(m[2]!);
    if (!listing.names.includes(name)) {
      listing.names.push(name);
      listing.descriptions.set(name, (filePart ? m[2]!.slice(0, filePart.index) : m[2]!).trim());
    }
    const file = filePart?.[1];
    if (file !== undefined && !listing.files.has(name)) listing.files.set(name, expand(file));
  }
  return listing;
}

/** Message content and tool output come as a string or as parts with text. */
const textsIn = (content: unknown): string[] => (typeof content === 'string' ? [content] : objectsIn(content).map((c) => stringIn(c.text)));

const isMessage = (item: Json, role: string) => item.type === 'message' && item.role === role;

/** What the model wrote: assistant messages, reasoning and calls; everything else comes from the CLI or the user. */
const byModel = (item: Json) =>
  item.type === 'message' ? item.role === 'assistant' : item.type === 'reasoning' || stringIn(item.type).endsWith('_call');

/** Tool names, a namespace's tools by their own names. */
const toolNames = (tools: unknown): string[] =>
  objectsIn(tools).flatMap((t) => (t.type === 'namespace' ? toolNames(t.tools) : [stringIn(t.name) || stringIn(t.type)]));

/** Tools come in the body, or (responses lite) in `additional_tools` items of the input. */
const offeredTools = (body: Json, input: Json[]): string[] => [
  ...toolNames(body.tools),
  ...input.flatMap((item) => (item.type === 'additional_tools' ? toolNames(item.tools) : [])),
];

/**
 * The MCP tools the body offers (Codex's menu without code mode, measured on 0.171.0): each server's a namespace
 * `mcp__<server>` of functions, which the model calls by their names in it.
 */
export const bodyMcpTools = (tools: unknown): OfferedMcpTool[] =>
  objectsIn(tools).flatMap((ns) => {
    const server = ns.type === 'namespace' ? codexMcpServer(stringIn(ns.name)) : undefined;
    if (server === undefined) return [];
    return objectsIn(ns.tools).map((t) => ({
      wireName: stringIn(t.name),
      namespace: stringIn(ns.name),
      server,
      tool: stringIn(t.name),
      description: stringIn(t.description),
    }));
  });

/** Whether a line of an MCP script's output is the tool's result marked as an error. */
const saysToolError = (line: string): boolean => {
  try {
    const r: unknown = JSON.parse(line);
    return isPlainObject(r) && r.isError === true;
  } catch {
    return false;
  }
};

/** A shell command read in skill terms, with Codex's report of it, for either way of running one; any other call is `other`. */
function outcome(call: Json | undefined, result: Json, skillFiles: ReadonlyMap<string, string>): ToolOutcome {
  const output = textsIn(result.output);
  // A field trial's refusal answers an acting call of any tool: the model acted, and nothing ran.
  if (isCodexFieldRefusal(output.join('\n'))) return { action: 'act', isError: true, text: output.join('\n') };
  if (call?.type === 'function_call' && codexMcpServer(stringIn(call.namespace)) !== undefined) {
    // Codex reports the call's time, then the tool's content; a result marked as an error reads the same (measured).
    return { action: 'mcp', isError: false, text: output.join('\n').replace(/^Wall time: [^\n]*\nOutput:\n?/, '') };
  }
  if (call?.type === 'function_call' && call.name === SHELL_TOOL) {
    return { ...commandAction(commandInArguments(stringIn(call.arguments)), skillFiles), ...commandResult(output.join('\n')) };
  }
  if (call?.type === 'custom_tool_call' && call.name === SCRIPT_TOOL && callsMcpTool(stringIn(call.input))) {
    // The script prints the tool's whole result as JSON (mcpScript), its `isError` with it.
    return { action: 'mcp', isError: output.some(saysToolError), text: output.join('\n') };
  }
  if (call?.type === 'custom_tool_call' && call.name === SCRIPT_TOOL) {
    return { ...commandAction(commandInScript(stringIn(call.input)), skillFiles), ...scriptResult(output) };
  }
  return { action: 'other', isError: false, text: output.join('\n') };
}

export function openaiResponsesView(body: unknown): ConversationView {
  const req = isPlainObject(body) ? body : {};
  const input = objectsIn(req.input);
  const tools = offeredTools(req, input);
  const listing = parseCodexListing(input.flatMap((item) => (item.type === 'message' ? textsIn(item.content) : [])).join('\n'));

  const firstModelItem = input.findIndex(byModel);
  const userTexts = input
    .slice(0, firstModelItem < 0 ? input.length : firstModelItem)
    .flatMap((item) => (isMessage(item, 'user') ? textsIn(item.content) : []));

  // The user's own turns: their messages beyond what Codex injects (its environment, AGENTS.md, a skill's body).
  const userWords = (item: Json) => (isMessage(item, 'user') ? promptAmong(textsIn(item.content), INJECTED) : '');
  const modelText = (item: Json) => (byModel(item) ? (isMessage(item, 'assistant') ? textsIn(item.content).join('\n') : '') : undefined);
  const { userTurn, latest, earlier } = userTurns(input, userWords, modelText);
  const { turns, lastTurn, after } = splitTurns(input.slice(latest), byModel);
  const calls = new Map(lastTurn.filter((item) => stringIn(item.call_id) !== '').map((item) => [stringIn(item.call_id), item]));
  const lastResults = after
    .filter((item) => stringIn(item.type).endsWith('_output'))
    .map((r) => outcome(calls.get(stringIn(r.call_id)), r, listing.files));
  const shown = lastResults.find((r) => (r.action === 'skill' || r.action === 'read') && !r.isError);

  const canShell = offersShell(tools);
  const deferred = deferredMcpServers(input.flatMap((item) => (item.type === 'message' ? textsIn(item.content) : [])).join('\n'));
  const canAct = codexActs(tools);
  const mcpTools = bodyMcpTools(req.tools);
  return {
    wire: 'openai-responses',
    offeredSkills: listing.names,
    skillDescriptions: listing.descriptions,
    skillFiles: listing.files,
    canInvokeSkill: canShell,
    canReadFile: canShell,
    ...(canAct.length > 0 ? { canAct } : {}),
    tools,
    ...(mcpTools.length ? { mcpTools } : {}),
    ...(deferred.length ? { mcpDeferred: deferred } : {}),
    prompt: promptAmong(userTexts, INJECTED),
    turn: turns,
    userTurn,
    earlier,
    lastResults,
    skillBody: shown && { text: shown.text, argumentsFilled: false },
  };
}
