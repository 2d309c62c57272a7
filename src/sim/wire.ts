import type { ReplyBlock } from './policy.js';

/** Anthropic Messages wire shapes for a reply: SSE events for streaming, one JSON object otherwise. */

export interface WireMessage {
  id: string;
  model: string;
  blocks: ReplyBlock[];
  inputTokens: number;
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function toolUseId(messageId: string, index: number): string {
  return `toolu_${messageId.replace(/^msg_/, '')}_${index}`;
}

const outputTokens = (blocks: ReplyBlock[]) =>
  Math.max(1, Math.ceil(blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : JSON.stringify(b.input).length), 0) / 4));

const stopReason = (blocks: ReplyBlock[]) => (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');

export function messageStart(m: WireMessage): string {
  return sse('message_start', {
    type: 'message_start',
    message: { id: m.id, type: 'message', role: 'assistant', model: m.model, content: [], stop_reason: null, stop_sequence: null, usage: usage(m.inputTokens, 1) },
  });
}

/** Splits a string into a few chunks, as a real stream would. */
function chunks(s: string, size = 48): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length ? out : [''];
}

/** The start of a text block and its deltas, without the stop: what a stream stalled mid-block has sent. */
export function openTextBlock(text: string, index: number): string {
  return (
    sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }) +
    chunks(text)
      .map((t) => sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }))
      .join('')
  );
}

export function blockEvents(block: ReplyBlock, index: number, messageId: string): string {
  if (block.type === 'text') return openTextBlock(block.text, index) + sse('content_block_stop', { type: 'content_block_stop', index });
  return (
    sse('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: toolUseId(messageId, index), name: block.name, input: {} },
    }) +
    chunks(JSON.stringify(block.input))
      .map((partial_json) => sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }))
      .join('') +
    sse('content_block_stop', { type: 'content_block_stop', index })
  );
}

export function messageEnd(m: WireMessage): string {
  return (
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason(m.blocks), stop_sequence: null },
      usage: { output_tokens: outputTokens(m.blocks) },
    }) + sse('message_stop', { type: 'message_stop' })
  );
}

export function streamBody(m: WireMessage): string {
  return messageStart(m) + m.blocks.map((b, i) => blockEvents(b, i, m.id)).join('') + messageEnd(m);
}

export function jsonBody(m: WireMessage): unknown {
  return {
    id: m.id,
    type: 'message',
    role: 'assistant',
    model: m.model,
    content: m.blocks.map((b, i) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: toolUseId(m.id, i), name: b.name, input: b.input })),
    stop_reason: stopReason(m.blocks),
    stop_sequence: null,
    usage: usage(m.inputTokens, outputTokens(m.blocks)),
  };
}

export function errorBody(status: number, message: string): unknown {
  const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status === 401 ? 'authentication_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}
