import { stringify } from 'smol-toml';
import { attemptTimeoutMs } from '../attempt-timeout.js';
import type { InvocationRequest } from '../types.js';

/** The variable the generated provider reads its key from: the simulator's placeholder, or the caller's real key. */
export const SIM_KEY_VARIABLE = 'SKILLPROBE_SIMULATOR_KEY';
export const REAL_KEY_VARIABLE = 'OPENAI_API_KEY';
const REAL_BASE_URL = 'https://api.openai.com/v1';
const PROVIDER = 'skillprobe';

/**
 * The trial's `$CODEX_HOME/config.toml`: one custom provider (the only way this CLI sends a key to an endpoint of
 * our choosing without first trying WebSockets), a read-only sandbox with approval never, and every extra that adds
 * tools, skills, context or network traffic switched off.
 */
export function codexConfig(
  req: Pick<InvocationRequest, 'model' | 'cliRetries' | 'deadlineMs' | 'simulator' | 'callerEnv' | 'noTools'>,
): string {
  const baseUrl = req.simulator ? `${req.simulator.identityUrl}/v1` : req.callerEnv.OPENAI_BASE_URL || REAL_BASE_URL;
  return stringify({
    model: req.model,
    model_provider: PROVIDER,
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
      // A judge's trial: no shell (so nothing can be read), no image viewer.
      ...(req.noTools ? { shell_tool: false, unified_exec: false, view_image: false } : {}),
    },
    skills: { bundled: { enabled: false } },
    model_providers: {
      [PROVIDER]: {
        name: req.simulator ? 'skillprobe simulator' : 'OpenAI',
        base_url: baseUrl,
        env_key: req.simulator ? SIM_KEY_VARIABLE : REAL_KEY_VARIABLE,
        wire_api: 'responses',
        request_max_retries: req.cliRetries,
        stream_max_retries: req.cliRetries,
        // Between stream events, every retry of a stalled stream inside the harness deadline.
        stream_idle_timeout_ms: attemptTimeoutMs(req.deadlineMs, req.cliRetries, { min: 1000, max: 300_000 }),
      },
    },
  });
}
