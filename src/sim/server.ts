import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { SIMULATED_GOOGLE_CERT, SIMULATED_GOOGLE_KEY } from '../agents/gemini/simulated-google.js';
import type { Wire } from './conversation.js';
import type { Dialect, ModelReply } from './dialects/dialect.js';
import { dialectFor, setupReplyFor } from './dialects/index.js';
import { googleAccountReply, playsTunnelTo } from './google-account.js';
import { CASE_HEADER, splitTrialPrefix, TRIAL_HEADER } from './identity.js';
import { decideReply, type TrialIdentity } from './policy.js';
import type { Profile } from './profile.js';
import { PromptCache, tokensOf } from './prompt-cache.js';
import { credentialOf, gate, inFlightTotal, newProviderState, release, type GateDecision, type ProviderState } from './provider.js';

export { CASE_HEADER, simulatorBaseUrl, TRIAL_HEADER } from './identity.js';

/**
 * skillprobe's model simulator: a local stand-in for the model APIs of Claude Code (Anthropic Messages), Codex (OpenAI
 * Responses) and the Gemini CLI (Gemini generateContent). It is NOT a model; it plays a seeded profile so that tests
 * and the demo have a known ground truth.
 */

export interface SimulatorStats {
  requests: number;
  messages: number;
  errors: number;
  stalls: number;
  /** Answered 429 by the profile's `provider` limits (concurrency or rpm). */
  rateLimited: number;
  /** Answered overloaded (529 Anthropic, 503 Gemini and OpenAI) by the profile's `provider` burst. */
  overloaded: number;
  /** Refused at the profile's `provider.usageLimit` (as each CLI's usage-limit reply). */
  usageLimited: number;
  /** The most admitted model calls in flight at once, over every credential. */
  maxInFlight: number;
  /**
   * Tunnels (CONNECT) refused: a CLI on a login, given the simulator as its proxy, tries its vendor's own hosts (account
   * and token calls); none goes anywhere.
   */
  refusedTunnels: number;
  /** Tunnels to the Google account hosts a Gemini login calls, answered by the simulator itself (`google-account.ts`). */
  playedTunnels: number;
}

/** A model call as it arrived, kept when the simulator records (for isolation tests). */
export interface ReceivedRequest {
  wire: Wire;
  /** The API path, after any trial prefix. */
  path: string;
  /** The trial key and case the harness sent, by header or path prefix. */
  trial?: string;
  caseId?: string;
  body: unknown;
}

export interface RunningSimulator {
  url: string;
  port: number;
  stats: SimulatorStats;
  /** Every model call, in arrival order, when started with `record`; else stays empty. */
  received: ReceivedRequest[];
  stop(): Promise<void>;
}

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** Keep every model call on `received`. Off by default, so long runs do not grow memory. */
  record?: boolean;
}

const MAX_BODY = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
      } else parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** A body as JSON, or undefined when it is none. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const SIMULATOR_HEADER = { 'x-skillprobe-simulator': '1' };

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...SIMULATOR_HEADER, ...extra });
  res.end(text);
}

/** The conversation's own id when the harness sent no trial key: the CLI's session header, else the prompt. */
function sessionOf(req: IncomingMessage, dialect: Dialect): string | undefined {
  return dialect.sessionHeaders.map((h) => header(req, h)).find((v) => v !== undefined && v !== '');
}

/** Waits `ms` without keeping the process alive for it (a stopped simulator leaves no timer behind that matters). */
const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms > 0) setTimeout(resolve, ms).unref();
    else resolve();
  });

function providerMessage(d: Exclude<GateDecision, { type: 'admit' } | { type: 'usage_limited' }>, profile: Profile): string {
  const limits = profile.provider!;
  if (d.type === 'overloaded') return 'simulator: the provider is overloaded (profile provider.overloaded); please try again later';
  const what = d.limit === 'concurrency' ? `${limits.concurrency} requests in flight` : `${limits.rpm} requests per minute`;
  return `simulator: rate limit reached (profile provider: ${what} per API key); retry after ${d.retryAfter} s`;
}

export async function startSimulator(profile: Profile, opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const stats: SimulatorStats = {
    requests: 0,
    messages: 0,
    errors: 0,
    stalls: 0,
    rateLimited: 0,
    overloaded: 0,
    maxInFlight: 0,
    refusedTunnels: 0,
    playedTunnels: 0,
    usageLimited: 0,
  };
  // Only with a `provider` block: a profile without one answers at once, as it always did.
  const provider: ProviderState | undefined = profile.provider && newProviderState(Date.now());
  /** Each trial's model calls so far: the provider's draws are per (trial, request number). */
  const requestsOfTrial = new Map<string, number>();
  let gated = 0;
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let counter = 0;
  const promptCache = new PromptCache();

  const server = createServer(async (req, res) => {
    stats.requests++;
    const url = new URL(req.url ?? '/', 'http://sim');
    const { path, trial: trialInPath, caseId: caseInPath } = splitTrialPrefix(url.pathname);
    if (req.socket instanceof TLSSocket) {
      const played = googleAccountReply(header(req, 'host') ?? '', req.method ?? 'GET', url.pathname);
      sendJson(res, played.status, played.body);
      return;
    }
    const dialect = req.method === 'POST' ? dialectFor(path) : undefined;
    if (!dialect) {
      // An account's setup call (Code Assist's), a CLI's connectivity probe (HEAD on the base URL), anything else: 200.
      const setup = req.method === 'POST' ? setupReplyFor(path, parsedOrUndefined(await readBody(req))) : undefined;
      sendJson(res, 200, setup ?? { simulator: 'skillprobe', profile: profile.name });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      sendJson(res, 400, dialect.errorBody(400, `simulator: unreadable request (${(e as Error).message})`));
      return;
    }
    const trial = header(req, TRIAL_HEADER) ?? trialInPath;
    const caseId = header(req, CASE_HEADER) ?? caseInPath;
    if (opts.record) received.push({ wire: dialect.wire, path, trial, caseId, body });

    const view = dialect.view(body);
    const id: TrialIdentity = { key: trial ?? sessionOf(req, dialect) ?? view.prompt, caseId };
    if (provider) {
      const n = requestsOfTrial.get(id.key) ?? 0;
      requestsOfTrial.set(id.key, n + 1);
      const credential = credentialOf((name) => header(req, name), url.searchParams);
      const gateId = ++gated;
      const at = gate(profile.provider!, provider, { id: gateId, credential, now: Date.now(), seed: profile.seed, trialKey: id.key, n });
      if (at.type === 'usage_limited') {
        stats.usageLimited++;
        const reply = dialect.usageLimitReply(Math.ceil(at.resetAt / 1000), Date.now());
        sendJson(res, reply.status, reply.body, reply.headers);
        return;
      }
      if (at.type !== 'admit') {
        const status = at.type === 'overloaded' ? dialect.overloadedStatus : 429;
        if (at.type === 'overloaded') stats.overloaded++;
        else stats.rateLimited++;
        sendJson(res, status, dialect.errorBody(status, providerMessage(at, profile)), { 'retry-after': String(at.retryAfter) });
        return;
      }
      // In flight from its arrival until its response ends or its client goes away.
      res.on('close', () => release(provider, credential, gateId));
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlightTotal(provider));
      await delay(at.latencyMs);
      if (res.destroyed) return;
    }
    const decided = decideReply(profile, view, id);
    const replyId = `sim_${++counter}`;
    if (decided.type === 'http_error') {
      stats.errors++;
      const extra: Record<string, string> = decided.retryAfter !== undefined ? { 'retry-after': String(decided.retryAfter) } : {};
      sendJson(res, decided.status, dialect.errorBody(decided.status, decided.message), extra);
      return;
    }
    const apiRequest = { path, body };
    const inputTokens = tokensOf(JSON.stringify(body).length);
    const scope = `${credentialOf((name) => header(req, name), url.searchParams)}\n${dialect.wire}\n${dialect.model(apiRequest)}`;
    const cache = promptCache.use(scope, dialect.cacheSegments(body), inputTokens);
    const reply: ModelReply = {
      id: replyId,
      model: dialect.model(apiRequest),
      blocks: decided.type === 'message' ? decided.blocks : [],
      inputTokens,
      cachedTokens: cache.cached,
      cacheWriteTokens: cache.written,
      skillFiles: view.skillFiles,
      tools: view.tools,
    };
    const requestId = { 'request-id': `req_${reply.id}` };
    const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...SIMULATOR_HEADER, ...requestId };
    if (decided.type === 'stall') {
      // Headers and a first piece of text, then nothing: only the harness's own deadline ends this.
      stats.stalls++;
      res.writeHead(200, sseHeaders);
      res.write(dialect.stalledStart(reply, decided.partialText));
      return;
    }
    stats.messages++;
    if (dialect.streams(apiRequest)) {
      res.writeHead(200, sseHeaders);
      res.end(dialect.stream(reply));
    } else {
      sendJson(res, 200, dialect.json(reply), requestId);
    }
  });
  // As a proxy it serves plain HTTP as any request and opens no tunnel: nothing reaches beyond loopback. The Google
  // account hosts a Gemini login checks its token with it answers itself, over TLS that a trial alone trusts.
  const googleTls = createSecureContext({ cert: SIMULATED_GOOGLE_CERT, key: SIMULATED_GOOGLE_KEY });
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    // A client that drops the tunnel at once resets the socket: nothing for the simulator to do.
    socket.on('error', () => undefined);
    if (!playsTunnelTo(req.url ?? '')) {
      stats.refusedTunnels++;
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    stats.playedTunnels++;
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const tls = new TLSSocket(socket, { isServer: true, secureContext: googleTls });
    tls.on('error', () => undefined);
    server.emit('connection', tls);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    stats,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
