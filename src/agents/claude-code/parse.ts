import { shownBlock } from '../../util/shown-text.js';
import type {
  ErrorEvent,
  ErrorKind,
  ResultStatus,
  SkillLoadEvent,
  TokenUsage,
  ToolCallEvent,
  Transcript,
  TranscriptEvent,
  UserTurnEvent,
} from '../../transcript/types.js';
import { num, pushOther, readJsonLines, str, strings, type Json, type TranscriptLines } from '../json-lines.js';
import { isPlainObject } from '../../util/json.js';
import { isOfferedActingCall } from './field.js';
import { claudeMcpTool } from './mcp-names.js';

/**
 * Claude Code stream-JSON (2.1.x, `-p --output-format stream-json --verbose`) → canonical transcript.
 * Tolerant by design: unknown event types become `other`, malformed or truncated lines become warnings.
 * The shapes read here are the pinned CLI's, measured headless.
 */

const SKILL_TOOL = 'Skill';
const READ_TOOL = 'Read';
const BODY_PREFIX = 'Base directory for this skill: ';
/** The CLI's nudge after an empty answer, seen when a stream error fell back to an empty non-streaming reply. */
const EMPTY_NUDGE = '[Your previous response had no visible output.';

/** Text of a tool_result `content`, which is either a string or a list of blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (isPlainObject(b) && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

/** The text of a user message's `content`, a string or a list of text blocks. */
const userText = (content: unknown): string => (typeof content === 'string' ? content : resultText(content));

function errorKindOf(tag: string | undefined, status: number | undefined): ErrorKind {
  switch (tag) {
    case 'rate_limit':
    case 'server_error':
    case 'overloaded':
    case 'authentication_failed':
    case 'model_not_found':
      return tag;
  }
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status !== undefined && status >= 500) return 'server_error';
  return 'unknown';
}

function syntheticErrorKind(tag: string | undefined, text: string): ErrorKind {
  if (/Unable to connect|ConnectionRefused|ECONNREFUSED/i.test(text)) return 'connection';
  if (/Request timed out/i.test(text)) return 'timeout';
  return errorKindOf(tag, undefined);
}

function statusFromText(text: string): number | undefined {
  const m = /API Error: (?:Request rejected \()?(\d{3})\b/.exec(text);
  return m ? Number(m[1]) : undefined;
}

function skillLoadStatus(isError: boolean, text: string): SkillLoadEvent['status'] {
  if (!isError) return 'loaded';
  if (/Unknown skill/i.test(text)) return 'unknown';
  // `disable-model-invocation` in the frontmatter: the skill exists, but only the user may call it.
  if (/cannot be used with Skill tool/i.test(text)) return 'invalid';
  return 'denied';
}

function resultStatus(subtype: string | undefined, isError: boolean): ResultStatus {
  switch (subtype) {
    case 'success':
      return isError ? 'api_error' : 'success';
    case 'error_max_turns':
      return 'max_turns';
    case 'error_max_budget_usd':
      return 'max_budget';
    case 'error_during_execution':
      return 'execution_error';
    default:
      return 'other_error';
  }
}

function toolCall(block: Json, messageId: string | undefined, offered: readonly string[]): ToolCallEvent {
  const name = str(block.name) ?? '';
  const input = isPlainObject(block.input) ? block.input : {};
  const mcp = claudeMcpTool(name);
  const call: ToolCallEvent = {
    kind: 'tool_call',
    source: 'assistant',
    id: str(block.id) ?? '',
    name,
    input,
    messageId,
    intent: 'other',
  };
  if (name === SKILL_TOOL) {
    call.intent = 'skill';
    call.skill = str(input.skill) ?? '';
    const args = str(input.args);
    if (args !== undefined) call.args = args;
  } else if (name === READ_TOOL) {
    call.intent = 'read';
    call.path = str(input.file_path) ?? '';
  } else if (isOfferedActingCall(name, offered)) {
    call.intent = 'act';
  } else if (mcp !== undefined && offered.includes(name)) {
    call.intent = 'mcp';
    call.mcp = mcp;
  }
  return call;
}

/**
 * The result's `usage` (summed over the session's model calls): Anthropic's `input_tokens` counts only what neither
 * came from nor went to the cache, so all input is its sum with both cache counts.
 */
function usageOf(u: unknown): TokenUsage | undefined {
  if (!isPlainObject(u)) return undefined;
  const [input, read, write, output] = [
    num(u.input_tokens),
    num(u.cache_read_input_tokens),
    num(u.cache_creation_input_tokens),
    num(u.output_tokens),
  ];
  if (input === undefined && read === undefined && output === undefined) return undefined;
  return {
    inputTokens: (input ?? 0) + (read ?? 0) + (write ?? 0),
    cachedInputTokens: read ?? 0,
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
    outputTokens: output ?? 0,
  };
}

/** The init event's `mcp_servers` (`[{ name, status }]`), when it lists any. */
function mcpServersOf(v: unknown): { mcpServers?: { name: string; status: string }[] } {
  const servers = (Array.isArray(v) ? v : []).flatMap((s) =>
    isPlainObject(s) && typeof s.name === 'string' ? [{ name: s.name, status: str(s.status) ?? '' }] : [],
  );
  return servers.length ? { mcpServers: servers } : {};
}

/** The init event's `plugins` (`[{ name, source }]`, the source `<name>@builtin` for a built-in one), when it lists any. */
function pluginsOf(v: unknown): { plugins?: string[] } {
  const plugins = (Array.isArray(v) ? v : []).flatMap((p) => (isPlainObject(p) ? (str(p.source) ?? str(p.name) ?? []) : []));
  return plugins.length ? { plugins } : {};
}

export function parseClaudeStream(raw: TranscriptLines): Transcript {
  const events: TranscriptEvent[] = [];
  const skillCalls = new Map<string, ToolCallEvent>();
  let awaitingBody: SkillLoadEvent | undefined;
  /** The tools the init event says the model was offered: only a call of one of them is a choice to act. */
  let offered: readonly string[] = [];
  /** User turns sent on stdin so far (a conversation's), and the one a later init opened, until its echo names it. */
  let userTurns = 0;
  let opened: UserTurnEvent | undefined;

  const warnings = readJsonLines(raw, (ev) => {
    const type = str(ev.type) ?? '';
    const subtype = str(ev.subtype);

    // A conversation starts each later user turn with an init of its own (the session's first one says what it
    // offered): the turn starts there, its words come with the echo, which the CLI may print only once the model answers.
    if (type === 'system' && subtype === 'init' && events.some((e) => e.kind === 'init')) {
      offered = strings(ev.tools);
      pushOther(events, { source: 'system', type: 'system/init' });
      opened = { kind: 'user_turn', source: 'harness', turn: ++userTurns, text: '' };
      events.push(opened);
      return;
    }
    if (type === 'system' && subtype === 'init') {
      offered = strings(ev.tools);
      events.push({
        kind: 'init',
        source: 'system',
        model: str(ev.model) ?? '',
        cliVersion: str(ev.claude_code_version) ?? '',
        cwd: str(ev.cwd) ?? '',
        tools: strings(ev.tools),
        skills: [...new Set([...strings(ev.skills), ...strings(ev.slash_commands)])],
        ...mcpServersOf(ev.mcp_servers),
        ...pluginsOf(ev.plugins),
      });
      return;
    }
    if (type === 'system' && subtype === 'api_retry') {
      const status = num(ev.error_status);
      events.push({
        kind: 'error',
        source: 'system',
        errorKind: errorKindOf(str(ev.error), status),
        httpStatus: status,
        message: `API retry ${num(ev.attempt) ?? '?'}/${num(ev.max_retries) ?? '?'}`,
        retrying: true,
      });
      return;
    }
    if (type === 'assistant' && isPlainObject(ev.message)) {
      // Sub-agent traffic is not the model under test answering the user.
      if (ev.parent_tool_use_id !== null && ev.parent_tool_use_id !== undefined) {
        pushOther(events, { source: 'assistant', type: 'subagent' });
        return;
      }
      const msg = ev.message;
      const messageId = str(msg.id);
      const content = Array.isArray(msg.content) ? msg.content : [];
      const synthetic = msg.model === '<synthetic>' || ev.error !== undefined;
      for (const block of content) {
        if (!isPlainObject(block)) continue;
        if (synthetic) {
          // The CLI wrote this, not the model: an API error report, never a plan.
          const text = str(block.text) ?? '';
          const err: ErrorEvent = {
            kind: 'error',
            source: 'system',
            errorKind: syntheticErrorKind(str(ev.error), text),
            httpStatus: statusFromText(text),
            message: text,
            retrying: false,
          };
          events.push(err);
        } else if (block.type === 'text') {
          events.push({ kind: 'text', source: 'assistant', text: str(block.text) ?? '', messageId });
        } else if (block.type === 'tool_use') {
          const call = toolCall(block, messageId, offered);
          if (call.intent === 'skill') skillCalls.set(call.id, call);
          events.push(call);
        } else {
          pushOther(events, { source: 'assistant', type: str(block.type) ?? 'unknown' });
        }
      }
      return;
    }
    // A user turn sent on stdin, echoed back where the CLI took it (`--replay-user-messages`).
    if (type === 'user' && ev.isReplay === true && isPlainObject(ev.message)) {
      const text = userText(ev.message.content);
      if (opened) opened.text = text;
      else events.push({ kind: 'user_turn', source: 'harness', turn: ++userTurns, text });
      opened = undefined;
      return;
    }
    if (type === 'user' && isPlainObject(ev.message)) {
      const content = ev.message.content;
      const blocks = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
      for (const block of blocks) {
        if (!isPlainObject(block)) continue;
        if (block.type === 'tool_result') {
          const id = str(block.tool_use_id) ?? '';
          const isError = block.is_error === true;
          const text = resultText(block.content);
          events.push({ kind: 'tool_result', source: 'tool', id, isError, ...shownBlock(text) });
          const call = skillCalls.get(id);
          if (call) {
            const load: SkillLoadEvent = {
              kind: 'skill_load',
              source: 'harness',
              callId: id,
              name: call.skill ?? '',
              status: skillLoadStatus(isError, text),
              detail: shownBlock(text.replace(/<\/?tool_use_error>/g, '').trim()).text,
            };
            events.push(load);
            awaitingBody = load.status === 'loaded' ? load : awaitingBody;
          }
        } else if (block.type === 'text') {
          const text = str(block.text) ?? '';
          // The injected skill body has no tool_use_id: link it to the last loaded skill by order.
          if (text.startsWith(BODY_PREFIX) && awaitingBody && awaitingBody.path === undefined) {
            awaitingBody.path = text.slice(BODY_PREFIX.length).split('\n', 1)[0]?.trim();
            awaitingBody = undefined;
          }
          events.push({ kind: 'text', source: 'harness', ...shownBlock(text) });
          if (text.startsWith(EMPTY_NUDGE)) {
            events.push({
              kind: 'error',
              source: 'system',
              errorKind: 'server_error',
              message: 'the API returned an empty answer (the CLI nudged the model)',
              retrying: false,
            });
          }
        }
      }
      return;
    }
    if (type === 'result') {
      const isError = ev.is_error === true;
      const errors = strings(ev.errors);
      const usage = usageOf(ev.usage);
      events.push({
        kind: 'result',
        source: 'system',
        status: resultStatus(subtype, isError),
        turns: num(ev.num_turns),
        costUsd: num(ev.total_cost_usd),
        durationMs: num(ev.duration_ms),
        finalText: str(ev.result),
        ...(usage ? { usage } : {}),
        httpStatus: num(ev.api_error_status),
        message: errors.length ? errors.join('; ') : isError ? str(ev.result) : undefined,
      });
      return;
    }
    pushOther(events, { source: type === 'user' ? 'harness' : 'system', type: subtype ? `${type}/${subtype}` : type || 'unknown' });
  });

  return { agent: 'claude-code', events, warnings };
}
