import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InputError } from '../../load/input-error.js';
import type { AgentAdapter, Invocation, InvocationRequest } from '../types.js';
import { parseClaudeStream } from './parse.js';

/** Variables passed through from the caller: credentials, gateways, proxies. Nothing else leaks in. */
const PASS_THROUGH = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'CLOUD_ML_REGION',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'LANG',
  'LC_ALL',
  'TZ',
] as const;

const require = createRequire(import.meta.url);

/**
 * The CLI's own per-request timeout (connect to headers), short enough that every attempt of a hung request fits
 * inside the harness deadline: a hung API then ends as the CLI's own error (missing data, retried), not a kill.
 */
export function apiTimeoutMs(deadlineMs: number, cliRetries: number): number {
  return Math.max(1, Math.min(120_000, Math.floor((0.8 * deadlineMs) / (1 + cliRetries))));
}

const PINNED_PACKAGE = '@anthropic-ai/claude-code';

/** The version skillprobe depends on (and its tests measured), from its own package.json. */
function pinnedVersion(): string {
  const own = require('../../../package.json') as { dependencies?: Record<string, string> };
  return own.dependencies?.[PINNED_PACKAGE] ?? 'latest';
}

function pinnedBinary(): string | undefined {
  // The platform package holds the native binary itself; the wrapper's bin is only a copy made by a postinstall
  // script that package managers may skip.
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  for (const candidate of [
    () => join(dirname(require.resolve(`${platform}/package.json`)), 'claude'),
    () => join(dirname(require.resolve(`${PINNED_PACKAGE}/package.json`)), 'bin', 'claude.exe'),
  ]) {
    try {
      const p = candidate();
      if (existsSync(p)) return p;
    } catch {
      /* not installed: try the next */
    }
  }
  return undefined;
}

export const claudeCode: AgentAdapter = {
  id: 'claude-code',
  skillsFolder: '.claude/skills',
  // CLAUDE.md is loaded from every ancestor even inside a git root; .claude/ skills up to the git root (§4.2).
  ancestorLeaks: ['CLAUDE.md', '.claude'],
  deniedTools: ['Bash', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Task', 'Agent'],
  trialTools: ['Read', 'Glob', 'Grep', 'Skill'],
  // Descriptions are cut at 1536 characters; the listing gets about 1% of the context window (~8,000 characters on
  // a 200k-token model), past which skills are listed by name only.
  skillListing: { cli: 'Claude Code', descriptionCap: 1536, budgetChars: 8000 },

  resolveBinary(override?: string): string {
    const bin = override ?? pinnedBinary();
    if (!bin || !existsSync(bin)) {
      throw new InputError({
        file: override ? 'agentBinary' : '@anthropic-ai/claude-code',
        what: override ? `agent binary ${override} not found` : 'the pinned Claude Code CLI is not installed',
        todo: override ? 'fix `agentBinary` in the config or --agent-binary' : `install it where skillprobe is installed: npm install ${PINNED_PACKAGE}@${pinnedVersion()} (or pass --agent-binary)`,
      });
    }
    return bin;
  },

  credentialProblem(env: NodeJS.ProcessEnv): string | undefined {
    const has = (k: string) => (env[k] ?? '') !== '';
    if (['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'].some(has)) return undefined;
    // Every trial has a fresh HOME, so a login stored in ~/.claude cannot be used.
    return 'no credentials for Claude Code in the environment — export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, Bedrock or Vertex settings), or run against the simulator with --sim PROFILE';
  },

  invocation(req: InvocationRequest): Invocation {
    const env: Record<string, string> = {};
    for (const k of PASS_THROUGH) {
      const v = req.callerEnv[k];
      if (v !== undefined && v !== '') env[k] = v;
    }
    Object.assign(env, {
      PATH: req.callerEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: req.home,
      // Stops every connection but the API calls (telemetry, update checks): measured in the reference §7.1.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_MAX_RETRIES: String(req.cliRetries),
      API_TIMEOUT_MS: String(apiTimeoutMs(req.deadlineMs, req.cliRetries)),
      // Only the skills under test compete for the model's attention.
      CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: '1',
    });
    if (req.simulator) {
      env.ANTHROPIC_BASE_URL = req.simulator.url;
      env.ANTHROPIC_API_KEY = 'skillprobe-simulator';
      delete env.ANTHROPIC_AUTH_TOKEN;
      delete env.CLAUDE_CODE_OAUTH_TOKEN;
      env.ANTHROPIC_CUSTOM_HEADERS = Object.entries(req.simulator.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n');
    }
    const args = [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--setting-sources',
      'project',
      '--strict-mcp-config',
      '--no-session-persistence',
      // `=` forms: the variadic options would otherwise swallow what follows (reference §9.1).
      `--tools=${this.trialTools.join(',')}`,
      '--allowedTools=Skill',
      '--max-turns',
      String(req.maxTurns),
      '--model',
      req.model,
      '--',
      req.prompt,
    ];
    return { file: this.resolveBinary(req.binary), args, env };
  },

  parse: parseClaudeStream,
};
