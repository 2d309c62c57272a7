import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { parse } from 'yaml';
import type { InvocationRequest, TrialRole } from '../types.js';

/**
 * The built-in skills of Gemini CLI 0.61 (measured: docs/cli-facts.md), which a field trial lists beside the installed
 * ones; the lab hides those of the bundle that runs, or these when its own folder of them cannot be read.
 */
export const GEMINI_BUILTIN_SKILLS = ['antigravity-support', 'skill-creator'] as const;

/** The CLI caps its attempts per request at this many, whatever the settings ask. */
const MAX_ATTEMPTS = 10;

/** Tools a lab trial's admin policy denies outright: everything that runs, writes, fetches, delegates or remembers. */
const DENIED_TOOLS = [
  'run_shell_command',
  'write_file',
  'replace',
  'web_fetch',
  'google_web_search',
  'invoke_agent',
  'enter_plan_mode',
  'save_memory',
];

/** The tools that act (every tool the lab denies but the plan mode, which changes nothing outside the conversation). */
export const GEMINI_ACTING_TOOLS: readonly string[] = DENIED_TOOLS.filter((t) => t !== 'enter_plan_mode');

/** The name a built-in SKILL.md gives itself in its frontmatter (the CLI lists it by that), else its folder's. */
function declaredName(folder: string, dir: string): string {
  try {
    const file = join(folder, dir, 'SKILL.md');
    const frontmatter = existsSync(file) ? /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, 'utf8'))?.[1] : undefined;
    const name: unknown = frontmatter && (parse(frontmatter) as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name.trim() ? name.trim() : dir;
  } catch {
    return dir;
  }
}

/** The skills a folder of skill folders holds, by the names they declare; none when it does not exist. */
export function skillNamesIn(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const dirs = readdirSync(folder, { withFileTypes: true }).filter((d) => d.isDirectory());
  return dirs.map((d) => declaredName(folder, d.name)).sort();
}

/** The skills the bundle at `bundleDir` ships built in (its `builtin/` folder), or the known ones if unreadable. */
export function builtinSkills(bundleDir: string | undefined): string[] {
  const names = bundleDir ? skillNamesIn(join(bundleDir, 'builtin')) : [];
  return names.length ? names : [...GEMINI_BUILTIN_SKILLS];
}

/**
 * The built-ins a trial hides, given the skills its workspace holds. The CLI keeps one skill a name, and one found
 * later (the workspace's) replaces a built-in of exactly its name; `skills.disabled` hides every skill whose name
 * matches ignoring case, whatever its origin. So a built-in the workspace replaces is left unnamed (naming it would
 * hide the user's skill), and one whose name a workspace skill matches only ignoring case cannot be hidden without
 * hiding that skill too: a `clash`.
 */
export function builtinsToHide(builtins: readonly string[], workspaceSkills: readonly string[]): { hide: string[]; clash: string[] } {
  const replaced = new Set(workspaceSkills);
  const lower = new Set(workspaceSkills.map((s) => s.toLowerCase()));
  const kept = builtins.filter((b) => !replaced.has(b));
  return { hide: kept, clash: kept.filter((b) => lower.has(b.toLowerCase())) };
}

/**
 * What every trial's user settings (`<home>/.gemini/settings.json`) hold: the API-key auth (without it a custom
 * endpoint is refused) or the Google login, the model and turn limit, the CLI's own retries, the built-ins hidden (`builtinsToHide`), and
 * everything that phones home, updates, checkpoints or reads an IDE switched off.
 */
export function settingsTable(
  req: Pick<InvocationRequest, 'model' | 'maxTurns' | 'cliRetries' | 'login'>,
  hiddenBuiltins: readonly string[],
) {
  return {
    // A login is the Google account's (its copied oauth_creds.json), never a key.
    security: { auth: { selectedType: req.login ? 'oauth-personal' : 'gemini-api-key' }, disableYoloMode: true },
    model: { name: req.model, maxSessionTurns: req.maxTurns },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      maxAttempts: Math.min(MAX_ATTEMPTS, 1 + req.cliRetries),
      checkpointing: { enabled: false },
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    skills: { enabled: true, disabled: hiddenBuiltins },
    ide: { enabled: false },
    // A `.env` in the workspace or above it would otherwise fill in variables the trial's environment leaves unset.
    advanced: { ignoreLocalEnv: true },
  };
}

/** Settings as the CLI reads them. */
export const settingsJson = (settings: object): string => `${JSON.stringify(settings, null, 2)}\n`;

/** A lab trial's user settings: every trial's (`settingsTable`), the tools an allowlist, and no sub-agents. */
export function geminiSettings(
  req: Pick<InvocationRequest, 'model' | 'maxTurns' | 'cliRetries'>,
  tools: readonly string[],
  hiddenBuiltins: readonly string[],
  mcpServers: Record<string, unknown> = {},
): string {
  // An allowlist: the CLI allows these and denies every other tool, so no other tool is even offered (an MCP server's
  // tools too: the admin policy's rules for the trial's servers outrank it, `geminiMcpRules`).
  return settingsJson({
    ...settingsTable(req, hiddenBuiltins),
    tools: { core: [...tools] },
    experimental: { enableAgents: false },
    ...(Object.keys(mcpServers).length ? { mcpServers } : {}),
  });
}

/**
 * The admin-tier policy (`--admin-policy`), which outranks workspace and user policies: the skill tool allowed
 * (the CLI's own headless policy denies it), everything in DENIED_TOOLS denied, the trial's MCP servers' tools offered
 * with every call of one that may act refused (`mcpRules`, `geminiMcpRules`); for a judge's or a proposer's trial, the
 * trial's own tools denied too, so the model is offered none.
 */
export function geminiPolicy(skillTool: string, role: TrialRole, trialTools: readonly string[], mcpRules: readonly object[] = []): string {
  const none = { rule: [{ toolName: [...DENIED_TOOLS, ...trialTools], decision: 'deny', priority: 100 }] };
  const byRole: Record<TrialRole, object> = {
    trial: {
      rule: [
        { toolName: skillTool, decision: 'allow', priority: 100 },
        { toolName: DENIED_TOOLS, decision: 'deny', priority: 100 },
        ...mcpRules,
      ],
    },
    judge: none,
    proposer: none,
  };
  return stringify(byRole[role]);
}

/** Where a trial's admin policy (`--admin-policy`) is written: beside its other harness files, outside the workspace. */
export const policyFile = (harnessDir: string) => join(harnessDir, 'policy.toml');
