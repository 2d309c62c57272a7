import { isPlainObject } from '../../util/json.js';
import type { ConversationView, ToolOutcome } from '../conversation.js';
import { GEMINI_FIELD_REFUSAL } from '../../agents/gemini/field.js';
import { geminiActs } from './gemini-acting.js';
import { objectsIn, offeredMcpTools, promptAmong, splitTurns, stringIn, userTurns, type Json } from './request-reading.js';
import { isSkillFile, skillOfFile } from './skill-files.js';
import { geminiMcpTool } from '../../agents/gemini/mcp-names.js';

/** The Gemini CLI's generateContent request, as the simulated model reads it. */

export const SKILL_TOOL = 'activate_skill';
export const READ_TOOL = 'read_file';
export const SEARCH_TOOL = 'glob';

/** Context the Gemini CLI sends as text parts around the user's own prompt. */
const INJECTED = ['<session_context>'];

const XML_ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
const unescapeXml = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (e) => XML_ENTITIES[e]!);

export interface GeminiListing {
  names: string[];
  /** Each name's `<description>`, unescaped; a name listed twice keeps the first. */
  descriptions: Map<string, string>;
  files: Map<string, string>;
}

/** The system instruction lists skills as `<available_skills><skill><name/><description/><location/></skill>…`. */
export function parseGeminiListing(system: string): GeminiListing {
  const listing: GeminiListing = { names: [], descriptions: new Map(), files: new Map() };
  const block = /<available_skills>([\s\S]*?)<\/available_skills>/.exec(system)?.[1] ?? '';
  for (const [, entry] of block.matchAll(/<skill>([\s\S]*?)<\/skill>/g)) {
    const field = (tag: string) => {
      const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(entry!);
      return m ? unescapeXml(m[1]!.trim()) : undefined;
    };
    const name = field('name');
    if (!name || listing.names.includes(name)) continue;
    listing.names.push(name);
    listing.descriptions.set(name, field('description') ?? '');
    const location = field('location');
    if (location) listing.files.set(name, location);
  }
  return listing;
}

const partsOf = (content: unknown): Json[] => (isPlainObject(content) ? objectsIn(content.parts) : []);

const textsOf = (content: unknown): string[] => {
  if (typeof content === 'string') return [content];
  return partsOf(content)
    .filter((p) => typeof p.text === 'string')
    .map((p) => stringIn(p.text));
};

/** activate_skill answers with the body inside `<activated_skill><instructions>…</instructions>`, then a file tree. */
export const activatedInstructions = (output: string): string =>
  /<instructions>([\s\S]*?)<\/instructions>/.exec(output)?.[1]?.trim() ?? output;

interface Call {
  id: string;
  name: string;
  args: Json;
}

function outcome(call: Call | undefined, response: Json, skillFiles: ReadonlyMap<string, string>): ToolOutcome {
  const seen = { isError: 'error' in response, text: stringIn(response.output) || stringIn(response.error) || JSON.stringify(response) };
  const filePath = stringIn(call?.args.file_path);
  // A field trial's refusal answers an acting call: the model acted, and nothing ran.
  if (seen.isError && seen.text.includes(GEMINI_FIELD_REFUSAL)) return { action: 'act', ...seen };
  switch (call?.name) {
    case SKILL_TOOL:
      return { action: 'skill', skill: stringIn(call.args.name) || undefined, ...seen };
    case READ_TOOL:
      return isSkillFile(filePath) ? { action: 'read', skill: skillOfFile(filePath, skillFiles), ...seen } : { action: 'other', ...seen };
    case SEARCH_TOOL:
      return { action: 'search', ...seen };
    default:
      return { action: geminiMcpTool(call?.name ?? '') ? 'mcp' : 'other', ...seen };
  }
}

/** Pairs each function response with its call: by the id the CLI gave both, else by name. */
function results(calls: Call[], responses: Json[], skillFiles: ReadonlyMap<string, string>): ToolOutcome[] {
  const open = [...calls];
  return responses.map((r) => {
    const byId = open.findIndex((c) => c.id !== '' && c.id === stringIn(r.id));
    const at = byId >= 0 ? byId : open.findIndex((c) => c.name === stringIn(r.name));
    const [call] = at >= 0 ? open.splice(at, 1) : [];
    return outcome(call, isPlainObject(r.response) ? r.response : {}, skillFiles);
  });
}

export function geminiView(body: unknown): ConversationView {
  const req = isPlainObject(body) ? body : {};
  const contents = objectsIn(req.contents);
  const declarations = objectsIn(req.tools).flatMap((t) => objectsIn(t.functionDeclarations));
  const tools = declarations.map((d) => stringIn(d.name));
  const mcpTools = offeredMcpTools(declarations, geminiMcpTool);
  const listing = parseGeminiListing(textsOf(req.systemInstruction).join('\n'));

  const byModel = (c: Json) => c.role === 'model';
  const firstModel = contents.findIndex(byModel);
  const userTexts = contents.slice(0, firstModel < 0 ? contents.length : firstModel).flatMap((c) => (c.role === 'user' ? textsOf(c) : []));

  // The user's own turns: their contents that answer no function call, beyond the context the CLI injects.
  const userWords = (c: Json) =>
    c.role !== 'user' || partsOf(c).some((p) => isPlainObject(p.functionResponse)) ? '' : promptAmong(textsOf(c), INJECTED);
  const { userTurn, latest, earlier } = userTurns(contents, userWords, (c) => (byModel(c) ? textsOf(c).join('\n') : undefined));
  const { turns, lastTurn, after } = splitTurns(contents.slice(latest), byModel);
  const calls = lastTurn
    .flatMap(partsOf)
    .flatMap((p) => (isPlainObject(p.functionCall) ? [p.functionCall] : []))
    .map((c) => ({ id: stringIn(c.id), name: stringIn(c.name), args: isPlainObject(c.args) ? c.args : {} }));
  const responses = after.flatMap(partsOf).flatMap((p) => (isPlainObject(p.functionResponse) ? [p.functionResponse] : []));
  const lastResults = results(calls, responses, listing.files);
  const shown = lastResults.find((r) => (r.action === 'skill' || r.action === 'read') && !r.isError);
  const canAct = geminiActs(tools);

  return {
    wire: 'gemini',
    offeredSkills: listing.names,
    skillDescriptions: listing.descriptions,
    skillFiles: listing.files,
    canInvokeSkill: tools.includes(SKILL_TOOL),
    canReadFile: tools.includes(READ_TOOL),
    ...(canAct.length > 0 ? { canAct } : {}),
    tools,
    ...(mcpTools.length ? { mcpTools } : {}),
    prompt: promptAmong(userTexts, INJECTED),
    turn: turns,
    userTurn,
    earlier,
    lastResults,
    skillBody: shown && { text: shown.action === 'skill' ? activatedInstructions(shown.text) : shown.text, argumentsFilled: false },
  };
}
