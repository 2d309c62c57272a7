import { describe, expect, it } from 'vitest';
import { claudeCode, trialEnv } from '../src/agents/claude-code/adapter.js';

const SIMULATOR = {
  url: 'http://127.0.0.1:4567',
  headers: { 'x-trial': 'c/skill/1' },
  identityUrl: 'http://127.0.0.1:4567/t/c%2Fskill%2F1/c',
};
const envFor = (callerEnv: NodeJS.ProcessEnv, simulator?: typeof SIMULATOR) =>
  trialEnv({ callerEnv, home: '/tmp/h', tmp: '/tmp/t', cliRetries: 2, deadlineMs: 60_000, simulator });

/** Every provider switch the pinned CLI knows (model providers and the remote-session one). */
const SWITCHES = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_GATEWAY',
  'CLAUDE_CODE_USE_CCR_V2',
];
const ALL_SWITCHED_ON = Object.fromEntries(SWITCHES.map((s) => [s, '1']));

describe('trial environment against the simulator: nothing but the simulator is reachable', () => {
  it.each([
    ...SWITCHES,
    // cloud credentials and provider endpoints
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_REGION',
    'AWS_PROFILE',
    'AWS_BEARER_TOKEN_BEDROCK',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'GOOGLE_CLOUD_PROJECT',
    'GCLOUD_PROJECT',
    'CLOUDSDK_CONFIG',
    'CLOUD_ML_REGION',
    'ANTHROPIC_VERTEX_PROJECT_ID',
    'AZURE_CLIENT_SECRET',
    'ANTHROPIC_FOUNDRY_API_KEY',
    'ANTHROPIC_FOUNDRY_BASE_URL',
    'ANTHROPIC_AWS_API_KEY',
    'ANTHROPIC_BEDROCK_MANTLE_API_KEY',
    'ANTHROPIC_BEDROCK_BASE_URL',
    'ANTHROPIC_VERTEX_BASE_URL',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'ANTHROPIC_UNIX_SOCKET',
    // proxies, in any case
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'ALL_PROXY',
    'http_proxy',
    'https_proxy',
    'all_proxy',
  ])('drops %s, even with every provider switched on', (name) => {
    expect(envFor({ ...ALL_SWITCHED_ON, [name]: 'http://127.0.0.1:9' }, SIMULATOR)).not.toHaveProperty(name);
  });

  it('talks to the simulator with a placeholder key, whatever the caller set', () => {
    const env = envFor(
      { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'real-key', ANTHROPIC_CUSTOM_HEADERS: 'x: y' },
      SIMULATOR,
    );
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: SIMULATOR.url,
      ANTHROPIC_API_KEY: 'skillprobe-simulator',
      ANTHROPIC_CUSTOM_HEADERS: 'x-trial: c/skill/1',
    });
  });

  it.each(['NO_PROXY', 'no_proxy'])('%s exempts loopback, replacing the caller’s', (name) => {
    const hosts = envFor({ NO_PROXY: 'corp.invalid', no_proxy: 'corp.invalid' }, SIMULATOR)[name]!.split(',');
    expect(hosts).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost']));
    expect(hosts).not.toContain('corp.invalid');
  });
});

describe('trial environment for the real model: cloud credentials only for the selected provider', () => {
  /** A variable, and the switches whose provider reads it. */
  const READERS: [string, string[]][] = [
    ['AWS_ACCESS_KEY_ID', ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_MANTLE', 'CLAUDE_CODE_USE_ANTHROPIC_AWS']],
    ['AWS_SECRET_ACCESS_KEY', ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_MANTLE', 'CLAUDE_CODE_USE_ANTHROPIC_AWS']],
    ['AWS_PROFILE', ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_MANTLE', 'CLAUDE_CODE_USE_ANTHROPIC_AWS']],
    ['ANTHROPIC_BEDROCK_BASE_URL', ['CLAUDE_CODE_USE_BEDROCK']],
    ['ANTHROPIC_BEDROCK_MANTLE_API_KEY', ['CLAUDE_CODE_USE_MANTLE']],
    ['ANTHROPIC_AWS_API_KEY', ['CLAUDE_CODE_USE_ANTHROPIC_AWS']],
    ['GOOGLE_APPLICATION_CREDENTIALS', ['CLAUDE_CODE_USE_VERTEX']],
    ['GCLOUD_PROJECT', ['CLAUDE_CODE_USE_VERTEX']],
    ['CLOUDSDK_CONFIG', ['CLAUDE_CODE_USE_VERTEX']],
    ['ANTHROPIC_VERTEX_PROJECT_ID', ['CLAUDE_CODE_USE_VERTEX']],
    ['CLOUD_ML_REGION', ['CLAUDE_CODE_USE_VERTEX']],
    ['AZURE_CLIENT_SECRET', ['CLAUDE_CODE_USE_FOUNDRY']],
    ['ANTHROPIC_FOUNDRY_API_KEY', ['CLAUDE_CODE_USE_FOUNDRY']],
  ];
  const MODEL_PROVIDERS = [
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_MANTLE',
    'CLAUDE_CODE_USE_ANTHROPIC_AWS',
    'CLAUDE_CODE_USE_VERTEX',
    'CLAUDE_CODE_USE_FOUNDRY',
  ];
  const cases = READERS.flatMap(([name, readers]) =>
    [undefined, ...MODEL_PROVIDERS].map(
      (selected) => [name, selected ?? 'no provider', selected !== undefined && readers.includes(selected)] as const,
    ),
  );

  it.each(cases)('%s with %s selected: passed on = %s', (name, selected, passed) => {
    const env = envFor({ [selected]: '1', [name]: 'v' });
    expect(name in env).toBe(passed);
  });

  it.each(MODEL_PROVIDERS)('%s is passed on when on, and a switch set to 0 selects nothing', (name) => {
    expect(envFor({ [name]: 'true' })).toHaveProperty(name, 'true');
    expect(envFor({ [name]: '0', AWS_ACCESS_KEY_ID: 'k', GOOGLE_APPLICATION_CREDENTIALS: 'f', AZURE_CLIENT_SECRET: 's' })).toEqual(
      envFor({}),
    );
  });

  it.each([
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'HTTPS_PROXY',
    'NO_PROXY',
    'NODE_EXTRA_CA_CERTS',
  ])('%s is passed on as before', (name) => {
    expect(envFor({ [name]: 'v' })).toHaveProperty(name, 'v');
  });

  it.each(['CLAUDE_CODE_USE_GATEWAY', 'CLAUDE_CODE_USE_CCR_V2', 'ANTHROPIC_UNIX_SOCKET'])('%s is not passed on, as before', (name) => {
    expect(envFor({ [name]: '1' })).not.toHaveProperty(name);
  });
});

describe('trial environment: unrelated variables', () => {
  it.each([
    ['real model', undefined],
    ['simulator', SIMULATOR],
  ])('%s: the locale is kept, anything else dropped, PATH and HOME set', (_, simulator) => {
    const env = envFor({ LANG: 'de_DE.UTF-8', TZ: 'UTC', EDITOR: 'vim', SECRET_THING: 'x', PATH: '/opt/bin', HOME: '/home/me' }, simulator);
    expect(env).toMatchObject({ LANG: 'de_DE.UTF-8', TZ: 'UTC', PATH: '/opt/bin', HOME: '/tmp/h', TMPDIR: '/tmp/t' });
    expect(env).not.toHaveProperty('EDITOR');
    expect(env).not.toHaveProperty('SECRET_THING');
  });
});

describe('credentials check with providers', () => {
  it.each([
    ['nothing', {}, false],
    ['an API key', { ANTHROPIC_API_KEY: 'k' }, true],
    ['an OAuth token', { CLAUDE_CODE_OAUTH_TOKEN: 't' }, true],
    [
      'Bedrock selected with AWS credentials',
      { CLAUDE_CODE_USE_BEDROCK: '1', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's', AWS_REGION: 'us-east-1' },
      true,
    ],
    ['Vertex selected', { CLAUDE_CODE_USE_VERTEX: 'true', ANTHROPIC_VERTEX_PROJECT_ID: 'p' }, true],
    ['Foundry selected', { CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_API_KEY: 'k' }, true],
    ['AWS credentials without Bedrock selected', { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' }, false],
    ['Bedrock switched off', { CLAUDE_CODE_USE_BEDROCK: '0', AWS_ACCESS_KEY_ID: 'a' }, false],
  ])('%s: credentials ok = %s', (_, env, ok) => {
    expect(claudeCode.credentialProblem(env) === undefined).toBe(ok);
  });
});
