import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_GOOGLE_CERT } from '../src/agents/gemini/simulated-google.js';
import { codeAssist, goDuration, SIMULATED_PROJECT } from '../src/sim/dialects/code-assist.js';
import { dialectFor } from '../src/sim/dialects/index.js';
import { simulatorBaseUrl } from '../src/sim/identity.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import { ROOT } from './helpers.js';

type Json = Record<string, unknown>;

/** A request the Gemini CLI 0.61 sent on the Gemini API: Code Assist carries the same one in its envelope. */
const gemini061 = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/codex-gemini/sim-gemini-0.61-requests.json'), 'utf8')) as Record<
  'first',
  Json
>;
/** The envelope as the CLI sends it under a Google login (measured: model, project, user_prompt_id, request). */
const envelope = (request: Json) => ({ model: 'gemini-2.5-pro', project: SIMULATED_PROJECT, user_prompt_id: 'p-1', request });

/** The `data:` payloads of a server-sent event stream. */
const dataOf = (sse: string): Json[] =>
  sse
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Json);

describe('the Code Assist wire (a Gemini login) against the simulator', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator(parseProfile({ seed: 3, rules: [{ case: 'fires', do: [{ skill: 'mock-skill' }] }] }), { record: true });
  });
  afterAll(() => sim.stop());
  const post = (base: string, path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });

  it.each([
    ['/v1internal:streamGenerateContent', 'code-assist'],
    ['/v1internal:generateContent', 'code-assist'],
    ['/v1internal:loadCodeAssist', undefined],
    ['/v1beta/models/m:streamGenerateContent', 'gemini'],
  ])('%s is a model call of %s', (path, wire) => {
    expect(dialectFor(path)?.wire).toBe(wire);
  });

  it('a model call plays the Gemini model: the same parts as on the Gemini wire, each chunk in {response}', async () => {
    const base = simulatorBaseUrl(sim.url, 't/skill/1', 'fires');
    const onGemini = dataOf(
      await (await post(base, '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', gemini061.first)).text(),
    );
    const r = await post(base, '/v1internal:streamGenerateContent?alt=sse', envelope(gemini061.first));
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const onCodeAssist = dataOf(await r.text());
    const partsOf = (chunks: Json[]) => chunks.map((c) => (c.candidates as Json[])[0]!.content);
    expect(partsOf(onCodeAssist.map((c) => c.response as Json))).toEqual(partsOf(onGemini));
    expect(JSON.stringify(partsOf(onGemini))).toContain('activate_skill');
    expect(onCodeAssist.at(-1)!.response).toMatchObject({ candidates: [{ finishReason: 'STOP' }], modelVersion: 'gemini-2.5-pro' });
    expect(sim.received.at(-1)).toMatchObject({ wire: 'code-assist', path: '/v1internal:streamGenerateContent', trial: 't/skill/1' });
  });

  it('generateContent answers one {response}', async () => {
    const r = (await (await post(sim.url, '/v1internal:generateContent', envelope(gemini061.first))).json()) as Json;
    expect(r.response).toMatchObject({ candidates: [{ content: { role: 'model' }, finishReason: 'STOP' }] });
  });

  it.each([
    ['loadCodeAssist', { currentTier: { id: 'standard-tier' }, cloudaicompanionProject: SIMULATED_PROJECT }],
    ['onboardUser', { done: true, response: { cloudaicompanionProject: { id: SIMULATED_PROJECT } } }],
    ['retrieveUserQuota', { buckets: [] }],
    ['countTokens', { totalTokens: expect.any(Number) }],
    ['recordCodeAssistMetrics', {}],
  ])('the account setup call %s is answered as Code Assist does', async (method, expected) => {
    const r = await post(simulatorBaseUrl(sim.url, 'k', 'c'), `/v1internal:${method}`, { project: SIMULATED_PROJECT });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject(expected);
  });

  it.each([
    [7384, '2h3m4s'],
    [300, '5m0s'],
    [7, '7s'],
    [0, '0s'],
  ])('a reset %i s away is worded "%s"', (seconds, words) => {
    expect(goDuration(seconds)).toBe(words);
    const reply = codeAssist.usageLimitReply(1_000_000 + seconds, 1_000_000_000);
    expect(reply.status).toBe(429);
    expect(reply.body).toMatchObject({
      error: {
        status: 'RESOURCE_EXHAUSTED',
        message: `You have exhausted your capacity on this model. Your quota will reset after ${words}.`,
        details: [{ reason: 'QUOTA_EXHAUSTED', domain: 'cloudcode-pa.googleapis.com' }, { retryDelay: `${seconds}s` }],
      },
    });
  });

  /** A request through the simulator as a proxy: CONNECT, then TLS trusting only the simulator's certificate. */
  function throughTunnel(host: string, request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(sim.port, '127.0.0.1', () => socket.write(`CONNECT ${host}:443 HTTP/1.1\r\nhost: ${host}:443\r\n\r\n`));
      socket.once('data', (d) => {
        const status = d.toString().split('\r\n')[0]!;
        if (!status.includes(' 200 ')) {
          socket.destroy();
          resolve(status);
          return;
        }
        const tls = tlsConnect({ socket, servername: host, ca: SIMULATED_GOOGLE_CERT }, () =>
          tls.write(`${request}\r\nhost: ${host}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`),
        );
        let text = '';
        tls.on('data', (c: Buffer) => (text += c.toString()));
        tls.on('end', () => resolve(text));
        tls.on('error', reject);
      });
    });
  }

  it.each([
    ['oauth2.googleapis.com', 'POST /tokeninfo HTTP/1.1', /^HTTP\/1\.1 200[^]*"scope":"[^"]*cloud-platform/],
    ['www.googleapis.com', 'GET /oauth2/v2/userinfo HTTP/1.1', /^HTTP\/1\.1 200[^]*"email":"simulated-user@skillprobe\.invalid"/],
    ['oauth2.googleapis.com', 'POST /token HTTP/1.1', /^HTTP\/1\.1 200[^]*"access_token":"ya29\.skillprobe-simulated"/],
    ['www.googleapis.com', 'GET /drive/v3/files HTTP/1.1', /^HTTP\/1\.1 404/],
    ['play.googleapis.com', 'POST /log HTTP/1.1', /^HTTP\/1\.1 403 Forbidden$/],
  ])('as the proxy, a tunnel to %s (%s) is played on loopback or refused', async (host, request, expected) => {
    const [played, refused] = [sim.stats.playedTunnels, sim.stats.refusedTunnels];
    expect(await throughTunnel(host, request)).toMatch(expected);
    const wasPlayed = host !== 'play.googleapis.com';
    expect([sim.stats.playedTunnels - played, sim.stats.refusedTunnels - refused]).toEqual(wasPlayed ? [1, 0] : [0, 1]);
  });
});
