import type { ReplyBlock } from '../policy.js';
import { CANARY_CALL } from './acting-calls.js';
import type { Dialect, ModelReply } from './dialect.js';
import { geminiActingCall, type Part } from './gemini-acting.js';
import { geminiView, READ_TOOL, SEARCH_TOOL, SKILL_TOOL } from './gemini-view.js';
import { actInText, outputTokens, pieces, sseEvent } from './reply-writing.js';
import { decodedSegment, objectsIn } from './request-reading.js';

import { isPlainObject } from '../../util/json.js';
import { skillFileOf } from './skill-files.js';
import { geminiMcpName } from '../../agents/gemini/mcp-names.js';

/**
 * The Gemini API as the Gemini CLI calls it: `models/<model>:streamGenerateContent?alt=sse` streams `data:` chunks,
 * the last with `finishReason` and `usageMetadata`; `:generateContent` answers the same shape as one JSON object.
 */

const MODEL_CALL = /\/models\/([^/]+):(streamGenerateContent|generateContent)$/;

function part(block: ReplyBlock, r: Pick<ModelReply, 'skillFiles' | 'tools'>): Part {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'skill':
      return { functionCall: { name: SKILL_TOOL, args: { name: block.name } } };
    case 'read':
      return { functionCall: { name: READ_TOOL, args: { file_path: skillFileOf(block.name, r.skillFiles) } } };
    case 'read_file':
      return { functionCall: { name: READ_TOOL, args: { file_path: block.path } } };
    case 'search':
      return { functionCall: { name: SEARCH_TOOL, args: { pattern: block.pattern } } };
    case 'act':
      // An act the request offered no tool for is said in words (the policy asks for one only where `canAct` has it).
      return geminiActingCall(CANARY_CALL[block.act], r.tools) ?? { text: actInText(block.act) };
    case 'mcp':
      return { functionCall: { name: block.wireName ?? geminiMcpName(block), args: block.input } };
  }
}

const parts = (r: ModelReply): Part[] => r.blocks.map((b) => part(b, r));

function usageMetadata(r: ModelReply) {
  const written = outputTokens(
    parts(r)
      .map((p) => ('text' in p ? p.text : JSON.stringify(p.functionCall)))
      .join(''),
  );
  return {
    promptTokenCount: r.inputTokens,
    candidatesTokenCount: written,
    totalTokenCount: r.inputTokens + written,
    // Gemini names the part of the prompt its cache served only when there is one.
    ...(r.cachedTokens > 0 ? { cachedContentTokenCount: r.cachedTokens } : {}),
  };
}

/** One response chunk; the final one says why the model stopped and what it used. */
export function geminiChunk(r: ModelReply, chunkParts: Part[], final: boolean) {
  return {
    candidates: [{ content: { role: 'model', parts: chunkParts }, index: 0, ...(final ? { finishReason: 'STOP' } : {}) }],
    ...(final ? { usageMetadata: usageMetadata(r) } : {}),
    modelVersion: r.model,
    responseId: `resp_${r.id}`,
  };
}

/** Text arrives in pieces, each call whole. */
const streamedParts = (r: ModelReply): Part[] =>
  parts(r).flatMap((p): Part[] => ('text' in p ? pieces(p.text).map((text) => ({ text })) : [p]));

/** The chunks a streamed reply sends, in order; the last one final. */
export function geminiChunks(r: ModelReply): ReturnType<typeof geminiChunk>[] {
  const streamed = streamedParts(r);
  return streamed.map((p, i) => geminiChunk(r, [p], i === streamed.length - 1));
}

/** The whole reply as one response (`:generateContent`). */
export const geminiResponse = (r: ModelReply) => geminiChunk(r, parts(r), true);

/** What a stream that stalls has sent: one piece of text, not final. */
export const geminiStalledChunk = (r: ModelReply, partialText: string) => geminiChunk(r, [{ text: partialText }], false);

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export const gemini: Dialect = {
  wire: 'gemini',
  handles: (path) => MODEL_CALL.test(path),
  // The Gemini CLI sends no conversation id with its model calls.
  sessionHeaders: [],
  view: geminiView,
  cacheSegments: (body) => (isPlainObject(body) ? [body.tools ?? [], body.systemInstruction ?? '', ...objectsIn(body.contents)] : []),
  model: ({ path }) => decodedSegment(MODEL_CALL.exec(path)?.[1] ?? 'simulated'),
  streams: ({ path }) => path.endsWith(':streamGenerateContent'),
  stream: (r) =>
    geminiChunks(r)
      .map((c) => sseEvent(c))
      .join(''),
  json: geminiResponse,
  stalledStart: (r, partialText) => sseEvent(geminiStalledChunk(r, partialText)),
  // Google says UNAVAILABLE (503).
  overloadedStatus: 503,
  errorBody: (status, message) => ({
    error: { code: status, message, status: STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') },
  }),
  // A quota's refusal, as Google words one (no reset time on this wire).
  usageLimitReply: (resetAt) => ({
    status: 429,
    headers: {},
    body: {
      error: {
        code: 429,
        message: `simulator: quota exhausted (profile provider.usageLimit) until ${new Date(resetAt * 1000).toISOString()}`,
        status: 'RESOURCE_EXHAUSTED',
      },
    },
  }),
};
