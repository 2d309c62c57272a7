import { isPlainObject } from '../../util/json.js';
import type { McpToolName } from '../../mcp/names.js';
import type { OfferedMcpTool } from '../conversation.js';

/** Small readers the dialects share for requests that arrive as untrusted JSON. */

export type Json = Record<string, unknown>;

export const objectsIn = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

export const stringIn = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The user's prompt among the texts sent before the model's first turn: the last one the CLI did not inject. */
export function promptAmong(texts: readonly string[], injectedPrefixes: readonly string[]): string {
  const own = [...texts].reverse().find((t) => !injectedPrefixes.some((p) => t.trimStart().startsWith(p)));
  return (own ?? '').trim();
}

/** A percent-encoded URL path segment, decoded; as sent when it does not decode. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The model a request body names. */
export const modelIn = (body: unknown): string => (isPlainObject(body) && typeof body.model === 'string' ? body.model : 'simulated');

/** Whether a request body asks for a stream. */
export const asksForStream = (body: unknown): boolean => isPlainObject(body) && body.stream === true;

export interface TurnSplit<T> {
  /** The model's turns so far: runs of consecutive items the model wrote. */
  turns: number;
  /** The items of the last such run. */
  lastTurn: T[];
  /** Everything after it: the CLI's answers to that turn. */
  after: T[];
}

export function splitTurns<T>(items: readonly T[], byModel: (item: T) => boolean): TurnSplit<T> {
  let turns = 0;
  let start = -1;
  let end = -1;
  items.forEach((item, i) => {
    if (!byModel(item)) return;
    if (i !== end) {
      turns++;
      start = i;
    }
    end = i + 1;
  });
  return start < 0 ? { turns, lastTurn: [], after: [] } : { turns, lastTurn: items.slice(start, end), after: items.slice(end) };
}

/** Where the user's latest turn starts among a request's items, how many turns the user has written, and what came before. */
export interface UserTurns {
  /** The user turn the request answers (1 without any earlier one). */
  userTurn: number;
  /** The index of the item that carries the user's latest turn (0 without any). */
  latest: number;
  /** The conversation before it, text only. */
  earlier: { role: 'user' | 'assistant'; text: string }[];
}

/**
 * The user's own turns among a request's items: `userWords` gives an item's words when it is a turn of the user's
 * (not a tool result, not what the CLI injects), else ''; `modelText` the text of an item the model wrote, else undefined.
 */
export function userTurns<T>(items: readonly T[], userWords: (item: T) => string, modelText: (item: T) => string | undefined): UserTurns {
  const at = items.flatMap((item, i) => (userWords(item) !== '' ? [i] : []));
  const latest = at.at(-1) ?? 0;
  const earlier = items.slice(0, latest).flatMap((item): UserTurns['earlier'] => {
    const model = modelText(item);
    if (model !== undefined) return model === '' ? [] : [{ role: 'assistant', text: model }];
    const words = userWords(item);
    return words === '' ? [] : [{ role: 'user', text: words }];
  });
  return { userTurn: Math.max(1, at.length), latest, earlier };
}

/** The MCP tools among a request's tool declarations (`name`, `description`), by the CLI's way of naming them. */
export const offeredMcpTools = (declarations: readonly Json[], toolOf: (name: string) => McpToolName | undefined): OfferedMcpTool[] =>
  declarations.flatMap((d) => {
    const named = toolOf(stringIn(d.name));
    return named ? [{ wireName: stringIn(d.name), ...named, description: stringIn(d.description) }] : [];
  });
