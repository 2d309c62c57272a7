import { shownBlock } from '../../util/shown-text.js';
import type { TrialMeta } from '../../run/schema.js';
import type {
  ErrorEvent,
  ErrorKind,
  InitEvent,
  OtherEvent,
  ResultStatus,
  SkillLoadEvent,
  TextEvent,
  TokenUsage,
  ToolCallEvent,
  Transcript,
  TranscriptEvent,
} from '../../transcript/types.js';
import { firstValueOf, num, pushOther, readJsonLines, str, type Json, type TranscriptLines } from '../json-lines.js';
import { isPlainObject } from '../../util/json.js';
import { GEMINI_ACTING_TOOLS } from './settings.js';
import { listedMcpTools } from '../mcp-listing.js';
import { turnIdPrefix, userTurnMark } from '../turn-mark.js';
import { geminiMcpName, geminiMcpTool } from './mcp-names.js';

/**
 * Gemini CLI `--output-format stream-json` (0.61) → canonical transcript. The stream says nothing of the skills
 * listed to the model (the trial's evidence does), nor of its tools; assistant text arrives as deltas. Tolerant:
 * unknown event types become `other`, malformed or truncated lines become warnings.
 */

export const SKILL_TOOL = 'activate_skill';
const READ_TOOL = 'read_file';

/** The tool error a call gets when the tool is not offered at all: for the skill tool, a wrong tool lock. */
export const NOT_REGISTERED = 'tool_not_registered';
/** The tool error for arguments the tool refuses: for the skill tool, a name outside its list. */
const INVALID_PARAMS = 'invalid_tool_params';

/** What the skill tool reports on success: the folder of the skill it loaded. */
const LOADED_FROM = /Resources loaded from `([^`]+)`/;

/** The only error type of a `result` that is the CLI's own turn limit (`model.maxSessionTurns`, exit 53). */
const TURN_LIMIT_ERROR = 'FatalTurnLimitedError';
/** The CLI's words when its loop recovery finds no turn left: it then ends with a `success` result. */
const TURN_LIMIT_MESSAGE = 'Maximum session turns exceeded';

/** An API failure as the CLI reports it in a `result`: `[API Error: <message or JSON body>]`. */
const API_ERROR = '[API Error:';

/** The gRPC status names the CLI prints for an API error (`(Status: RESOURCE_EXHAUSTED)`), as HTTP statuses. */
const GRPC_STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** What the CLI appends to an API error's message when, and only when, its status was 429. */
const RATE_LIMIT_HINT = 'Please wait and try again later. To increase your limits, request a quota increase';

/** The HTTP status an API error message names: the JSON body's `code`, its gRPC status, or the CLI's 429 hint. */
function statusInMessage(message: string): number | undefined {
  const code = /"code":\s*(\d{3})\b/.exec(message);
  if (code) return Number(code[1]);
  const grpc = /\bStatus: ([A-Z_]+)\b/.exec(message)?.[1];
  if (grpc) return GRPC_STATUS[grpc];
  return message.includes(RATE_LIMIT_HINT) ? 429 : undefined;
}

/**
 * On an API error the CLI exits with the HTTP status, which the OS cuts to its low byte: 429 → 173, 503 → 247,
 * 400 → 144. Statuses 400–511 land on 144–255, above every exit code of the CLI's own (41–55, 130).
 */
function statusFromExit(exitCode: number | null | undefined): number | undefined {
  return exitCode !== null && exitCode !== undefined && exitCode >= 144 && exitCode <= 255 ? exitCode + 256 : undefined;
}

function apiErrorKind(message: string, status: number | undefined): ErrorKind {
  if (status === 429) return 'rate_limit';
  if (status === 503) return 'overloaded';
  if (status !== undefined && status >= 500) return 'server_error';
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status === 404) return 'model_not_found';
  // "terminated" is undici's word for a socket the server cut mid-stream; the rest, a connection never made.
  if (/\bterminated\b|other side closed|fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/i.test(message)) return 'connection';
  return 'unknown';
}

/**
 * A stream the API ended badly, reported as an `error` event of severity error: with no finish reason, or with
 * nothing in it, the service failed; a blocked or malformed answer is the model's own and stays `unknown`.
 */
function streamErrorKind(message: string): ErrorKind {
  return /without a finish reason|returned an empty response/i.test(message) ? 'server_error' : 'unknown';
}

function skillLoadStatus(errorType: string | undefined): SkillLoadEvent['status'] {
  if (errorType === undefined) return 'loaded';
  // The skill tool validates the name against its list of skills, so a name it does not hold is refused there.
  if (errorType === INVALID_PARAMS) return 'unknown';
  return 'denied';
}

function toolCall(ev: Json): ToolCallEvent {
  const name = str(ev.tool_name) ?? '';
  const input = isPlainObject(ev.parameters) ? ev.parameters : {};
  const mcp = geminiMcpTool(name);
  const call: ToolCallEvent = { kind: 'tool_call', source: 'assistant', id: str(ev.tool_id) ?? '', name, input, intent: 'other' };
  if (name === SKILL_TOOL) {
    call.intent = 'skill';
    call.skill = str(input.name) ?? '';
  } else if (name === READ_TOOL) {
    call.intent = 'read';
    call.path = str(input.file_path) ?? str(input.absolute_path) ?? '';
  } else if (GEMINI_ACTING_TOOLS.includes(name)) {
    call.intent = 'act';
  } else if (mcp) {
    call.intent = 'mcp';
    call.mcp = mcp;
  }
  return call;
}

/** Whether a skill load failed because the skill tool was not offered: the trial's tool lock is wrong. */
export function notRegistered(load: SkillLoadEvent): boolean {
  return load.detail?.startsWith(`${NOT_REGISTERED}:`) === true;
}

/**
 * The result's `stats` (summed over the session's model calls, router side-calls included): `input_tokens` is all
 * input and `cached` its cached part (`input` is the rest). The CLI says nothing of cache writes.
 */
function usageOf(stats: unknown): TokenUsage | undefined {
  if (!isPlainObject(stats)) return undefined;
  const [input, cached, output] = [num(stats.input_tokens), num(stats.cached), num(stats.output_tokens)];
  if (input === undefined && output === undefined) return undefined;
  return { inputTokens: input ?? 0, cachedInputTokens: cached ?? 0, outputTokens: output ?? 0 };
}

export function parseGeminiStream(raw: TranscriptLines, trial?: Pick<TrialMeta, 'evidence' | 'exitCode'>): Transcript {
  const events: TranscriptEvent[] = [];
  const shown = trial?.evidence?.shown;
  const calls = new Map<string, ToolCallEvent>();
  /** The assistant text of the deltas arriving now, one event until anything else arrives. */
  let text: TextEvent | undefined;
  /** A later user turn is a process of its own, which may number its tool calls afresh: its ids carry its number. */
  let idPrefix = '';
  let turnLimitSaid = false;

  const push = (e: TranscriptEvent) => {
    text = undefined;
    events.push(e);
  };
  const other = (e: Omit<OtherEvent, 'kind'>) => {
    text = undefined;
    pushOther(events, e);
  };

  const toolResult = (ev: Json) => {
    const id = idPrefix + (str(ev.tool_id) ?? '');
    const error = ev.status === 'error' ? (isPlainObject(ev.error) ? ev.error : {}) : undefined;
    const errorType = error && (str(error.type) ?? 'unknown');
    const output = str(ev.output) ?? '';
    push({
      kind: 'tool_result',
      source: 'tool',
      id,
      isError: error !== undefined,
      ...shownBlock(output || (error && str(error.message)) || ''),
    });
    const call = calls.get(id);
    // The stream lists no tools: a call of one the CLI had not registered was never offered, so it is no choice to act.
    if (call?.intent === 'act' && errorType === NOT_REGISTERED) call.intent = 'other';
    if (call?.intent !== 'skill') return;
    const load: SkillLoadEvent = {
      kind: 'skill_load',
      source: 'harness',
      callId: id,
      name: call.skill ?? '',
      status: skillLoadStatus(errorType),
    };
    const path = LOADED_FROM.exec(output)?.[1];
    if (path && !error) load.path = path;
    if (error) load.detail = `${errorType}: ${str(error.message) ?? output}`;
    push(load);
  };

  const result = (ev: Json) => {
    const durationMs = isPlainObject(ev.stats) ? num(ev.stats.duration_ms) : undefined;
    const usage = usageOf(ev.stats);
    const end = (status: ResultStatus, message?: string, httpStatus?: number) =>
      push({
        kind: 'result',
        source: 'system',
        status,
        ...(durationMs !== undefined ? { durationMs } : {}),
        ...(usage ? { usage } : {}),
        ...(message !== undefined ? { message } : {}),
        ...(httpStatus !== undefined ? { httpStatus } : {}),
      });
    if (ev.status === 'success') {
      if (turnLimitSaid) end('max_turns', TURN_LIMIT_MESSAGE);
      else end('success');
      return;
    }
    const error = isPlainObject(ev.error) ? ev.error : {};
    const message = str(error.message);
    if (message === undefined) {
      // After a stream the API ended badly: its `error` event just before says how.
      const said = [...events].reverse().find((e): e is ErrorEvent => e.kind === 'error');
      end('api_error', said?.message);
    } else if (str(error.type) === TURN_LIMIT_ERROR) {
      end('max_turns', message);
    } else if (message.startsWith(API_ERROR)) {
      const httpStatus = statusInMessage(message) ?? statusFromExit(trial?.exitCode);
      push({ kind: 'error', source: 'system', errorKind: apiErrorKind(message, httpStatus), httpStatus, message, retrying: false });
      end('api_error', message, httpStatus);
    } else {
      end('other_error', message);
    }
  };

  const warnings = readJsonLines(raw, (ev) => {
    const type = str(ev.type) ?? '';
    const mark = userTurnMark(ev);
    if (mark) {
      push(mark);
      idPrefix = turnIdPrefix(mark);
    } else if (type === 'init' && events.some((e) => e.kind === 'init')) {
      // A later user turn's process resumes the same session: what the model was shown is the first one's.
      other({ source: 'system', type });
    } else if (type === 'init') {
      const init: InitEvent = {
        kind: 'init',
        source: 'system',
        model: str(ev.model) ?? shown?.model ?? '',
        cliVersion: shown?.cliVersion ?? '',
        cwd: shown?.cwd ?? '',
        // The stream names no tool: the servers' records name those the CLI asked each for, the evidence that it started
        // them (what it then offered the model, the stream cannot show).
        tools: listedMcpTools(trial?.evidence?.mcp, geminiMcpName),
        skills: shown?.skills ?? [],
      };
      if (shown) Object.assign(init, { skillsFrom: shown.source, contextFiles: shown.contextFiles });
      push(init);
    } else if (type === 'message' && ev.role === 'assistant') {
      const delta = str(ev.content) ?? '';
      if (text) text.text += delta;
      else {
        text = { kind: 'text', source: 'assistant', text: delta };
        events.push(text);
      }
    } else if (type === 'message') {
      // The prompt, echoed.
      other({ source: 'harness', type: `message/${str(ev.role) ?? 'unknown'}` });
    } else if (type === 'tool_use') {
      const call = toolCall(ev);
      call.id = idPrefix + call.id;
      calls.set(call.id, call);
      push(call);
    } else if (type === 'tool_result') {
      toolResult(ev);
    } else if (type === 'error') {
      const message = str(ev.message) ?? '';
      turnLimitSaid ||= message === TURN_LIMIT_MESSAGE;
      // A warning (loop detected, a hook's block) is the CLI stopping or steering the model, not a service fault
      // and not a retry: kept for the reader as an error the graders never count as the API failing.
      const kind = ev.severity === 'error' ? streamErrorKind(message) : 'unknown';
      push({ kind: 'error', source: 'system', errorKind: kind, message, retrying: false });
    } else if (type === 'result') {
      result(ev);
    } else {
      other({ source: 'system', type: type || 'unknown' });
    }
  });

  // Deltas nothing followed: a reply the stream never finished (a stall the harness killed). Streams that show
  // only finished messages never show such text, and a trial must not count as the model's act what is only the
  // first words of a reply that never came.
  if (text) events[events.lastIndexOf(text)] = { kind: 'other', source: 'assistant', type: 'unfinished_text' };
  return { agent: 'gemini', events, warnings };
}

/** The session a process's stream says it ran (its `init`): what a later user turn resumes. */
export const sessionStartedIn = (stdout: string): string | undefined => firstValueOf(stdout, 'init', 'session_id');
