import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { viewConversation } from './conversation.js';
import { decideReply, type TrialIdentity } from './policy.js';
import type { Profile } from './profile.js';
import { errorBody, jsonBody, messageStart, openTextBlock, streamBody, type WireMessage } from './wire.js';

/**
 * skillprobe's model simulator: a local stand-in for the Anthropic Messages API. It is NOT a model;
 * it plays a seeded profile so that tests and the demo have a known ground truth.
 */

export const TRIAL_HEADER = 'x-skillprobe-trial';
export const CASE_HEADER = 'x-skillprobe-case';
const SESSION_HEADER = 'x-claude-code-session-id';

export interface SimulatorStats {
  requests: number;
  messages: number;
  errors: number;
  stalls: number;
}

export interface RunningSimulator {
  url: string;
  port: number;
  stats: SimulatorStats;
  stop(): Promise<void>;
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

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-skillprobe-simulator': '1', ...extra });
  res.end(text);
}

export async function startSimulator(profile: Profile, opts: { port?: number; host?: string } = {}): Promise<RunningSimulator> {
  const stats: SimulatorStats = { requests: 0, messages: 0, errors: 0, stalls: 0 };
  const sockets = new Set<Socket>();
  let counter = 0;

  const server = createServer(async (req, res) => {
    stats.requests++;
    const url = new URL(req.url ?? '/', 'http://sim');
    if (req.method !== 'POST' || !url.pathname.endsWith('/v1/messages')) {
      // The CLI's connectivity probe (HEAD on the base URL) and anything else: a plain 200.
      sendJson(res, 200, { simulator: 'skillprobe', profile: profile.name });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      sendJson(res, 400, errorBody(400, `simulator: unreadable request (${(e as Error).message})`));
      return;
    }
    const view = viewConversation(body);
    const id: TrialIdentity = {
      key: header(req, TRIAL_HEADER) ?? header(req, SESSION_HEADER) ?? view.prompt,
      caseId: header(req, CASE_HEADER),
    };
    const reply = decideReply(profile, view, id);
    const b = body as { model?: unknown; stream?: unknown };
    const msg: WireMessage = {
      id: `msg_sim_${++counter}`,
      model: typeof b.model === 'string' ? b.model : 'simulated',
      blocks: reply.type === 'message' ? reply.blocks : [],
      inputTokens: Math.ceil(JSON.stringify(body).length / 4),
    };
    if (reply.type === 'http_error') {
      stats.errors++;
      const extra: Record<string, string> = reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {};
      sendJson(res, reply.status, errorBody(reply.status, reply.message), extra);
      return;
    }
    const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-skillprobe-simulator': '1', 'request-id': `req_${msg.id}` };
    if (reply.type === 'stall') {
      // Headers and a first delta, then nothing: only the harness's own deadline ends this.
      stats.stalls++;
      res.writeHead(200, sseHeaders);
      res.write(messageStart(msg));
      res.write(openTextBlock(reply.partialText, 0));
      return;
    }
    stats.messages++;
    if (b.stream === true) {
      res.writeHead(200, sseHeaders);
      res.end(streamBody(msg));
    } else {
      sendJson(res, 200, jsonBody(msg), { 'request-id': `req_${msg.id}` });
    }
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
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
