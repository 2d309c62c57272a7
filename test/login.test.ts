import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode, trialEnv as claudeEnv } from '../src/agents/claude-code/adapter.js';
import { codex, trialEnv as codexEnv } from '../src/agents/codex/adapter.js';
import { codexConfigTable } from '../src/agents/codex/config.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { settingsTable } from '../src/agents/gemini/settings.js';
import { copyLogin, loginProblem, loginSources } from '../src/agents/login.js';
import { cleanup } from './helpers.js';
import { fakeLoginHome } from './login-fixtures.js';

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
  const present =
    (...paths: string[]) =>
    (p: string) =>
      paths.includes(p);
  it.each([
    ['stored', claudeCode, false, present('/u/.claude/.credentials.json'), undefined],
    [
      'missing',
      claudeCode,
      false,
      present(),
      /^no Claude subscription login stored for Claude Code: \/u\/\.claude\/\.credentials\.json not found — log in with `claude`/,
    ],
    ['Codex stored', codex, true, present('/u/.codex/auth.json'), undefined],
    [
      'Codex missing',
      codex,
      true,
      present(),
      /ChatGPT login stored for Codex CLI: \/u\/\.codex\/auth\.json not found — log in with `codex login`/,
    ],
    ['Gemini: the account list is optional', gemini, false, present('/u/.gemini/oauth_creds.json'), undefined],
    [
      'Gemini against the simulator',
      gemini,
      true,
      present('/u/.gemini/oauth_creds.json'),
      /Code Assist API, which the simulator does not play — drop --login/,
    ],
  ] as const)('%s', (_, adapter, simulated, exists, expected) => {
    const problem = loginProblem(adapter, { HOME: '/u' }, simulated, exists);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  it('a CLI without a login says so', () => {
    expect(loginProblem({ skillListing: { cli: 'Some CLI' } }, { HOME: '/u' }, false)).toMatch(/Some CLI has no subscription login/);
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
  ])('%s: no key, the proxy kept', (_, env) => {
    for (const k of Object.keys(KEYS)) expect(env).not.toHaveProperty(k);
    expect(env.HTTPS_PROXY).toBe('http://corp:3128');
  });

  it.each([
    ['Claude Code', claudeEnv({ ...base, callerEnv: KEYS, simulator: SIMULATOR })],
    ['Codex', codexEnv({ ...base, callerEnv: KEYS, simulator: SIMULATOR })],
  ])('%s, simulated: no key, not even the placeholder; every proxy variable is the simulator; loopback exempt', (_, env) => {
    for (const k of [...Object.keys(KEYS), 'SKILLPROBE_SIMULATOR_KEY']) expect(env).not.toHaveProperty(k);
    for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) expect(env[k]).toBe(SIMULATOR.url);
    expect(env.NO_PROXY).toContain('127.0.0.1');
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
