import type { ConversationView, Wire } from '../conversation.js';
import { anthropic } from './anthropic.js';
import { codeAssist } from './code-assist.js';
import type { Dialect } from './dialect.js';
import { gemini } from './gemini.js';
import { openaiResponses } from './openai-responses.js';

/** The model APIs the simulator speaks, by the wire name a request is recorded under. */
export const DIALECTS: Readonly<Record<Wire, Dialect>> = {
  anthropic,
  'openai-responses': openaiResponses,
  gemini,
  'code-assist': codeAssist,
};

/** The API whose model call a POST to this path is, if any. */
export const dialectFor = (path: string): Dialect | undefined => Object.values(DIALECTS).find((d) => d.handles(path));

/** A request body as the simulated model reads it, for the wire it came on. */
export const viewRequest = (wire: Wire, body: unknown): ConversationView => DIALECTS[wire].view(body);

/** The reply of whichever API has a setup call at this path (a POST that is no model call), if any. */
export const setupReplyFor = (path: string, body: unknown): unknown =>
  Object.values(DIALECTS)
    .map((d) => d.setupReply?.(path, body))
    .find((r) => r !== undefined);
