import type { InvocationRequest } from '../src/agents/types.js';

/** The simulator a Gemini trial is pointed at. */
export const SIMULATOR = {
  url: 'http://127.0.0.1:4567',
  headers: { 'x-trial': 'c/skill/1' },
  identityUrl: 'http://127.0.0.1:4567/t/c%2Fskill%2F1/c',
};

/** A caller with every kind of variable a trial must not inherit, and the ones a real-model trial keeps. */
const CALLER: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/caller',
  LANG: 'C.UTF-8',
  TZ: 'UTC',
  GEMINI_API_KEY: 'real-key',
  GOOGLE_API_KEY: 'vertex-key',
  GOOGLE_GEMINI_BASE_URL: 'https://gateway.example',
  GOOGLE_GENAI_USE_VERTEXAI: 'true',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/caller/adc.json',
  GOOGLE_CLOUD_PROJECT: 'p',
  GEMINI_MODEL: 'other',
  GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/etc/x.json',
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
  HTTPS_PROXY: 'http://proxy:3128',
  HTTP_PROXY: 'http://proxy:3128',
  NO_PROXY: 'corp.invalid',
  NODE_EXTRA_CA_CERTS: '/ca.pem',
  ALL_PROXY: 'socks5://proxy:1080',
  NODE_OPTIONS: '--require /evil.js',
  OPENAI_API_KEY: 'other-key',
};

/** A Gemini trial's invocation request, with `over` set. */
export function request(over: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'please handle an alpha record',
    role: 'trial',
    model: 'gemini-2.5-flash',
    maxTurns: 5,
    cliRetries: 2,
    deadlineMs: 60_000,
    workspace: '/trial/ws',
    home: '/trial/home',
    tmp: '/trial/tmp',
    harnessDir: '/trial/harness',
    callerEnv: CALLER,
    ...over,
  };
}
