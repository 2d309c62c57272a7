import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode, trialEnv as claudeEnv } from '../src/agents/claude-code/adapter.js';
import { codex, trialEnv as codexEnv } from '../src/agents/codex/adapter.js';
import { codexConfigTable } from '../src/agents/codex/config.js';
import { gemini, trialEnv as geminiEnv } from '../src/agents/gemini/adapter.js';
import { settingsTable } from '../src/agents/gemini/settings.js';
import { copyLogin, loginProblem, loginSources } from '../src/agents/login.js';
import { pauseDecision } from '../src/runner/usage-limit.js';
import { gate, newProviderState, release } from '../src/sim/provider.js';
import { dialectFor } from '../src/sim/dialects/index.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator } from '../src/sim/server.js';
import { connect } from 'node:net';
import { configSchema } from '../src/run/config-schema.js';
import { costNote, LOGIN_COST, SIMULATED_COST } from '../src/report/wording.js';
import { REPORTERS } from '../src/report/registry.js';
import { reportInput } from './report-inputs.js';
import { renderPlan } from '../src/report/plan.js';
import { planSuite } from '../src/verdict/suite-plan.js';
import { nestedRunOverrides } from '../src/cli/trial-flags.js';
import { baseProject, cleanup, loadedSuite, makeProject } from './helpers.js';
import { fakeLoginHome, jwt } from './login-fixtures.js';

const SIMULATOR = { url: 'http://127.0.0.1:4567', headers: {}, identityUrl: 'http://127.0.0.1:4567/t/x/c' };
const KEYS = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't', CLAUDE_CODE_OAUTH_TOKEN: 'o', OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k' };

/** Every file under `dir`, relative to it, sorted. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

describe('where a login is read from', () => {
  it.each([
    [claudeCode, { HOME: '/u' }, ['/u/.claude/.credentials.json']],
    [claudeCode, { HOME: '/u', CLAUDE_CONFIG_DIR: '/cfg' }, ['/cfg/.credentials.json']],
    [codex, { HOME: '/u' }, ['/u/.codex/auth.json']],
    [codex, { HOME: '/u', CODEX_HOME: '/ch' }, ['/ch/auth.json']],
    [gemini, { HOME: '/u' }, ['/u/.gemini/oauth_creds.json', '/u/.gemini/google_accounts.json']],
    [gemini, { HOME: '/u', GEMINI_CLI_HOME: '/g' }, ['/g/oauth_creds.json', '/g/google_accounts.json']],
    [claudeCode, {}, [undefined]],
  ])('%s with %o → %o', (adapter, env, from) => {
    expect(loginSources(adapter.login!, env).map((s) => s.from)).toEqual(from);
  });
});

describe('why a login cannot be used (exit 2 before anything starts)', () => {
  const NOW = new Date('2026-12-04T18:00:00Z');
  const [EARLIER, LATER] = [NOW.getTime() - 60_000, NOW.getTime() + 3_600_000];
  /** The caller's files, by path: what `loginProblem` may read. */
  const holding = (files: Record<string, string>) => ({
    exists: (p: string) => p in files,
    read: (p: string) => files[p]!,
  });
  const claude = (expiresAt: number) => JSON.stringify({ claudeAiOauth: { accessToken: 'a', refreshToken: 'r', expiresAt } });
  const codexAuth = (exp: number) => JSON.stringify({ tokens: { access_token: jwt({ exp: exp / 1000 }), refresh_token: 'r' } });
  const google = (expiry: number, refresh = true) =>
    JSON.stringify({ access_token: 'a', expiry_date: expiry, ...(refresh ? { refresh_token: 'r' } : {}) });
  const [CLAUDE, CODEX, GEMINI] = ['/u/.claude/.credentials.json', '/u/.codex/auth.json', '/u/.gemini/oauth_creds.json'];
  it.each([
    ['stored', claudeCode, { [CLAUDE]: claude(LATER) }, undefined],
    [
      'missing',
      claudeCode,
      {},
      /^no Claude subscription login stored for Claude Code: \/u\/\.claude\/\.credentials\.json not found — log in with `claude`/,
    ],
    [
      'Claude: expired',
      claudeCode,
      { [CLAUDE]: claude(EARLIER) },
      /^the Claude subscription login stored for Claude Code in \/u\/\.claude\/\.credentials\.json expired at 2026-12-04T17:59:00\.000Z, and a trial never renews it — start `claude` once/,
    ],
    ['Claude: a file that says no expiry is left to the CLI', claudeCode, { [CLAUDE]: '{"claudeAiOauth":{}}' }, undefined],
    ['Claude: not JSON, left to the CLI', claudeCode, { [CLAUDE]: 'not json' }, undefined],
    ['Codex stored', codex, { [CODEX]: codexAuth(LATER) }, undefined],
    ['Codex missing', codex, {}, /ChatGPT login stored for Codex CLI: \/u\/\.codex\/auth\.json not found — log in with `codex login`/],
    ['Codex: its access token expired', codex, { [CODEX]: codexAuth(EARLIER) }, /ChatGPT login .* expired at .*start `codex` once/],
    ['Codex: an API key stored instead says no expiry', codex, { [CODEX]: '{"OPENAI_API_KEY":"k","tokens":null}' }, undefined],
    ['Gemini: the account list is optional', gemini, { [GEMINI]: google(LATER) }, undefined],
    ['Gemini: an hour-old access token the CLI renews with its refresh token', gemini, { [GEMINI]: google(EARLIER) }, undefined],
    [
      'Gemini: expired, no refresh token',
      gemini,
      { [GEMINI]: google(EARLIER, false) },
      /Google account login .* expired at .*log in again with `gemini`/,
    ],
  ] as const)('%s', (_, adapter, files, expected) => {
    const problem = loginProblem(adapter, { HOME: '/u' }, NOW, holding(files));
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  it('a CLI without a login says so', () => {
    expect(loginProblem({ skillListing: { cli: 'Some CLI' } }, { HOME: '/u' }, new Date())).toMatch(/Some CLI has no subscription login/);
  });
});

describe("copying a login into a trial's HOME", () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each([
    [claudeCode, ['.claude/.credentials.json']],
    [codex, ['.codex/auth.json']],
    // The optional account list is absent from this caller: only the tokens.
    [gemini, ['.gemini/oauth_creds.json']],
  ])('%s: the HOME lists its credential files alone, each a copy readable by its owner only', async (adapter, expected) => {
    const caller = mkdtempSync(join(tmpdir(), 'sp-caller-'));
    const home = mkdtempSync(join(tmpdir(), 'sp-trialhome-'));
    dirs.push(caller, home);
    const { files } = fakeLoginHome(caller);
    expect(await copyLogin(adapter.login!, { HOME: caller }, home)).toEqual(expected);
    expect(filesUnder(home)).toEqual([...expected].sort());
    for (const f of expected) {
      expect(statSync(join(home, f)).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, f)).nlink).toBe(1);
      expect(readFileSync(join(home, f), 'utf8')).toBe(files[f]);
    }
  });
});

describe('a trial on a login carries no key, and against the simulator has it as its proxy', () => {
  const base = { home: '/tmp/h', tmp: '/tmp/t', cliRetries: 2, deadlineMs: 60_000, login: true };

  it.each([
    ['Claude Code, real', claudeEnv({ ...base, callerEnv: { ...KEYS, HTTPS_PROXY: 'http://corp:3128' } })],
    ['Codex, real', codexEnv({ ...base, callerEnv: { ...KEYS, HTTPS_PROXY: 'http://corp:3128' } })],
    ['Gemini, real', geminiEnv({ ...base, harnessDir: '/tmp/x', callerEnv: { ...KEYS, HTTPS_PROXY: 'http://corp:3128' } })],
  ])('%s: no key, the proxy kept', (_, env) => {
    for (const k of Object.keys(KEYS)) expect(env).not.toHaveProperty(k);
    expect(env.HTTPS_PROXY).toBe('http://corp:3128');
  });

  it.each([
    ['Claude Code', claudeEnv({ ...base, callerEnv: KEYS, simulator: SIMULATOR })],
    ['Codex', codexEnv({ ...base, callerEnv: KEYS, simulator: SIMULATOR })],
    ['Gemini', geminiEnv({ ...base, harnessDir: '/tmp/x', callerEnv: KEYS, simulator: SIMULATOR })],
  ])('%s, simulated: no key, not even the placeholder; every proxy variable is the simulator; loopback exempt', (_, env) => {
    for (const k of [...Object.keys(KEYS), 'SKILLPROBE_SIMULATOR_KEY']) expect(env).not.toHaveProperty(k);
    for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) expect(env[k]).toBe(SIMULATOR.url);
    expect(env.NO_PROXY).toContain('127.0.0.1');
  });

  it("Gemini, simulated: Code Assist is the trial's simulator, and the Google account hosts it plays are trusted by their certificate", () => {
    const env = geminiEnv({
      ...base,
      harnessDir: '/tmp/x',
      callerEnv: { ...KEYS, CODE_ASSIST_ENDPOINT: 'https://corp', GOOGLE_CLOUD_PROJECT: 'p' },
      simulator: SIMULATOR,
    });
    expect(env).toMatchObject({ CODE_ASSIST_ENDPOINT: SIMULATOR.identityUrl, NODE_EXTRA_CA_CERTS: '/tmp/x/simulator-google.pem' });
    expect(env).not.toHaveProperty('GOOGLE_GEMINI_BASE_URL');
    expect(env).not.toHaveProperty('GOOGLE_CLOUD_PROJECT');
  });

  it('without a login the simulated key is the placeholder and no proxy is set', () => {
    const env = claudeEnv({ ...base, login: undefined, callerEnv: KEYS, simulator: SIMULATOR });
    expect(env.ANTHROPIC_API_KEY).toBe('skillprobe-simulator');
    expect(env).not.toHaveProperty('HTTPS_PROXY');
  });

  it.each([
    [undefined, 'https://chatgpt.com/backend-api/codex'],
    [SIMULATOR, `${SIMULATOR.identityUrl}/v1`],
  ])("Codex's provider reads the login's tokens from auth.json (simulator %o → %s)", (simulator, url) => {
    const table = codexConfigTable({ model: 'm', cliRetries: 1, deadlineMs: 60_000, callerEnv: {}, role: 'trial', login: true, simulator });
    const provider = (table.model_providers as Record<string, Record<string, unknown>>).skillprobe!;
    expect(provider).toMatchObject({ base_url: url, requires_openai_auth: true });
    expect(provider).not.toHaveProperty('env_key');
    expect(table.cli_auth_credentials_store).toBe('file');
  });

  it.each([
    [true, 'oauth-personal'],
    [undefined, 'gemini-api-key'],
  ])("Gemini's settings select the Google login (login %s → %s)", (login, selected) => {
    expect(settingsTable({ model: 'm', maxTurns: 4, cliRetries: 1, login }, []).security.auth.selectedType).toBe(selected);
  });
});

describe("each CLI's usage-limit words", () => {
  const claudeLine = (info: object) => JSON.stringify({ type: 'rate_limit_event', rate_limit_info: info, session_id: 's' });
  it.each([
    [
      'rejected, with its reset and kind',
      claudeLine({ status: 'rejected', resetsAt: 1796410734, rateLimitType: 'five_hour', isUsingOverage: false }),
      { message: 'Claude usage limit reached (five_hour)', resetAt: '2026-12-04T18:58:54.000Z' },
    ],
    ['rejected, no reset said', claudeLine({ status: 'rejected' }), { message: 'Claude usage limit reached' }],
    ['allowed: no limit', claudeLine({ status: 'allowed', isUsingOverage: false }), undefined],
    ['a warning: no limit yet', claudeLine({ status: 'allowed_warning', resetsAt: 1796410734 }), undefined],
    [
      'the result line alone is not read',
      JSON.stringify({ type: 'result', is_error: true, result: "You've hit your session limit" }),
      undefined,
    ],
    ['not JSON', '{"type":"rate_limit_event", broken', undefined],
  ])('Claude Code: %s', (_, line, expected) => {
    expect(claudeCode.usageLimit!(line, new Date(), 'stdout')).toEqual(expected);
  });

  // Local times, as the CLI prints them in the trial's time zone (the harness's own).
  const now = new Date(2026, 11, 4, 15, 30, 0);
  const local = (month: number, day: number, h: number, m: number) => new Date(2026, month, day, h, m, 59).toISOString();
  const said = (tail: string) =>
    `You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again ${tail}`;
  it.each([
    ['later today', JSON.stringify({ type: 'error', message: said('at 6:59 PM.') }), local(11, 4, 18, 59)],
    ['a time already past: tomorrow', JSON.stringify({ type: 'error', message: said('at 9:05 AM.') }), local(11, 5, 9, 5)],
    ['noon and midnight', JSON.stringify({ type: 'error', message: said('at 12:10 AM.') }), local(11, 5, 0, 10)],
    ['another day', JSON.stringify({ type: 'error', message: said('at Dec 9 12:15 PM.') }), local(11, 9, 12, 15)],
    // As Codex 0.171.0 printed a reset past midnight (login.e2e, run at 23:08).
    ['another day, with its ordinal', JSON.stringify({ type: 'error', message: said('at Dec 5th, 2026 12:08 AM.') }), local(11, 5, 0, 8)],
    [
      'the 1st, 2nd and 3rd',
      JSON.stringify({ type: 'error', message: said('at Jan 2nd, 2027 8:00 AM.') }),
      new Date(2027, 0, 2, 8, 0, 59).toISOString(),
    ],
    [
      'another year',
      JSON.stringify({ type: 'error', message: said('at Jan 2, 2027 8:00 AM.') }),
      new Date(2027, 0, 2, 8, 0, 59).toISOString(),
    ],
    ['turn.failed says it too', JSON.stringify({ type: 'turn.failed', error: { message: said('at 6:59 PM.') } }), local(11, 4, 18, 59)],
    ['no time named', JSON.stringify({ type: 'error', message: said('later.') }), undefined],
  ])('Codex: %s', (_, line, resetAt) => {
    const limit = codex.usageLimit!(line, now, 'stdout');
    expect(limit?.message).toMatch(/^You’ve hit your usage limit\./);
    expect(limit?.resetAt).toBe(resetAt);
  });

  it.each([
    [
      'a rate limit it retries',
      JSON.stringify({ type: 'error', message: 'Reconnecting... 1/5 (unexpected status 429 Too Many Requests)' }),
    ],
    [
      'an agent message quoting the words',
      JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: 'you hit your usage limit' } }),
    ],
  ])('Codex: %s is no limit', (_, line) => {
    expect(codex.usageLimit!(line, now, 'stdout')).toBeUndefined();
  });

  /** Gemini CLI 0.61.0's last line when Code Assist refused the model call at the account's quota (measured). */
  const geminiResult = (message: string) =>
    JSON.stringify({
      type: 'result',
      timestamp: '2026-12-04T18:15:48.891Z',
      status: 'error',
      error: { type: 'unknown', message },
      stats: {},
    });
  const capacity = (reset: string) =>
    `[API Error: You have exhausted your capacity on this model. Your quota will reset after ${reset}.\n\n💡 Tip: The shared Google Cloud project is experiencing high traffic and has hit its quota limits.]\nPossible quota limitations in place or slow response times detected. Switching to the gemini-3.5-flash model for the rest of this session.`;
  it.each([
    ['hours, minutes, seconds', geminiResult(capacity('2h3m4s')), 7384],
    ['seconds alone', geminiResult(capacity('5s')), 5],
    ['minutes and a fraction', geminiResult(capacity('1m0.5s')), 60.5],
    ['the daily quota: no reset said', geminiResult('[API Error: You have exhausted your daily quota on this model.]'), undefined],
  ])('Gemini: %s', (_, line, seconds) => {
    const limit = gemini.usageLimit!(line, now, 'stdout');
    expect(limit?.message).toMatch(/^You have exhausted your (capacity|daily quota) on this model\./);
    expect(limit?.resetAt).toBe(seconds === undefined ? undefined : new Date(now.getTime() + seconds * 1000).toISOString());
  });

  /** Its stderr between the retries of a refused call: run headless, it sleeps until the reset (measured, 0.61.0). */
  const notice = (reset: string, ms: number) =>
    `Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after ${reset}.. Retrying after ${ms}ms...`;
  it.each([
    ['an hour off: a usage limit, counted from now', notice('1h0m1s', 3733124), 3601],
    ['five minutes off: the CLI waits it out itself', notice('5m0s', 312000), undefined],
    ['seconds off: the same', notice('5s', 6173), undefined],
    ['another failed attempt', 'Attempt 1 failed with status 429. Retrying with backoff...', undefined],
  ])('Gemini on stderr: %s', (_, line, seconds) => {
    const limit = gemini.usageLimit!(line, now, 'stderr');
    expect(limit?.resetAt).toBe(seconds === undefined ? undefined : new Date(now.getTime() + seconds * 1000).toISOString());
    if (seconds !== undefined)
      expect(limit?.message).toBe('You have exhausted your capacity on this model. Your quota will reset after 1h0m1s.');
  });

  it.each([
    [
      'a model answer quoting the words',
      JSON.stringify({ type: 'message', role: 'assistant', content: 'You have exhausted your capacity on this model.' }),
    ],
    ['another API error', geminiResult('[API Error: Resource has been exhausted (e.g. check quota).]')],
    ['a successful result', JSON.stringify({ type: 'result', status: 'success', stats: {} })],
    ['not JSON', 'exhausted your capacity on this model'],
  ])('Gemini: %s is no limit', (_, line) => {
    expect(gemini.usageLimit!(line, now, 'stdout')).toBeUndefined();
  });
});

describe('at a usage limit: wait for the reset, or stop the run (pauseDecision)', () => {
  const NOW = Date.parse('2026-12-04T15:00:00Z');
  const limit = (resetAt?: string) => ({ message: 'Claude usage limit reached (five_hour)', ...(resetAt ? { resetAt } : {}) });
  it.each([
    [
      'no --wait-for-reset: stop, naming the reset',
      limit('2026-12-04T18:00:00Z'),
      false,
      { kind: 'stop', why: 'Claude usage limit reached (five_hour); resets 2026-12-04T18:00:00Z' },
    ],
    ['wait: until a second past the reset', limit('2026-12-04T18:00:00Z'), true, { kind: 'wait', ms: 3 * 3_600_000 + 1000 }],
    ['wait: a reset already past, a second', limit('2026-12-04T14:00:00Z'), true, { kind: 'wait', ms: 1000 }],
    ['wait: no reset named, stop', limit(), true, { kind: 'stop', why: expect.stringContaining('named no reset time') }],
    [
      'wait: a weekly reset past the cap, stop',
      limit('2026-12-09T15:00:00Z'),
      true,
      { kind: 'stop', why: expect.stringContaining('more than --wait-for-reset waits (6 h)') },
    ],
  ] as const)('%s', (_, l, wait, expected) => {
    expect(pauseDecision(l, NOW, wait)).toEqual(expected);
  });
});

describe("the simulator's usage limit (provider.usageLimit)", () => {
  const request = (id: number, now: number, credential = 'k') => ({ id, now, credential, seed: 1, trialKey: `t${id}`, n: 0 });
  it('admits afterRequests per credential, refuses until the reset, then counts again', () => {
    const state = newProviderState(0);
    const limits = { usageLimit: { afterRequests: 2, resetSeconds: 10 } };
    const at = (id: number, now: number, credential?: string) => {
      const d = gate(limits, state, request(id, now, credential));
      release(state, credential ?? 'k', id);
      return d.type === 'usage_limited' ? `limited until ${d.resetAt}` : d.type;
    };
    expect([at(1, 0), at(2, 1000), at(3, 2000), at(4, 5000), at(5, 2500, 'other')]).toEqual([
      'admit',
      'admit',
      'limited until 12000',
      'limited until 12000',
      'admit',
    ]);
    expect([at(6, 12_000), at(7, 12_001), at(8, 12_002)]).toEqual(['admit', 'admit', 'limited until 22002']);
  });

  it.each([
    ['anthropic', '/v1/messages', { 'anthropic-ratelimit-unified-status': 'rejected', 'anthropic-ratelimit-unified-reset': '1796410734' }],
    ['openai-responses', '/v1/responses', {}],
  ])("%s replies as its CLI's usage limit", (_, path, headers) => {
    const reply = dialectFor(path)!.usageLimitReply(1796410734, 1796410734000 - 60_000);
    expect(reply.status).toBe(429);
    expect(reply.headers).toMatchObject(headers);
    if (path === '/v1/responses')
      expect(reply.body).toMatchObject({ error: { type: 'usage_limit_reached', resets_at: 1796410734, resets_in_seconds: 60 } });
  });
});

describe('the simulator as a login trial’s proxy', () => {
  it('refuses a tunnel (403), counts it, and outlives a client that resets it', async () => {
    const sim = await startSimulator(parseProfile({ seed: 1 }));
    try {
      const refused = await new Promise<string>((resolve) => {
        const socket = connect(sim.port, '127.0.0.1', () =>
          socket.write('CONNECT api.anthropic.com:443 HTTP/1.1\r\nhost: api.anthropic.com:443\r\n\r\n'),
        );
        socket.once('data', (d) => {
          resolve(d.toString().split('\r\n')[0]!);
          socket.resetAndDestroy();
        });
      });
      expect(refused).toBe('HTTP/1.1 403 Forbidden');
      // Another tunnel reset before its answer: the simulator keeps serving.
      await new Promise<void>((resolve) => {
        const socket = connect(sim.port, '127.0.0.1', () => {
          socket.write('CONNECT chatgpt.com:443 HTTP/1.1\r\n\r\n');
          socket.resetAndDestroy();
          resolve();
        });
      });
      await new Promise((r) => setTimeout(r, 50));
      expect((await fetch(`${sim.url}/`)).status).toBe(200);
      expect(sim.stats.refusedTunnels).toBeGreaterThanOrEqual(1);
    } finally {
      await sim.stop();
    }
  });
});

describe('plan under a login: the quota in trials, no dollars', () => {
  const decision = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
  const c = (id: string) => ({ id, expect: 'x', exclusive: false, tags: [], decision });
  it.each([
    ['sequential: at most each design’s maximum', {}, /at most 100 in all arms .*~\d+ expected/],
    ['fixed: exactly the trials it runs', { trials: 7, decision: { mode: 'fixed' } }, /at most 14 in all arms .*~14 expected/],
  ])('%s', (_, overrides, expected) => {
    const config = configSchema.parse({ arms: ['skill'], decision: { minTrials: 5, maxTrials: 50 }, ...overrides });
    const plan = planSuite(config, [c('a'), c('b')]);
    const text = renderPlan(plan, undefined, 'login').replace(/\s+/g, ' ');
    expect(text).toMatch(/subscription login: the plan's quota pays, in trials/);
    expect(text).toMatch(expected);
    expect(renderPlan(plan)).not.toContain('subscription login');
  });
});

describe('--login on the commands that start nested runs (tune, mutate)', () => {
  it.each([
    [{ login: true }, 'login'],
    [{}, undefined],
  ] as const)('%o gives auth %s', (flags, auth) => {
    expect(nestedRunOverrides(flags).auth).toBe(auth);
  });

  it('keeps the trial deadline beside the suite flags', () => {
    expect(nestedRunOverrides({ timeout: 30, skills: 's', agent: 'codex' })).toMatchObject({
      timeouts: { trialSeconds: 30 },
      skillsDir: 's',
      agent: 'codex',
    });
  });
});

describe("a login's cost is notional: labelled in every reporter, never a cap in dollars", () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  const input = (auth: 'login' | 'key') => reportInput({ config: configSchema.parse({ arms: ['skill', 'ablation'], auth }) });
  it.each([
    ['a login', 'login', true],
    ['an API key', 'key', undefined],
  ] as const)('%s: results.json says costNotional %s', (_, auth, notional) => {
    const { results } = input(auth);
    expect(results.run.costUsd).toBeGreaterThan(0);
    expect(results.run.costNotional).toBe(notional);
    expect(JSON.parse(REPORTERS.json!({ colour: false }).render(input(auth))).run.costNotional).toBe(notional);
  });

  it.each([
    [{ simulated: false }, undefined],
    [{ simulated: false, costNotional: true as const }, LOGIN_COST],
    [{ simulated: true, costNotional: true as const }, SIMULATED_COST],
  ])('the note beside the dollars of %o: %s', (run, note) => {
    expect(costNote(run)).toBe(note);
  });

  it.each(['terminal', 'markdown', 'html'] as const)('%s: a login run says its dollars are notional; a key run does not', (name) => {
    const render = (auth: 'login' | 'key') => REPORTERS[name]!({ colour: false }).render(input(auth)).replace(/\s+/g, ' ');
    expect(render('login')).toContain('price of the tokens at API rates; a subscription login spends its quota, not these dollars');
    expect(render('key')).not.toContain('notional');
  });

  it.each([
    ['--max-cost with a login: refused, naming the quota', 'auth: login\nmaxCostUsd: 5\n', /spends its quota, not dollars.*--max-trials/],
    ['--max-cost with a key', 'maxCostUsd: 5\n', undefined],
    ['a login without a cap', 'auth: login\n', undefined],
  ])('%s', async (_, config, refused) => {
    const dir = makeProject({ ...baseProject(), 'skillprobe.config.yaml': `agent: claude-code\n${config}` });
    dirs.push(dir);
    const loading = loadedSuite(dir);
    if (refused) await expect(loading).rejects.toThrow(refused);
    else await expect(loading).resolves.toBeDefined();
  });
});
