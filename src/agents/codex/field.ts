import { posix } from 'node:path';
import { stringify } from 'smol-toml';
import { isPlainObject } from '../../util/json.js';
import { shellWord, shellWords } from '../../util/shell-words.js';
import { str, type Json } from '../json-lines.js';
import { codexConfigTable, type ConfigRequest } from './config.js';
import { SKILLS_FOLDER } from './parse.js';
import { bundledSkillOf } from './bundled.js';

/**
 * Codex CLI 0.169 in the field: its default tool menu stays offered, and every acting call is refused before it runs
 * by a PreToolUse hook of the harness's own (`field-hook-main.ts`), the one permission layer of this CLI that answers
 * every tool, code-mode scripts' nested calls included, with words the model reads. Measured: exec policy rules
 * match command prefixes only (no rule refuses every command, none reaches a patch or a sub-agent), and approval
 * policies run a command in the sandbox rather than refuse it. The read-only sandbox stays on behind the hook.
 */

/** The name Codex's hooks give its shell, however the model reached it (`exec_command`, or a script's nested call). */
export const HOOK_SHELL_TOOL = 'Bash';
/** The code-mode tool whose scripts call the shell (and every other tool) as nested calls. */
export const SCRIPT_TOOL = 'exec';

/**
 * Tools that change nothing outside the conversation: image and MCP-resource reads, questions, goals, waits, tool
 * search. Every other tool acts, one this list does not know included, so a new tool of a later version is refused.
 */
const NON_ACTING_TOOLS: readonly string[] = [
  'view_image',
  'request_user_input',
  'request_user_input_async',
  'get_goal',
  'create_goal',
  'update_goal',
  'update_plan',
  'wait',
  'sleep',
  'tool_search',
  'list_mcp_resources',
  'list_mcp_resource_templates',
  'read_mcp_resource',
];

/** Characters that make a command line more than one plain command: operators, redirections, expansions, globs. */
const SHELL_SYNTAX = /[;&|<>`$(){}[\]*?~!#\\\n\r]/;

/** Each reader's options that only choose what it prints, by how many words of value follow them. */
const READER_OPTIONS: Record<string, (opt: string) => number | undefined> = {
  cat: (o) => (/^-[nbsAETv]+$/.test(o) ? 0 : undefined),
  nl: (o) => (/^-[a-z]+$/.test(o) ? 0 : undefined),
  head: (o) => (/^-[nc]$/.test(o) ? 1 : /^-(\d+|[nc]\d+)$/.test(o) ? 0 : undefined),
  tail: (o) => (/^-[nc]$/.test(o) ? 1 : /^-(\d+|[nc]\d+)$/.test(o) ? 0 : undefined),
  // Only `-n`, with a script that prints a range (below): any other sed script may write (`w`) or run (`e`).
  sed: (o) => (o === '-n' ? 0 : undefined),
};
const SED_PRINT_RANGE = /^\d+(,\d+)?p$/;

/**
 * Whether a shell command is Codex's own read of a skill: one plain command of a file reader, every file it names a
 * SKILL.md directly in a folder of `roots` (by default the workspace's skills folder) or one of Codex's bundled
 * skills. That read is Codex's skill trigger, the one command a field trial lets run (inside the read-only sandbox);
 * every other command acts.
 */
export function isSkillRead(command: string, cwd: string, roots: readonly string[] = [posix.join(cwd, SKILLS_FOLDER)]): boolean {
  if (!posix.isAbsolute(cwd) || SHELL_SYNTAX.test(command)) return false;
  const [program = '', ...args] = shellWords(command);
  const option = READER_OPTIONS[program];
  if (!option) return false;
  const files: string[] = [];
  let sedScript = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('-')) {
      const takes = option(arg);
      if (takes === undefined || i + takes >= args.length) return false;
      i += takes;
    } else if (program === 'sed' && !sedScript) {
      if (!SED_PRINT_RANGE.test(arg)) return false;
      sedScript = true;
    } else files.push(arg);
  }
  if (program === 'sed' && !(sedScript && args.includes('-n'))) return false;
  const inRoot = (f: string) => {
    const path = posix.resolve(cwd, f);
    const inRoots = roots.some((r) => posix.dirname(posix.dirname(path)) === posix.normalize(r));
    return posix.basename(path) === 'SKILL.md' && (inRoots || bundledSkillOf(path) !== undefined);
  };
  return files.length > 0 && files.every(inRoot);
}

/** A tool call as Codex's PreToolUse hook is handed it: `tool_name`, `tool_input` (`command` for the shell and patches). */
export interface HookCall {
  tool: string;
  input: Json;
  cwd: string;
}

/**
 * Whether a call's tool is one of the trial's MCP tools that only read: `readOnlyMcp` holds tool names as the hook is
 * handed them (`mcp__<server>__<tool>`), or a whole server's `mcp__<server>__*`.
 */
export const isReadOnlyMcpCall = (tool: string, readOnlyMcp: readonly string[]): boolean =>
  readOnlyMcp.some((name) => (name.endsWith('*') ? tool.startsWith(name.slice(0, -1)) : tool === name));

/**
 * Whether a call acts (and is refused in the field): anything but a skill read through the shell, the non-acting
 * tools, and the trial's MCP tools that only read (`readOnlyMcp`, see `isReadOnlyMcpCall`).
 */
export function isActingCall(call: HookCall, readOnlyMcp: readonly string[] = []): boolean {
  if (call.tool === HOOK_SHELL_TOOL) return !isSkillRead(str(call.input.command) ?? '', call.cwd);
  return !NON_ACTING_TOOLS.includes(call.tool) && !isReadOnlyMcpCall(call.tool, readOnlyMcp);
}

/** What the hook answers the JSON it reads on stdin: nothing (the call goes on), or the refusal, for any input it cannot read too. */
export function hookDecision(stdin: string, readOnlyMcp: readonly string[] = []): { refuse: boolean } {
  let input: unknown;
  try {
    input = JSON.parse(stdin);
  } catch {
    return { refuse: true };
  }
  if (!isPlainObject(input) || typeof input.tool_name !== 'string') return { refuse: true };
  const call = { tool: input.tool_name, input: isPlainObject(input.tool_input) ? input.tool_input : {}, cwd: str(input.cwd) ?? '' };
  return { refuse: isActingCall(call, readOnlyMcp) };
}

/**
 * The field trial's `$CODEX_HOME/config.toml`: the lab's (`codexConfigTable`) with the default menu back (sub-agents,
 * goals) and the refusing hook on every tool. Still off: hosted web search (the provider fetches, no hook can stop
 * it), and what phones home or runs at start (apps, plugins, memories, the shell snapshot).
 */
export function codexFieldConfig(req: ConfigRequest, hookCommand: string): string {
  const { agents: _agents, ...lab } = codexConfigTable(req);
  const { goals: _goals, ...features } = isPlainObject(lab.features) ? lab.features : {};
  return stringify({
    ...lab,
    features: { ...features, hooks: true },
    // The skills Codex bundles (written under `$CODEX_HOME/skills/.system` on first run) listed, as a default session lists them.
    skills: { bundled: { enabled: true } },
    hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: hookCommand, timeout: 30 }] }] },
  });
}

/**
 * The hook's command line: this Node running the compiled hook entry, which appends each call to `log` and lets the
 * trial's read-only MCP tools (`readOnlyMcp`, see `isReadOnlyMcpCall`) run.
 */
export const hookCommandLine = (node: string, entry: string, log: string, readOnlyMcp: readonly string[] = []): string =>
  [node, entry, log, ...readOnlyMcp].map(shellWord).join(' ');

/** One line of the hook's log: a call the model made (a code-mode script's nested calls each their own), in order. */
export interface HookRecord {
  tool: string;
  input: Json;
  refused: boolean;
}

/** The log line for the call the hook read on stdin and what it answered (a call it could not read has no tool). */
export function hookRecord(stdin: string, refused: boolean): string {
  let input: unknown;
  try {
    input = JSON.parse(stdin);
  } catch {
    input = undefined;
  }
  const o = isPlainObject(input) ? input : {};
  const record: HookRecord = { tool: str(o.tool_name) ?? '', input: isPlainObject(o.tool_input) ? o.tool_input : {}, refused };
  return `${JSON.stringify(record)}\n`;
}

/**
 * A field trial's `codex exec` arguments: the lab's, with the flag that runs the trial's own hook without a person's
 * trust (the CLI stores trust per hook, from its interactive review) before the `--` that ends the options.
 */
export function withFieldFlags(args: readonly string[]): string[] {
  const end = args.indexOf('--');
  const at = end < 0 ? args.length : end;
  return [...args.slice(0, at), '--dangerously-bypass-hook-trust', ...args.slice(at)];
}
