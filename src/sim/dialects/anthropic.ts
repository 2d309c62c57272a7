import type { ReplyBlock } from '../policy.js';
import { ACT_TOOLS, anthropicView, READ_TOOL, SEARCH_TOOL, SKILL_TOOL, TOOL_SEARCH } from './anthropic-view.js';
import type { ActKind } from '../conversation.js';
import { CANARY_CALL } from './acting-calls.js';
import type { Dialect, ModelReply } from './dialect.js';
import { outputTokens, pieces, sseEvent } from './reply-writing.js';
import { asksForStream, modelIn, objectsIn } from './request-reading.js';
import { isPlainObject } from '../../util/json.js';
import { claudeMcpName } from '../../agents/claude-code/mcp-names.js';

/** Claude Code's Anthropic Messages API: SSE events for streaming, one JSON message otherwise. */

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: Record<string, unknown> };

/** Claude Code's input for each acting call of `CANARY_CALL`, in its own tools' parameters. */
const ACT_INPUT: Record<ActKind, Record<string, unknown>> = {
  shell: { command: CANARY_CALL.shell.target, description: 'Do the task directly' },
  write: { file_path: CANARY_CALL.write.target, content: CANARY_CALL.write.content },
  fetch: { url: CANARY_CALL.fetch.target, prompt: 'What does this page say?' },
  agent: { description: 'Do the task directly', prompt: CANARY_CALL.agent.target, subagent_type: 'general-purpose' },
};

/** The acting tool as the request named it (the policy acts only where the view found one offered). */
const actTool = (act: ActKind, tools: readonly string[]) => ACT_TOOLS[act].find((t) => tools.includes(t)) ?? ACT_TOOLS[act][0]!;

/** Claude Code has a Skill tool; a read or search uses its own file tools, an acting call its own tool. */
function contentBlock(block: ReplyBlock, tools: readonly string[]): ContentBlock {
  switch (block.type) {
    case 'text':
      return block;
    case 'skill':
      return { type: 'tool_use', name: SKILL_TOOL, input: block.args ? { skill: block.name, args: block.args } : { skill: block.name } };
    case 'read':
      return { type: 'tool_use', name: READ_TOOL, input: { file_path: `.claude/skills/${block.name}/SKILL.md` } };
    case 'read_file':
      return { type: 'tool_use', name: READ_TOOL, input: { file_path: block.path } };
    case 'search':
      return { type: 'tool_use', name: SEARCH_TOOL, input: { pattern: block.pattern } };
    case 'act':
      return block.load
        ? { type: 'tool_use', name: TOOL_SEARCH, input: { query: `select:${ACT_TOOLS[block.act][0]}` } }
        : { type: 'tool_use', name: actTool(block.act, tools), input: ACT_INPUT[block.act] };
    case 'mcp':
      return block.load
        ? { type: 'tool_use', name: TOOL_SEARCH, input: { query: `select:${claudeMcpName(block)}` } }
        : { type: 'tool_use', name: block.wireName ?? claudeMcpName(block), input: block.input };
  }
}

const messageId = (r: ModelReply) => `msg_${r.id}`;
const toolUseId = (r: ModelReply, index: number) => `toolu_${r.id}_${index}`;

/** Anthropic counts input three ways: `input_tokens` is only what neither came from nor went to the cache. */
const usage = (r: ModelReply, output: number) => ({
  input_tokens: r.inputTokens - r.cachedTokens - r.cacheWriteTokens,
  output_tokens: output,
  cache_creation_input_tokens: r.cacheWriteTokens,
  cache_read_input_tokens: r.cachedTokens,
});

const written = (blocks: ContentBlock[]) =>
  outputTokens(blocks.map((b) => (b.type === 'text' ? b.text : JSON.stringify(b.input))).join(''));

const stopReason = (blocks: ContentBlock[]) => (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');

function messageStart(r: ModelReply): string {
  return sseEvent(
    {
      type: 'message_start',
      message: {
        id: messageId(r),
        type: 'message',
        role: 'assistant',
        model: r.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(r, 1),
      },
    },
    'message_start',
  );
}

/** The start of a text block and its deltas, without the stop: what a stream stalled mid-block has sent. */
function openTextBlock(text: string, index: number): string {
  return (
    sseEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start') +
    pieces(text)
      .map((t) => sseEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }, 'content_block_delta'))
      .join('')
  );
}

function blockEvents(r: ModelReply, block: ContentBlock, index: number): string {
  const stop = sseEvent({ type: 'content_block_stop', index }, 'content_block_stop');
  if (block.type === 'text') return openTextBlock(block.text, index) + stop;
  return (
    sseEvent(
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolUseId(r, index), name: block.name, input: {} } },
      'content_block_start',
    ) +
    pieces(JSON.stringify(block.input))
      .map((partial_json) =>
        sseEvent({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }, 'content_block_delta'),
      )
      .join('') +
    stop
  );
}

function messageEnd(blocks: ContentBlock[]): string {
  return (
    sseEvent(
      { type: 'message_delta', delta: { stop_reason: stopReason(blocks), stop_sequence: null }, usage: { output_tokens: written(blocks) } },
      'message_delta',
    ) + sseEvent({ type: 'message_stop' }, 'message_stop')
  );
}

function errorBody(status: number, message: string): unknown {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status === 401
          ? 'authentication_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

export const anthropic: Dialect = {
  wire: 'anthropic',
  handles: (path) => path.endsWith('/v1/messages'),
  sessionHeaders: ['x-claude-code-session-id'],
  view: anthropicView,
  // Claude Code marks cache breakpoints on system blocks: each block is a prefix of its own (the last one names the
  // trial's home and workspace, so only the blocks before it are shared between trials).
  cacheSegments: (body) =>
    isPlainObject(body)
      ? [body.tools ?? [], ...(Array.isArray(body.system) ? body.system : [body.system ?? '']), ...objectsIn(body.messages)]
      : [],
  model: ({ body }) => modelIn(body),
  streams: ({ body }) => asksForStream(body),
  stream(r) {
    const blocks = r.blocks.map((b) => contentBlock(b, r.tools));
    return messageStart(r) + blocks.map((b, i) => blockEvents(r, b, i)).join('') + messageEnd(blocks);
  },
  json(r) {
    const blocks = r.blocks.map((b) => contentBlock(b, r.tools));
    return {
      id: messageId(r),
      type: 'message',
      role: 'assistant',
      model: r.model,
      content: blocks.map((b, i) =>
        b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: toolUseId(r, i), name: b.name, input: b.input },
      ),
      stop_reason: stopReason(blocks),
      stop_sequence: null,
      usage: usage(r, written(blocks)),
    };
  },
  stalledStart: (r, partialText) => messageStart(r) + openTextBlock(partialText, 0),
  errorBody,
  // A subscription's refusal: a 429 whose unified rate-limit headers say `rejected` and when the window resets.
  usageLimitReply: (resetAt) => ({
    status: 429,
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-reset': String(resetAt),
    },
    body: errorBody(429, 'simulator: usage limit reached (profile provider.usageLimit)'),
  }),
  // Anthropic says `overloaded_error` with its own 529.
  overloadedStatus: 529,
};
