import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { attemptTimeoutMs } from '../attempt-timeout.js';
import type { InvocationRequest, TrialRole } from '../types.js';

/** The variable the generated provider reads its key from: the simulator's placeholder, or the caller's real key. */
export const SIM_KEY_VARIABLE = 'SKILLPROBE_SIMULATOR_KEY';
export const REAL_KEY_VARIABLE = 'OPENAI_API_KEY';
const REAL_BASE_URL = 'https://api.openai.com/v1';
/** Where the CLI's own provider sends a ChatGPT login's requests. */
const LOGIN_BASE_URL = 'https://chatgpt.com/backend-api/codex';
const PROVIDER = 'skillprobe';

export type ConfigRequest = Pick<
  InvocationRequest,
  'model' | 'cliRetries' | 'deadlineMs' | 'simulator' | 'callerEnv' | 'role' | 'login'
> & {
  /** The trial's MCP servers as the config names them (`mcp_servers`); absent: none. */
  mcpServers?: Record<string, unknown>;
};

/** No shell (so nothing can be read), no image viewer: the judge and the proposer answer from their request alone. */
const NO_TOOLS = { shell_tool: false, unified_exec: false, view_image: false };

/** The features each role switches off beyond every trial's: a trial keeps its tool menu. */
const ROLE_FEATURES: Record<TrialRole, Record<string, boolean>> = { trial: {}, judge: NO_TOOLS, proposer: NO_TOOLS };

/**
 * The trial's `$CODEX_HOME/config.toml`, as data: one custom provider (the only way this CLI sends a key to an endpoint of
 * our choosing without first trying WebSockets), a read-only sandbox with approval never, and every extra that adds
 * tools, skills, context or network traffic switched off.
 */
export function codexConfigTable(req: ConfigRequest): Record<string, unknown> {
  const realBaseUrl = req.login ? LOGIN_BASE_URL : req.callerEnv.OPENAI_BASE_URL || REAL_BASE_URL;
  const baseUrl = req.simulator ? `${req.simulator.identityUrl}/v1` : realBaseUrl;
  // A login's tokens come from auth.json (`requires_openai_auth`), which the trial reads from its file, never a keyring.
  const auth = req.login ? { requires_openai_auth: true } : { env_key: req.simulator ? SIM_KEY_VARIABLE : REAL_KEY_VARIABLE };
  return {
    model: req.model,
    model_provider: PROVIDER,
    ...(req.login ? { cli_auth_credentials_store: 'file' } : {}),
    approval_policy: 'never',
    sandbox_mode: 'read-only',
    web_search: 'disabled',
    check_for_update_on_startup: false,
    analytics: { enabled: false },
    feedback: { enabled: false },
    history: { persistence: 'none' },
    agents: { enabled: false },
    // Each of these adds tools, context or a network call at start (plugins sync a marketplace).
    features: {
      goals: false,
      image_generation: false,
      apps: false,
      plugins: false,
      memories: false,
      shell_snapshot: false,
      tool_suggest: false,
      hooks: false,
      ...ROLE_FEATURES[req.role],
    },
    skills: { bundled: { enabled: false } },
    ...(req.mcpServers && Object.keys(req.mcpServers).length ? { mcp_servers: req.mcpServers } : {}),
    model_providers: {
      [PROVIDER]: {
        name: req.simulator ? 'skillprobe simulator' : 'OpenAI',
        base_url: baseUrl,
        ...auth,
        wire_api: 'responses',
        request_max_retries: req.cliRetries,
        stream_max_retries: req.cliRetries,
        // Between stream events, every retry of a stalled stream inside the harness deadline.
        stream_idle_timeout_ms: attemptTimeoutMs(req.deadlineMs, req.cliRetries, { min: 1000, max: 300_000 }),
      },
    },
  };
}

/** The trial's `$CODEX_HOME/config.toml` (`codexConfigTable`, written out). */
export const codexConfig = (req: ConfigRequest): string => stringify(codexConfigTable(req));

/** The trial's `$CODEX_HOME`, inside its own home: config, session records. */
export const codexHome = (home: string) => join(home, '.codex');
