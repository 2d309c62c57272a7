import type { ReplyBlock } from '../policy.js';
import { CANARY_CALL } from './acting-calls.js';
import { invokeCommand, readCommand, searchCommand } from './codex-commands.js';
import type { Dialect, ModelReply } from './dialect.js';
import { codexActingCall, namespacedCall, scriptCall, shellCall, type CallItem } from './openai-responses-acting.js';
import { mcpScript } from './codex-commands.js';

import { openaiResponsesView } from './openai-responses-view.js';
import { actInText, outputTokens, pieces, sseEvent } from './reply-writing.js';
import { asksForStream, modelIn, objectsIn } from './request-reading.js';
import { isPlainObject } from '../../util/json.js';
import { skillFileOf } from './skill-files.js';
import { codexMcpName } from '../../agents/codex/mcp-names.js';

/** Codex's OpenAI Responses API: output items streamed as SSE, ending in `response.completed` with the usage. */

interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'completed';
  content: { type: 'output_text'; text: string; annotations: [] }[];
}

type OutputItem = MessageItem | CallItem;
type ToolBlock = Exclude<ReplyBlock, { type: 'text' } | { type: 'act' } | { type: 'mcp' }>;

/** Every skill action is a shell command here: Codex has no other way to a file. */
function command(block: ToolBlock, skillFiles: ReadonlyMap<string, string>): string {
  switch (block.type) {
    case 'skill':
      return invokeCommand(skillFileOf(block.name, skillFiles));
    case 'read':
      return readCommand(skillFileOf(block.name, skillFiles));
    case 'read_file':
      return readCommand(block.path);
    case 'search':
      return searchCommand(block.pattern);
  }
}

const messageItem = (r: ModelReply, index: number, text: string): MessageItem => ({
  type: 'message',
  id: `msg_${r.id}_${index}`,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

const outputItem = (r: ModelReply, block: ReplyBlock, index: number): OutputItem => {
  if (block.type === 'text') return messageItem(r, index, block.text);
  // An act the request offered no tool for is said in words (the policy asks for one only where `canAct` has it).
  if (block.type === 'act') return codexActingCall(r, CANARY_CALL[block.act], index) ?? messageItem(r, index, actInText(block.act));
  if (block.type === 'mcp') {
    // A tool the body offered is called in its server's namespace; code mode defers them, and its script calls one by
    // its full name (`tools.mcp__<server>__<tool>(…)`).
    return block.namespace !== undefined
      ? namespacedCall(r, block.namespace, block.wireName ?? block.tool, block.input, index)
      : scriptCall(r, mcpScript(codexMcpName(block), block.input), index);
  }
  return shellCall(r, command(block, r.skillFiles), index);
};

/** What the model wrote in an item: its text, a function's arguments or a custom tool's input. */
const written = (item: OutputItem): string =>
  item.type === 'message' ? item.content[0]!.text : item.type === 'function_call' ? item.arguments : item.input;

const responseId = (r: ModelReply) => `resp_${r.id}`;

function usage(r: ModelReply, output: OutputItem[]) {
  const tokens = outputTokens(output.map(written).join(''));
  return {
    input_tokens: r.inputTokens,
    input_tokens_details: { cached_tokens: r.cachedTokens },
    output_tokens: tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: r.inputTokens + tokens,
  };
}

function completedResponse(r: ModelReply) {
  const output = r.blocks.map((b, i) => outputItem(r, b, i));
  return { id: responseId(r), object: 'response', status: 'completed', model: r.model, output, usage: usage(r, output) };
}

/** Each event names its type twice: in the SSE `event:` line and in the data. */
const event = (type: string, fields: Record<string, unknown>) => sseEvent({ type, ...fields }, type);

const created = (r: ModelReply) =>
  event('response.created', { response: { id: responseId(r), object: 'response', status: 'in_progress', model: r.model, output: [] } });

/** An item's start, as streamed before its content is known. */
function added(item: OutputItem, output_index: number): string {
  const unwritten = item.type === 'message' ? { content: [] } : item.type === 'function_call' ? { arguments: '' } : { input: '' };
  return event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', ...unwritten } });
}

function textDeltas(item: MessageItem, output_index: number, text: string): string {
  return pieces(text)
    .map((delta) => event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }))
    .join('');
}

/** A call's arguments or input in one piece, then once more as done. */
function callDeltas(item: CallItem, output_index: number): string {
  const [stream, field] =
    item.type === 'function_call' ? ['response.function_call_arguments', 'arguments'] : ['response.custom_tool_call_input', 'input'];
  const whole = written(item);
  return (
    event(`${stream}.delta`, { item_id: item.id, output_index, delta: whole }) +
    event(`${stream}.done`, { item_id: item.id, output_index, [field]: whole })
  );
}

function itemEvents(item: OutputItem, output_index: number): string {
  const deltas = item.type === 'message' ? textDeltas(item, output_index, item.content[0]!.text) : callDeltas(item, output_index);
  return added(item, output_index) + deltas + event('response.output_item.done', { output_index, item });
}

function errorBody(status: number, message: string): unknown {
  // Codex treats a 429 as retryable unless its type names a usage plan limit, so a rate limit says only that.
  const [type, code] =
    status === 429
      ? ['requests', 'rate_limit_exceeded']
      : status === 401
        ? ['invalid_request_error', 'invalid_api_key']
        : status >= 500
          ? ['server_error', null]
          : ['invalid_request_error', null];
  return { error: { message, type, param: null, code } };
}

export const openaiResponses: Dialect = {
  wire: 'openai-responses',
  handles: (path) => path.endsWith('/responses'),
  sessionHeaders: ['session-id', 'thread-id'],
  view: openaiResponsesView,
  cacheSegments: (body) => (isPlainObject(body) ? [body.tools ?? [], body.instructions ?? '', ...objectsIn(body.input)] : []),
  model: ({ body }) => modelIn(body),
  streams: ({ body }) => asksForStream(body),
  stream(r) {
    const response = completedResponse(r);
    return created(r) + response.output.map(itemEvents).join('') + event('response.completed', { response });
  },
  json: completedResponse,
  stalledStart(r, partialText) {
    const item = messageItem(r, 0, partialText);
    return created(r) + added(item, 0) + textDeltas(item, 0, partialText);
  },
  errorBody,
  // A ChatGPT plan's refusal: a 429 whose type names the usage limit (not retried), with when it resets.
  usageLimitReply: (resetAt, now) => ({
    status: 429,
    headers: {},
    body: {
      error: {
        type: 'usage_limit_reached',
        message: 'simulator: usage limit reached (profile provider.usageLimit)',
        plan_type: 'plus',
        resets_at: resetAt,
        resets_in_seconds: Math.max(0, resetAt - Math.floor(now / 1000)),
      },
    },
  }),
  // OpenAI has no 529: an overloaded engine answers 503, which Codex retries as any 5xx.
  overloadedStatus: 503,
};
