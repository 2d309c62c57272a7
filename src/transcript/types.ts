import type { McpToolName } from '../mcp/names.js';

/**
 * The canonical, adapter-neutral transcript. Every agent adapter turns its raw stream into this shape;
 * graders only ever see this. `source` says who authored an event: only `assistant` text and `assistant`
 * tool_call inputs are graded, because tool results and injected skill bodies echo SKILL.md (the answer key).
 */

export type EventSource = 'assistant' | 'tool' | 'harness' | 'system';

/**
 * What the agent did with a skill call: `loaded`; `denied` (a permission check refused it); `unknown` (no skill by
 * that name); `invalid` (the skill exists but the model may not invoke it).
 */
export type SkillLoadStatus = 'loaded' | 'denied' | 'unknown' | 'invalid';

export type ErrorKind =
  'rate_limit' | 'server_error' | 'overloaded' | 'authentication_failed' | 'model_not_found' | 'connection' | 'timeout' | 'unknown';

/** An init's MCP server state for one whose tools the CLI offered the model (Claude Code's own word; Codex's adapter says it too). */
export const MCP_CONNECTED = 'connected';

export interface InitEvent {
  kind: 'init';
  source: 'system';
  model: string;
  cliVersion: string;
  cwd: string;
  tools: string[];
  /** Skills the CLI reports as loaded (broad list: skills plus slash commands). */
  skills: string[];
  /** Where `skills` came from when the CLI's stream does not list them (its session record, a listing probe). */
  skillsFrom?: string;
  /** Instruction files the CLI put into the model's context (AGENTS.md, GEMINI.md), when it says. */
  contextFiles?: string[];
  /** The sandbox the CLI runs tools in, when it says. */
  sandbox?: string;
  /** The MCP servers the CLI says it started for the model, with their state (`MCP_CONNECTED`, `failed`, …), when it says. */
  mcpServers?: { name: string; status: string }[];
  /** The plugins the CLI says it loaded (their ids), when it loaded any. */
  plugins?: string[];
  /**
   * A field trial's record beside the stream, for a CLI whose stream never shows a refused call (Codex's hook log and
   * session record): absent without one; `problem` when it, with the stream, shows a call that ran or went unrefused.
   */
  fieldRecord?: { problem?: string };
}

export interface TextEvent {
  kind: 'text';
  source: 'assistant' | 'harness';
  /** Harness text (an injected skill body) is kept up to `SHOWN_CHARS` (util/shown-text.ts); the assistant's, whole. */
  text: string;
  /** The block's full length, when `text` keeps only its start. */
  chars?: number;
  /** Id of the model message this block belongs to (several blocks can share one). */
  messageId?: string;
}

export interface ToolCallEvent {
  kind: 'tool_call';
  source: 'assistant';
  id: string;
  name: string;
  input: Record<string, unknown>;
  messageId?: string;
  /**
   * What the adapter recognised the call as, so graders never need CLI tool names:
   * `skill` (the agent's skill tool: `skill` is the requested name, `args` its arguments),
   * `read` (a file read: `path` is the file asked for), `act` (a call that would act: run a command, write or edit
   * a file, fetch, start a sub-agent; only a tool the CLI offered counts, a call to one it never offered is no choice),
   * `mcp` (a tool of an MCP server the trial was offered: `mcp` names it, `input` holds its arguments).
   */
  intent: 'skill' | 'read' | 'act' | 'mcp' | 'other';
  skill?: string;
  args?: string;
  path?: string;
  mcp?: McpToolName;
}

export interface ToolResultEvent {
  kind: 'tool_result';
  source: 'tool';
  id: string;
  isError: boolean;
  /** Up to `SHOWN_CHARS` of the output (util/shown-text.ts): shown, never graded. */
  text: string;
  /** The output's full length, when `text` keeps only its start. */
  chars?: number;
}

export interface SkillLoadEvent {
  kind: 'skill_load';
  source: 'harness';
  /** The tool call that asked for it. */
  callId: string;
  name: string;
  /** Absolute skill directory when the CLI injected the body ("Base directory for this skill: …"). */
  path?: string;
  status: SkillLoadStatus;
  detail?: string;
}

export interface ErrorEvent {
  kind: 'error';
  source: 'system' | 'assistant';
  errorKind: ErrorKind;
  httpStatus?: number;
  message: string;
  /** A retry the CLI will make itself (not final). */
  retrying: boolean;
}

export type ResultStatus = 'success' | 'api_error' | 'max_turns' | 'max_budget' | 'execution_error' | 'other_error';

/**
 * The tokens the CLI says the model used, summed over its model calls. `inputTokens` is ALL input, cached or not
 * (Anthropic reports the three parts apart, OpenAI and Gemini the total and its cached part: adapters add up to this).
 */
export interface TokenUsage {
  inputTokens: number;
  /** Of `inputTokens`, those the provider served from its prompt cache. */
  cachedInputTokens: number;
  /** Of `inputTokens`, those written to the prompt cache, when the CLI says (Anthropic bills them above the input price). */
  cacheWriteTokens?: number;
  outputTokens: number;
}

export interface ResultEvent {
  kind: 'result';
  source: 'system';
  status: ResultStatus;
  turns?: number;
  costUsd?: number;
  durationMs?: number;
  /** The CLI's own "final answer" (for Claude Code: only the last text block). Never graded as a plan. */
  finalText?: string;
  /** What the CLI reports the model calls used; absent when it reports nothing. */
  usage?: TokenUsage;
  httpStatus?: number;
  message?: string;
}

export interface OtherEvent {
  kind: 'other';
  source: EventSource;
  type: string;
  /** How many such events came in a row (absent: one), so a CLI printing noise cannot fill memory. */
  repeats?: number;
}

/**
 * Where a user turn of the trial's conversation starts: the case's prompt is turn 1, each follow-up sent the next. The
 * events after it, up to the next, belong to that turn; a transcript without any is all turn 1.
 */
export interface UserTurnEvent {
  kind: 'user_turn';
  source: 'harness';
  turn: number;
  text: string;
}

export type TranscriptEvent =
  InitEvent | UserTurnEvent | TextEvent | ToolCallEvent | ToolResultEvent | SkillLoadEvent | ErrorEvent | ResultEvent | OtherEvent;

export interface ParseWarning {
  line: number;
  message: string;
}

export interface Transcript {
  agent: string;
  events: TranscriptEvent[];
  warnings: ParseWarning[];
}
