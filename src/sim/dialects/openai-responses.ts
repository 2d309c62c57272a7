import type { ReplyBlock } from '../policy.js';
import { invokeCommand, readCommand, searchCommand, SHELL_TOOL } from './codex-commands.js';
import type { Dialect, ModelReply } from './dialect.js';
import { openaiResponsesView } from './openai-responses-view.js';
import { outputTokens, pieces, sseEvent } from './reply-writing.js';
import { asksForStream, modelIn } from './request-reading.js';
import { skillFileOf } from './skill-files.js';

/** Codex's OpenAI Responses API: output items streamed as SSE, ending in `response.completed` with the usage. */

interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'completed';
  content: { type: 'output_text'; text: string; annotations: [] }[];
}

interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'completed';
}

type OutputItem = MessageItem | FunctionCallItem;
type ToolBlock = Exclude<ReplyBlock, { type: 'text' }>;

/** Every skill action is a shell command here: Codex has no other way to a file. */
function command(block: ToolBlock, skillFiles: ReadonlyMap<string, string>): string {
  switch (block.type) {
    case 'skill':
      return invokeCommand(skillFileOf(block.name, skillFiles));
    case 'read':
      return readCommand(skillFileOf(block.name, skillFiles));
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

function outputItem(r: ModelReply, block: ReplyBlock, index: number): OutputItem {
  if (block.type === 'text') return messageItem(r, index, block.text);
  return {
    type: 'function_call',
    id: `fc_${r.id}_${index}`,
    call_id: `call_${r.id}_${index}`,
    name: SHELL_TOOL,
    arguments: JSON.stringify({ cmd: command(block, r.skillFiles) }),
    status: 'completed',
  };
}

const responseId = (r: ModelReply) => `resp_${r.id}`;

function usage(r: ModelReply, output: OutputItem[]) {
  const written = outputTokens(output.map((item) => (item.type === 'message' ? item.content[0]!.text : item.arguments)).join(''));
  return {
    input_tokens: r.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: written,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: r.inputTokens + written,
  };
}

function completedResponse(r: ModelReply) {
  const output = r.blocks.map((b, i) => outputItem(r, b, i));
  return { id: responseId(r), object: 'response', status: 'completed', model: r.model, output, usage: usage(r, output) };
}

/** Each event names its type twice: in the SSE `event:` line and in the data. */
const event = (type: string, fields: Record<string, unknown>) => sseEvent({ type, ...fields }, type);

const created = (r: ModelReply) => event('response.created', { response: { id: responseId(r), object: 'response', status: 'in_progress', model: r.model, output: [] } });

/** An item's start, as streamed before its content is known. */
function added(item: OutputItem, output_index: number): string {
  const opening = item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' };
  return event('response.output_item.added', { output_index, item: opening });
}

function textDeltas(item: MessageItem, output_index: number, text: string): string {
  return pieces(text)
    .map((delta) => event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }))
    .join('');
}

function itemEvents(item: OutputItem, output_index: number): string {
  const deltas =
    item.type === 'message'
      ? textDeltas(item, output_index, item.content[0]!.text)
      : event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments }) +
        event('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
  return added(item, output_index) + deltas + event('response.output_item.done', { output_index, item });
}

function errorBody(status: number, message: string): unknown {
  // Codex treats a 429 as retryable unless its type names a usage plan limit, so a rate limit says only that.
  const [type, code] = status === 429 ? ['requests', 'rate_limit_exceeded'] : status === 401 ? ['invalid_request_error', 'invalid_api_key'] : status >= 500 ? ['server_error', null] : ['invalid_request_error', null];
  return { error: { message, type, param: null, code } };
}

export const openaiResponses: Dialect = {
  wire: 'openai-responses',
  handles: (path) => path.endsWith('/responses'),
  sessionHeaders: ['session-id', 'thread-id'],
  view: openaiResponsesView,
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
};
