import type { McpToolName } from '../mcp/names.js';

/**
 * What the simulated model reads from one request, whichever CLI sent it. Each dialect parses its own API's request
 * into this view statelessly: the whole conversation travels in every request, so nothing is remembered between them.
 */

/** The model APIs the simulator speaks: Claude Code's, Codex's and the Gemini CLI's. */
export type Wire = 'anthropic' | 'openai-responses' | 'gemini' | 'code-assist';

/**
 * How a model goes around a skill by acting itself: a shell command, a file write, a web fetch, a sub-agent. Each
 * dialect writes them as its CLI's own tool calls, and only where the request offered that tool.
 */
export const ACT_KINDS = ['shell', 'write', 'fetch', 'agent'] as const;
export type ActKind = (typeof ACT_KINDS)[number];

/**
 * What a tool call did, in terms every CLI shares (`act`: one of the acting calls above; `mcp`: an MCP tool's call;
 * `load`: a lookup that loaded a deferred tool's schema, Claude Code's ToolSearch).
 */
export type ToolAction = 'skill' | 'read' | 'search' | 'act' | 'mcp' | 'load' | 'other';

/** An MCP tool the request offers, as the CLI sent it: its name on the wire, its server and tool, its description. */
export interface OfferedMcpTool {
  wireName: string;
  /** The namespace the request offered it in (Codex's `mcp__<server>`), where the call names it beside `wireName`. */
  namespace?: string;
  server: string;
  tool: string;
  description: string;
}

export interface ToolOutcome {
  action: ToolAction;
  /** The skill the call invoked, or whose SKILL.md it read. */
  skill?: string;
  isError: boolean;
  text: string;
}

/** The skill instructions the model sees after a skill was loaded or its SKILL.md read. */
export interface SkillBody {
  text: string;
  /** The CLI already put the arguments in (Claude Code's Skill tool); otherwise the model fills `$ARGUMENTS` itself. */
  argumentsFilled: boolean;
}

export interface ConversationView {
  wire: Wire;
  /** Skills the CLI listed to the model, from its own listing. */
  offeredSkills: string[];
  /**
   * Each listed skill's description exactly as the CLI sent it (cut short, if the CLI cut it), or '' when it was
   * listed by name only: what a model decides from, and what the simulator's router scores.
   */
  skillDescriptions: ReadonlyMap<string, string>;
  /** Each listed skill's SKILL.md path, where the listing gives one. */
  skillFiles: ReadonlyMap<string, string>;
  /** Whether the CLI gives the model a way to invoke a skill (a skill tool, or Codex's shell). */
  canInvokeSkill: boolean;
  /** Whether the CLI gives the model a way to read a file. */
  canReadFile: boolean;
  /** The acting calls the request offers a tool for, as this dialect writes them; absent when it offers none. */
  canAct?: readonly ActKind[];
  /**
   * Those of them whose tool the request names but defers (Claude Code 2.1.332's ToolSearch): the model loads the
   * tool's schema with a lookup first, and calls it on its next turn.
   */
  deferredActs?: readonly ActKind[];
  /** Tool names the request offers. */
  tools: string[];
  /** The MCP tools among them, read from the request (absent: none). */
  mcpTools?: readonly OfferedMcpTool[];
  /**
   * MCP servers whose tools the request defers (Codex's code mode names only `mcp__<server>`, its tools found by searching): a
   * profile may call a tool of one by name; the router, which has no description of them, never does.
   */
  mcpDeferred?: readonly string[];
  /**
   * MCP tools the request names but defers behind its lookup (Claude Code 2.1.332's ToolSearch): as with a deferred
   * acting tool, the model loads one's schema first and calls it on its next turn, once the request offers it.
   */
  mcpLoadable?: readonly McpToolName[];
  /** The user's own prompt, without the context the CLI injects around it. */
  prompt: string;
  /** Assistant turns already taken since the user's latest turn (0 on the request that carries it). */
  turn: number;
  /**
   * The user turn this request answers: how many turns the user has written in it, those of a history the CLI resumed
   * included (1 without one). A CLI that cannot take a conversation (refused before any trial) always sends 1.
   */
  userTurn: number;
  /** The conversation before the user's latest turn, text only, as the CLI sent it (empty on a first turn). */
  earlier: { role: 'user' | 'assistant'; text: string }[];
  /** Results of the tool calls of the previous assistant turn. */
  lastResults: ToolOutcome[];
  /** The skill instructions those results gave the model, if any. */
  skillBody?: SkillBody;
}
