import { isPlainObject } from '../../util/json.js';
import type { Dialect, ModelReply } from './dialect.js';
import { gemini, geminiChunks, geminiResponse, geminiStalledChunk } from './gemini.js';
import { sseEvent } from './reply-writing.js';
import { tokensOf } from '../prompt-cache.js';

/**
 * Code Assist, the API the Gemini CLI calls under a Google login (`CODE_ASSIST_ENDPOINT`, `/v1internal:<method>`):
 * the Gemini API inside an envelope. A model call's body is `{model, project, user_prompt_id, request}` with the
 * Gemini request in `request`; each reply chunk is `{response: <GenerateContentResponse>}`. Before its first model
 * call the CLI sets the account up (`loadCodeAssist`, else `onboardUser`) and asks for its quota and experiments:
 * `setupReply` answers those.
 */

const MODEL_CALL = /^\/v1internal:(streamGenerateContent|generateContent)$/;
const SETUP_CALL = /^\/v1internal:(\w+)$/;

/** The Cloud project the simulated account is set up in: what the CLI then names in every call. */
export const SIMULATED_PROJECT = 'skillprobe-simulator';

const TIER = { id: 'standard-tier', name: 'Gemini Code Assist (simulated)' };

/** The Gemini request inside a Code Assist envelope. */
const inner = (body: unknown): unknown => (isPlainObject(body) ? body.request : undefined);

/** Replies to the calls that are no model call, by method; any other method gets an empty object. */
const SETUP: Record<string, (body: unknown) => unknown> = {
  // An account already set up in a project: the CLI then skips onboarding.
  loadCodeAssist: () => ({ currentTier: TIER, allowedTiers: [{ ...TIER, isDefault: true }], cloudaicompanionProject: SIMULATED_PROJECT }),
  onboardUser: () => ({ done: true, response: { cloudaicompanionProject: { id: SIMULATED_PROJECT } } }),
  retrieveUserQuota: () => ({ buckets: [] }),
  listExperiments: () => ({ experimentIds: [], flags: [] }),
  countTokens: (body) => ({ totalTokens: tokensOf(JSON.stringify(body).length) }),
};

/** Go's spelling of a duration, as Code Assist words a reset: "2h3m4s", "5m0s", "7s". */
export function goDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, rest] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h}h${m}m${rest}s` : m > 0 ? `${m}m${rest}s` : `${rest}s`;
}

export const codeAssist: Dialect = {
  wire: 'code-assist',
  handles: (path) => MODEL_CALL.test(path),
  // The CLI sends no conversation id beside its session in the body.
  sessionHeaders: [],
  view: (body) => ({ ...gemini.view(inner(body)), wire: 'code-assist' }),
  cacheSegments: (body) => gemini.cacheSegments(inner(body)),
  model: ({ body }) => (isPlainObject(body) && typeof body.model === 'string' ? body.model : 'simulated'),
  streams: ({ path }) => path.endsWith(':streamGenerateContent'),
  stream: (r: ModelReply) =>
    geminiChunks(r)
      .map((c) => sseEvent({ response: c, traceId: r.id }))
      .join(''),
  json: (r) => ({ response: geminiResponse(r), traceId: r.id }),
  stalledStart: (r, partialText) => sseEvent({ response: geminiStalledChunk(r, partialText), traceId: r.id }),
  overloadedStatus: gemini.overloadedStatus,
  errorBody: gemini.errorBody,
  // A Google account's quota as Code Assist refuses it: the CLI reads QUOTA_EXHAUSTED as final and prints the message.
  usageLimitReply: (resetAt, now) => {
    const seconds = Math.max(0, resetAt - Math.floor(now / 1000));
    return {
      status: 429,
      headers: {},
      body: {
        error: {
          code: 429,
          message: `You have exhausted your capacity on this model. Your quota will reset after ${goDuration(seconds)}.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'QUOTA_EXHAUSTED',
              domain: 'cloudcode-pa.googleapis.com',
              metadata: { model: 'simulated' },
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
          ],
        },
      },
    };
  },
  setupReply: (path, body) => {
    const method = SETUP_CALL.exec(path)?.[1];
    return method === undefined ? undefined : (SETUP[method]?.(body) ?? {});
  },
};
