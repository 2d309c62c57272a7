import type { ConversationView, Wire } from '../conversation.js';
import type { ReplyBlock } from '../policy.js';

/** A request to a model API: its path (after any trial prefix) and its parsed JSON body. */
export interface ApiRequest {
  path: string;
  body: unknown;
}

/** One reply of the simulated model, ready to be written in a dialect. */
export interface ModelReply {
  /** Unique per reply, so that ids in streams never collide. */
  id: string;
  model: string;
  blocks: ReplyBlock[];
  /** Every input token of the request, cached or not. */
  inputTokens: number;
  /** Of `inputTokens`, those the simulator's prompt cache served (`sim/prompt-cache.ts`). */
  cachedTokens: number;
  /** Of `inputTokens`, those this request wrote to the prompt cache. */
  cacheWriteTokens: number;
  /** Where the CLI's listing put each skill's SKILL.md: Codex's and Gemini's calls name the file. */
  skillFiles: ReadonlyMap<string, string>;
  /** The tools the request offered: where a CLI offers an action in more than one way, the reply uses the one offered. */
  tools: readonly string[];
}

/** One model API: which requests are its model calls, how to read them, and how to write replies and failures. */
export interface Dialect {
  wire: Wire;
  /** Whether a POST to this path is a model call of this API. */
  handles(path: string): boolean;
  /** Headers the CLI keeps for one conversation: the trial's key when the harness sent none. */
  sessionHeaders: readonly string[];
  view(body: unknown): ConversationView;
  /** The request in the order a provider caches it: tools, system prompt, then the conversation's items. */
  cacheSegments(body: unknown): unknown[];
  /** The model the request names. */
  model(req: ApiRequest): string;
  /** Whether the reply is a stream of events, else one JSON object. */
  streams(req: ApiRequest): boolean;
  stream(reply: ModelReply): string;
  json(reply: ModelReply): unknown;
  /** What a stream that stalls mid-reply has sent: its start and a first piece of text. */
  stalledStart(reply: ModelReply, partialText: string): string;
  errorBody(status: number, message: string): unknown;
  /** The status this API answers when the provider is overloaded (the simulator's `provider.overloaded`). */
  overloadedStatus: number;
  /**
   * This API's refusal at a subscription's usage limit (the simulator's `provider.usageLimit`), resetting at
   * `resetAt` (epoch seconds): what its CLI reads as a usage limit, not as a rate limit to retry.
   */
  usageLimitReply(resetAt: number, now: number): { status: number; headers: Record<string, string>; body: unknown };
  /** The reply to a call of this API that is no model call (an account's setup), or undefined: not one of its calls. */
  setupReply?(path: string, body: unknown): unknown;
}
