import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { attemptTimeoutMs } from '../attempt-timeout.js';
import { baseTrialEnv, NETWORK, NO_PROXY_LOOPBACK, simulatorProxy } from '../caller-env.js';
import { cliFolderFile, credentialJson, epochMs } from '../login.js';
import { isPlainObject } from '../../util/json.js';
import { claudeUsageLimit } from './usage-limit.js';
import { installedFile, notInstalled, overrideBinary, printedVersion } from '../cli-binary.js';
import type { CliPackage } from '../conformance.js';
import { CONFORMANCE } from './conformance.js';
import type { AgentAdapter, Invocation, InvocationRequest, TrialRole } from '../types.js';
import { initListingProblem, listingProblem } from '../init-isolation.js';
import {
  CLAUDE_BUNDLED_SKILLS,
  claudeBundled,
  FIELD_ALLOWED,
  fieldEvidenceProblem,
  fieldHooks,
  pluginProblem,
  trialSettings,
} from './field.js';
import { settleHooks } from './settle-hook.js';
import type { InitEvent } from '../../transcript/types.js';
import { parseClaudeStream } from './parse.js';
import { isLineOfType } from '../json-lines.js';
import { statusSignal } from '../provider-signals.js';
import { historyHeld, seededSession, sessionFile, sessionIdFor, SESSION_RECORD } from './session.js';
import { mcpListingProblem } from '../mcp-listing.js';
import { mcpAllowedTools, mcpConfigFile, mcpReadOnlyPatterns, writeMcpConfig } from './mcp.js';
import { claudeMcpName } from './mcp-names.js';

/** First-party credentials: any one lets a trial reach the real model. */
const FIRST_PARTY_CREDENTIALS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'];

/** Caller variables that reach the real Anthropic API: those credentials, a gateway, proxies and their CA. */
const REAL_API = [...FIRST_PARTY_CREDENTIALS, 'ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS', ...NETWORK];

/** A cloud provider the CLI can be switched to, and the caller variables (credentials, endpoints) only it reads. */
interface Provider {
  /** The variable that selects it. */
  switch: string;
  /** Its own variables, by exact name. */
  names: readonly string[];
  /** Its SDK's variables, by prefix (AWS_*: keys, profiles, roles, regions, …). */
  prefixes: readonly string[];
}

/**
 * The cloud providers of the pinned CLI (its getAPIProvider): a cloud credential reaches a trial only when its
 * provider is selected, so a key kept for something else never rides along.
 */
const PROVIDERS: readonly Provider[] = [
  {
    switch: 'CLAUDE_CODE_USE_BEDROCK',
    names: [
      'ANTHROPIC_BEDROCK_BASE_URL',
      'ANTHROPIC_BEDROCK_SERVICE_TIER',
      'ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION',
      'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
    ],
    prefixes: ['AWS_'],
  },
  {
    switch: 'CLAUDE_CODE_USE_MANTLE',
    names: ['ANTHROPIC_BEDROCK_MANTLE_API_KEY', 'ANTHROPIC_BEDROCK_MANTLE_BASE_URL', 'CLAUDE_CODE_SKIP_MANTLE_AUTH'],
    prefixes: ['AWS_'],
  },
  {
    switch: 'CLAUDE_CODE_USE_ANTHROPIC_AWS',
    names: ['ANTHROPIC_AWS_API_KEY', 'ANTHROPIC_AWS_BASE_URL', 'ANTHROPIC_AWS_WORKSPACE_ID', 'CLAUDE_CODE_SKIP_ANTHROPIC_AWS_AUTH'],
    prefixes: ['AWS_'],
  },
  {
    switch: 'CLAUDE_CODE_USE_VERTEX',
    names: ['ANTHROPIC_VERTEX_PROJECT_ID', 'ANTHROPIC_VERTEX_BASE_URL', 'CLOUD_ML_REGION', 'CLAUDE_CODE_SKIP_VERTEX_AUTH'],
    prefixes: ['GOOGLE_', 'GCLOUD_', 'CLOUDSDK_', 'VERTEX_REGION_'],
  },
  {
    switch: 'CLAUDE_CODE_USE_FOUNDRY',
    names: ['ANTHROPIC_FOUNDRY_API_KEY', 'ANTHROPIC_FOUNDRY_BASE_URL', 'ANTHROPIC_FOUNDRY_RESOURCE', 'CLAUDE_CODE_SKIP_FOUNDRY_AUTH'],
    prefixes: ['AZURE_'],
  },
];

/** A switch is on as the CLI reads it (so `CLAUDE_CODE_USE_BEDROCK=0` selects nothing). */
const isOn = (value: string | undefined) => ['1', 'true', 'yes', 'on'].includes((value ?? '').toLowerCase().trim());

const selectedProviders = (env: NodeJS.ProcessEnv) => PROVIDERS.filter((p) => isOn(env[p.switch]));

const readBy = (p: Provider, name: string) => name === p.switch || p.names.includes(name) || p.prefixes.some((x) => name.startsWith(x));

/**
 * The caller's variables a trial keeps beyond the locale: for the real model what reaches it, with cloud credentials
 * only for the selected provider. Against the simulator no credential, provider switch or proxy is kept, so nothing
 * can send a simulated trial anywhere but the simulator.
 */
function realModelVariable(callerEnv: NodeJS.ProcessEnv, simulated: boolean, login: boolean): (name: string) => boolean {
  // Under a login no key or provider switch may win over the copied credentials file.
  const realApi = simulated ? [] : login ? REAL_API.filter((n) => !FIRST_PARTY_CREDENTIALS.includes(n)) : REAL_API;
  const providers = simulated || login ? [] : selectedProviders(callerEnv);
  return (name) => realApi.includes(name) || providers.some((p) => readBy(p, name));
}

/**
 * Points the CLI at the simulator: its URL, the trial's identity headers, no proxy for loopback; a placeholder key,
 * or under a login the simulator as the proxy of every other host (a login also calls the vendor's own hosts, and
 * the simulator refuses those tunnels).
 */
function simulatorVariables(simulator: NonNullable<InvocationRequest['simulator']>, login: boolean): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: simulator.url,
    ...(login ? simulatorProxy(simulator.url) : { ANTHROPIC_API_KEY: 'skillprobe-simulator' }),
    ANTHROPIC_CUSTOM_HEADERS: Object.entries(simulator.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    ...NO_PROXY_LOOPBACK,
  };
}

/** A trial's whole environment: the caller's variables it keeps, then the harness's own settings. */
export function trialEnv(
  req: Pick<InvocationRequest, 'callerEnv' | 'home' | 'tmp' | 'cliRetries' | 'deadlineMs' | 'simulator' | 'context' | 'login'>,
): Record<string, string> {
  const login = req.login === true;
  return {
    ...baseTrialEnv(req, realModelVariable(req.callerEnv, req.simulator !== undefined, login)),
    // Stops every connection but the API calls (telemetry, update checks).
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: String(req.cliRetries),
    API_TIMEOUT_MS: String(apiTimeoutMs(req.deadlineMs, req.cliRetries)),
    // In the lab only the skills under test compete for the model's attention; a field trial lists the bundled ones
    // beside them, as a default session does.
    ...(req.context === 'field' ? {} : { CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: '1' }),
    ...(req.simulator && simulatorVariables(req.simulator, login)),
  };
}

/** The CLI's own per-request timeout (connect to headers), every attempt inside the harness deadline. */
export const apiTimeoutMs = (deadlineMs: number, cliRetries: number): number =>
  attemptTimeoutMs(deadlineMs, cliRetries, { min: 1, max: 120_000 });

/** The CLI's package, installed beside skillprobe by the user (an optional peer). */
const CLI_PACKAGE: CliPackage = { name: '@anthropic-ai/claude-code', command: 'claude' };

function pinnedBinary(): string | undefined {
  // The platform package holds the native binary itself; the wrapper's bin is only a copy made by a postinstall
  // script that package managers may skip.
  const platform = installedFile(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`);
  const wrapper = installedFile(`${CLI_PACKAGE.name}/package.json`);
  const candidates = [platform && join(dirname(platform), 'claude'), wrapper && join(dirname(wrapper), 'bin', 'claude.exe')];
  return candidates.find((p): p is string => p !== undefined && existsSync(p));
}

const DENIED_TOOLS = ['Bash', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Task', 'Agent'];

/** Whether a trial runs in the field: a trial role's in the field context (the judge and proposer never do). */
const inField = (req: Pick<InvocationRequest, 'context' | 'role'>) => req.context === 'field' && req.role === 'trial';

/**
 * Where a trial's settings are written, outside the workspace: in the field the hook that refuses every acting call,
 * elsewhere the built-in plugins off, and the hook that stops the CLI once the trial's outcome is settled
 * (`req.settle`).
 */
const settingsFile = (req: Pick<InvocationRequest, 'harnessDir'>) => join(req.harnessDir, 'trial-settings.json');

/** The hooks a trial is started with. */
const trialHooks = (req: InvocationRequest) => ({
  ...(inField(req) ? fieldHooks(mcpReadOnlyPatterns(req)) : {}),
  ...(req.settle ? settleHooks(req.settle.skills) : {}),
});

/**
 * The tools each role is offered. `=` forms: the variadic options would otherwise swallow what follows, even the
 * prompt. An empty list offers no tool at all (and lists no skill): the judge answers from the text it is shown, the
 * proposer writes a description from what its request shows it. A field trial keeps the default tools and is
 * started with the settings whose hook refuses every acting call (`field.ts`); a trial that settles early, with the
 * hook that stops the CLI then (`settle-hook.ts`).
 */
const toolArgs = (trialTools: readonly string[], req: InvocationRequest): Record<TrialRole, string[]> => ({
  trial: [
    ...(req.context === 'field' ? [] : [`--tools=${trialTools.join(',')}`]),
    `--allowedTools=${['Skill', ...mcpAllowedTools(req)].join(',')}`,
    ...(req.mcp?.length ? [`--mcp-config=${mcpConfigFile(req)}`] : []),
  ],
  judge: ['--tools='],
  proposer: ['--tools='],
});

/**
 * A conversation's flags: user turns as stream-JSON lines on stdin, each echoed back on stdout (`isReplay`) where its
 * turn starts; with a history, the seeded session resumed and kept (its record is the evidence the history was sent).
 * Without a conversation, the prompt as the last argument and no session kept.
 */
function promptArgs(req: InvocationRequest): string[] {
  if (!req.conversation) return ['--no-session-persistence', '--', req.prompt];
  const resume = req.conversation.history.length ? ['--resume', sessionIdFor(req.workspace)] : ['--no-session-persistence'];
  return [...resume, '--input-format', 'stream-json', '--replay-user-messages'];
}

export const claudeCode: AgentAdapter = {
  id: 'claude-code',
  package: CLI_PACKAGE,
  conformance: CONFORMANCE,
  defaultModel: 'sonnet',
  reportsCost: true,
  // A PostToolUse hook answering `{"continue":false}` ends the turn after the skill's call (settle-hook.ts).
  stopsWhenSettled: true,
  skillsFolder: '.claude/skills',
  // CLAUDE.md (and CLAUDE.local.md, the personal one beside it) is loaded from every ancestor even inside a git root;
  // .claude/ skills up to the git root.
  ancestorLeaks: ['CLAUDE.md', 'CLAUDE.local.md', '.claude'],
  instructionFiles: ['CLAUDE.md', 'CLAUDE.local.md'],
  trialTools: FIELD_ALLOWED,
  contexts: ['lab', 'field'],
  // Descriptions are cut at 1536 characters; the listing gets about 1% of the context window (~8,000 characters on
  // a 200k-token model), past which skills are listed by name only.
  skillListing: { cli: 'Claude Code', descriptionCap: 1536, budgetChars: 8000 },
  skillCallArgs: true,
  // Each retry of a failed API call is an `api_retry` event naming the status and the delay it will wait (which
  // honours Retry-After).
  providerSignal(line, from) {
    if (from !== 'stdout' || !line.includes('"api_retry"')) return undefined;
    try {
      const e = JSON.parse(line) as { subtype?: string; error_status?: number | null; error?: string; retry_delay_ms?: number };
      if (e.subtype !== 'api_retry') return undefined;
      const status = e.error_status ?? (e.error === 'rate_limit' ? 429 : e.error === 'overloaded' ? 529 : undefined);
      return statusSignal(status ?? undefined, e.retry_delay_ms);
    } catch {
      return undefined;
    }
  },
  usageLimit: claudeUsageLimit,
  // Claude Code refuses a model's call to a skill whose frontmatter sets disable-model-invocation.
  refusalFixes: { invalid: (asked) => `the model may not call ${asked}: remove disable-model-invocation from its SKILL.md frontmatter` },
  grading: {
    // `" /atl-jira "` → `atl-jira`; `plugin:atl-jira` → `atl-jira` (Claude Code resolves both). Case is significant.
    skillName(requested: string): string {
      const trimmed = requested.trim().replace(/^\//, '');
      const colon = trimmed.lastIndexOf(':');
      return colon >= 0 ? trimmed.slice(colon + 1) : trimmed;
    },
    // The Read tool numbers each line ("    12\t…"); a model copying a command from SKILL.md may keep the number.
    readEchoPrefix: /^\s*\d+\t/,
    // The init event lists the skills Claude Code loaded and the tools it offers the model; in the field, nothing but
    // the installed skills, the bundled ones and the built-in commands, the default tools offered and every acting
    // call refused, the workspace left as it was.
    isolationProblem(t, expected) {
      const init = t.events.find((e): e is InitEvent => e.kind === 'init');
      const mcp = init && mcpListingProblem(init.tools, expected, claudeMcpName);
      if (expected.context !== 'field') return initListingProblem(t, expected, DENIED_TOOLS) ?? (init && pluginProblem(init)) ?? mcp;
      const bundled = claudeBundled(init?.cliVersion);
      return (
        (init && listingProblem(init.skills, expected, true, [...bundled.listed, ...bundled.initOnly])) ??
        mcp ??
        fieldEvidenceProblem(t, expected)
      );
    },
    bundledSkills: CLAUDE_BUNDLED_SKILLS,
  },

  resolveBinary(override?: string): string {
    if (override !== undefined) return overrideBinary(override, CLI_PACKAGE);
    const bin = pinnedBinary();
    if (!bin) throw notInstalled(CLI_PACKAGE, 'Claude Code CLI');
    return bin;
  },

  // `claude --version` prints "2.1.332 (Claude Code)": offline.
  cliVersion: (binary) => printedVersion(binary, ['--version']),

  credentialProblem(env: NodeJS.ProcessEnv): string | undefined {
    if (FIRST_PARTY_CREDENTIALS.some((k) => (env[k] ?? '') !== '')) return undefined;
    // A selected cloud provider may find its credentials outside the environment (instance metadata, workload
    // identity), so selecting one is enough here: the CLI reports what is missing.
    if (selectedProviders(env).length > 0) return undefined;
    // Every trial has a fresh HOME, so a login stored in ~/.claude cannot be used.
    const switches = PROVIDERS.map((p) => `${p.switch}=1`).join(', ');
    return `no credentials for Claude Code in the environment — export ${FIRST_PARTY_CREDENTIALS.join(' or ')}, or select a cloud provider (${switches}) with its credentials, or run against the simulator with --sim PROFILE`;
  },

  // Linux keeps the login in this file; macOS keeps it in the Keychain, where a trial's HOME cannot reach it.
  login: {
    what: 'Claude subscription',
    files: [
      {
        from: cliFolderFile('CLAUDE_CONFIG_DIR', '.claude', '.credentials.json'),
        to: '.claude/.credentials.json',
        // The access token's expiry; the CLI renews it with the refresh token beside it.
        expiresAt: (text) => {
          const oauth = credentialJson(text)?.claudeAiOauth;
          return isPlainObject(oauth) ? epochMs(oauth.expiresAt) : undefined;
        },
      },
    ],
    logIn:
      'log in with `claude` and its /login (on macOS the login is kept in the Keychain: export CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token` instead of --login)',
    renew: 'start `claude` once, which renews it in your own folder, or log in again with its /login',
  },

  simulatorHint: (url) => `ANTHROPIC_BASE_URL=${url}`,

  // A history is a seeded session it resumes; each user turn is a stream-JSON user message on stdin, and a turn ends
  // with its `result` line.
  conversation: {
    history: true,
    followUps: {
      via: 'stdin',
      userLine: (text) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } }),
      endsTurn: (line) => isLineOfType(line, 'result'),
    },
  },

  async prepareTrial(req) {
    await writeFile(settingsFile(req), trialSettings(trialHooks(req), inField(req)));
    await writeMcpConfig(req);
    const history = req.conversation?.history;
    if (history?.length) {
      const file = sessionFile(req.home, req.workspace);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, seededSession(history, req.workspace));
    }
    return {};
  },

  async collectEvidence(req) {
    const history = req.conversation?.history;
    if (!history?.length) return {};
    const record = await readFile(sessionFile(req.home, req.workspace), 'utf8').catch(() => undefined);
    return {
      history:
        record === undefined
          ? { source: SESSION_RECORD, held: false, detail: 'the session file is gone' }
          : historyHeld(record, history, req.workspace),
    };
  },

  invocation(req: InvocationRequest): Invocation {
    const args = [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--setting-sources',
      'project',
      '--strict-mcp-config',
      `--settings=${settingsFile(req)}`,
      ...toolArgs(this.trialTools, req)[req.role],
      '--max-turns',
      String(req.maxTurns),
      '--model',
      req.model,
      ...promptArgs(req),
    ];
    // The run resolved and checked its binary once, before any trial: a binary that vanishes mid-run fails the
    // trials that spawn it (agent errors), not the whole run.
    return { file: req.binary ?? this.resolveBinary(), args, env: trialEnv(req) };
  },

  parse: parseClaudeStream,
};
