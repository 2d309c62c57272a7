import { FIELD_REFUSAL, fieldWorkspaceProblem } from '../field-refusal.js';
import type { IsolationExpectation } from '../types.js';
import { readsOnly } from '../../run/schema.js';
import { claudeMcpTool } from './mcp-names.js';
import type { InitEvent, ToolCallEvent, ToolResultEvent, Transcript } from '../../transcript/types.js';

/**
 * Claude Code in the field: its default tool menu, and every call but a read or the skill tool refused before it
 * runs. Deny rules and `--disallowedTools` drop the tools from the menu (measured on 2.1.197 and 2.1.332), and
 * `dontAsk` and `plan` still run read-only commands and sub-agents (measured on 2.1.197, docs/cli-facts.md); only a
 * PreToolUse hook that denies keeps every tool listed and refuses each call, `ls` and sub-agents included, with the
 * model told why and going on (on 2.1.332 too: test/field.e2e.test.ts).
 */

/** What one Claude Code version brings beside the installed skills, each list in its init event's or listing's order. */
export interface ClaudeBundled {
  /** Listed to the model in a field trial: its bundled skills and the built-in prompt commands it offers the model. */
  listed: readonly string[];
  /**
   * Named by its init event beyond the installed and listed skills, in the lab and the field alike: bundled skills only
   * a person may call and built-in commands, none of them listed to the model.
   */
  initOnly: readonly string[];
  /** Its built-in plugins on by default (the init event's `plugins`, `<name>@builtin`): a lab trial turns them off. */
  plugins: readonly string[];
}

/**
 * What each measured Claude Code version bundles (docs/cli-facts.md): the one place its versions differ in what a
 * session lists. A lab trial hides the bundled skills (`CLAUDE_CODE_DISABLE_BUNDLED_SKILLS`) and the plugins
 * (`trialSettings`); a field trial lists them beside the installed ones, as a default session does.
 */
export const CLAUDE_BUNDLED_BY_VERSION: Readonly<Record<string, ClaudeBundled>> = {
  '2.1.197': {
    listed: [
      'deep-research',
      'update-config',
      'keybindings-help',
      'verify',
      'code-review',
      'simplify',
      'fewer-permission-prompts',
      'loop',
      'claude-api',
      'run',
      'init',
      'review',
      'security-review',
    ],
    initOnly: [
      'debug',
      'batch',
      'run-skill-generator',
      'clear',
      'compact',
      'config',
      'context',
      'heapdump',
      'reload-skills',
      'usage',
      'insights',
      'goal',
      'team-onboarding',
    ],
    plugins: [],
  },
  '2.1.332': {
    listed: [
      'dataviz',
      'update-config',
      'keybindings-help',
      'code-review',
      'simplify',
      'fewer-permission-prompts',
      'loop',
      'claude-api',
      'workflow-authoring',
      'run',
      'plugin-authoring',
      'init',
      'security-review',
    ],
    initOnly: [
      'deep-research',
      'verify',
      'debug',
      'batch',
      'doctor',
      'run-skill-generator',
      'agents',
      'auto-mode-setup',
      'autocompact',
      'clear',
      'color',
      'compact',
      'config',
      'output-style',
      'context',
      'effort',
      'fast',
      'focus',
      'heapdump',
      'mcp',
      'model',
      '__remote-workflow',
      'workflow-launch-exec',
      'reload-plugins',
      'reload-skills',
      'rename',
      'usage',
      'insights',
      'recap',
      'goal',
      'list-agents',
      'team-onboarding',
    ],
    plugins: ['cc-plugin-agents-md', 'cc-plugin-privacy', 'cc-plugin-plugin-authoring'],
  },
};

const MEASURED = Object.values(CLAUDE_BUNDLED_BY_VERSION);

/** What `version` bundles; a version not measured is taken as the newest measured one (the listing check shows a difference). */
export function claudeBundled(version: string | undefined): ClaudeBundled {
  return CLAUDE_BUNDLED_BY_VERSION[version ?? ''] ?? MEASURED.at(-1)!;
}

/**
 * Every skill a measured version lists beside the installed ones in the field: the names a user's skill must not take,
 * and the bundled columns a field trial can fire.
 */
export const CLAUDE_BUNDLED_SKILLS: readonly string[] = [...new Set(MEASURED.flatMap((b) => b.listed))];

/** Every built-in plugin a measured version turns on, turned off (`enabledPlugins`). */
const BUILTIN_PLUGINS_OFF = Object.fromEntries(
  [...new Set(MEASURED.flatMap((b) => b.plugins))].map((plugin) => [`${plugin}@builtin`, false]),
);

/** Why a trial outside the field loaded plugins, or undefined: its listing would hold their skills. */
export function pluginProblem(init: InitEvent): string | undefined {
  const loaded = init.plugins ?? [];
  return loaded.length
    ? `plugins loaded: ${loaded.join(', ')} (a Claude Code version skillprobe has not measured; see docs/cli-facts.md)`
    : undefined;
}

/** The lab's whole menu, and tools a field trial may run: reading files and the skill tool. */
export const FIELD_ALLOWED = ['Read', 'Glob', 'Grep', 'Skill'] as const;

/**
 * The tools a field trial runs: the lab's menu and the lookup that loads a deferred tool's schema (ToolSearch, from
 * 2.1.332: it reads the CLI's own tool list, and the tool it loads is refused like any other). Every other call is
 * refused.
 */
export const FIELD_RUNS: readonly string[] = [...FIELD_ALLOWED, 'ToolSearch'];

/**
 * The acting tools of the default menu, as its init event lists them (a sub-agent is `Task` there, `Agent` in the
 * model's calls): a field trial must show each offered, or its menu is not the one users get.
 */
export const FIELD_ACTING_TOOLS = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Task'] as const;

/** The names a call may use for a tool the init event lists (the sub-agent tool answers to both). */
const ALIASES: Readonly<Record<string, readonly string[]>> = { Task: ['Task', 'Agent'] };

/** Whether a call of `name` is an acting call the CLI offered: a call to a tool it never offered is no choice. */
export function isOfferedActingCall(name: string, offered: readonly string[]): boolean {
  return FIELD_ACTING_TOOLS.some((tool) => (ALIASES[tool] ?? [tool]).includes(name) && offered.includes(tool));
}

/**
 * The hook's matcher (a regular expression over tool names): every tool but the allowed ones and the trial's MCP tools
 * that only read (`readOnlyMcp`, tool names or `<name>.*` patterns of the names' safe characters).
 */
const refusedTools = (readOnlyMcp: readonly string[]) => `^(?!(${[...FIELD_RUNS, ...readOnlyMcp].join('|')})$).*`;

/**
 * The hooks a field trial is started with: the trial's MCP tools that only read (`readOnlyMcp`) run as reads do, any
 * other MCP tool's call is refused as acting.
 */
export function fieldHooks(readOnlyMcp: readonly string[] = []): { PreToolUse: unknown[] } {
  const decision = {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: FIELD_REFUSAL },
  };
  // printf prints its argument as given; the JSON holds no single quote, so the shell passes it whole.
  const command = `printf '%s' '${JSON.stringify(decision)}'`;
  return { PreToolUse: [{ matcher: refusedTools(readOnlyMcp), hooks: [{ type: 'command', command }] }] };
}

/**
 * The settings file a trial is started with (`--settings`): its hooks, and outside the field the built-in plugins
 * turned off, so that only the skills under test are listed (a version's plugins bring skills that
 * `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS` leaves listed).
 */
export function trialSettings(hooks: Record<string, unknown[] | undefined>, field: boolean): string {
  const settings = {
    // A project's `.claude/settings.json` that sets `disableAllHooks` would switch the hooks off (measured): these
    // settings, given on the command line, win over it.
    ...(Object.keys(hooks).length ? { disableAllHooks: false, hooks } : {}),
    ...(field ? {} : { enabledPlugins: BUILTIN_PLUGINS_OFF }),
  };
  return JSON.stringify(settings, null, 2) + '\n';
}

/** The settings of a field trial with no other hook. */
export const fieldSettings = (readOnlyMcp: readonly string[] = []): string => trialSettings(fieldHooks(readOnlyMcp), true);

/** Claude Code's refusal before every CLI shared one: a run stored then holds it, and is graded again as it was. */
const EARLIER_REFUSAL = 'skillprobe field trial: this tool call was refused before it ran; nothing was executed.';

/** Input validation runs before the hook and answers this way; such a call never ran either. */
const VALIDATION_ERROR = /^<tool_use_error>/;

/**
 * Why a field trial's evidence does not prove that nothing ran, or undefined: the default menu listed, every call but
 * a read or the skill tool answered by a refusal (or refused by the CLI's own input check), the workspace unchanged.
 */
export function fieldEvidenceProblem(t: Transcript, expected: Pick<IsolationExpectation, 'workspaceChanged' | 'mcp'>): string | undefined {
  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  if (!init) return 'no init event: cannot verify the tools the agent offered';
  const missing = FIELD_ACTING_TOOLS.filter((tool) => !init.tools.includes(tool));
  if (missing.length) return `field: the default tools are not all offered (missing ${missing.join(', ')})`;
  const results = new Map(t.events.filter((e): e is ToolResultEvent => e.kind === 'tool_result').map((e) => [e.id, e]));
  // An MCP tool that only reads runs in the field as a read does.
  const readOnlyMcp = (name: string) => {
    const named = claudeMcpTool(name);
    const server = named && expected.mcp?.find((s) => s.name === named.server);
    return server !== undefined && readsOnly(server, named!.tool);
  };
  const ran = t.events
    .filter((e): e is ToolCallEvent => e.kind === 'tool_call' && !FIELD_RUNS.includes(e.name) && !readOnlyMcp(e.name))
    .filter((call) => {
      const result = results.get(call.id);
      // Fails closed: a call with no answer recorded may have been running when the trial ended.
      const refused = (text: string) => VALIDATION_ERROR.test(text) || [FIELD_REFUSAL, EARLIER_REFUSAL].some((r) => text.includes(r));
      return !(result?.isError && refused(result.text));
    });
  if (ran.length) return `field: ${ran.map((c) => c.name).join(', ')} not answered by a refusal`;
  return fieldWorkspaceProblem(expected);
}
