import { posix } from 'node:path';
import { stringify } from 'smol-toml';
import { isPlainObject } from '../../util/json.js';
import { shellWord, shellWords } from '../../util/shell-words.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { readJsonLines, str, type Json, type TranscriptLines } from '../json-lines.js';
import { codexConfigTable, type ConfigRequest } from './config.js';
import { SKILLS_FOLDER } from './parse.js';

/**
 * Codex CLI 0.169 in the field: its default tool menu stays offered, and every acting call is refused before it runs
 * by a PreToolUse hook of the harness's own (`field-hook-main.ts`), the one permission layer of this CLI that answers
 * every tool, code-mode scripts' nested calls included, with words the model reads. Measured: exec policy rules
 * match command prefixes only (no rule refuses every command, none reaches a patch or a sub-agent), and approval
 * policies run a command in the sandbox rather than refuse it. The read-only sandbox stays on behind the hook.
 */

/** The name Codex's hooks give its shell, however the model reached it (`exec_command`, or a script's nested call). */
export const HOOK_SHELL_TOOL = 'Bash';
/** The model's own names for the shell: the function tool, and the code-mode tool whose scripts call it. */
const SHELL_FUNCTION = 'exec_command';
const SCRIPT_TOOL = 'exec';

/**
 * Tools that change nothing outside the conversation: image and MCP-resource reads, questions, goals, waits, tool
 * search. Every other tool acts, one this list does not know included, so a new tool of a later version is refused.
 */
export const NON_ACTING_TOOLS: readonly string[] = [
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

/** The words Codex puts before the reason a PreToolUse hook refused with: for a command or a patch, for any other tool. */
const HOOK_REFUSED = ['Command blocked by PreToolUse hook: ', 'Tool call blocked by PreToolUse hook: '];

/** Whether a tool's output (as the model was sent it) is the field refusal. */
export const isCodexFieldRefusal = (output: string): boolean => HOOK_REFUSED.some((p) => output.includes(p + FIELD_REFUSAL));

/** A call the hook refused, as its answer names it: the command (or patch) for the shell and patches, else the tool. */
export interface RefusedCall {
  /** The model's call whose answer it is (a code-mode script's, for its nested calls). */
  callId: string;
  tool: string;
  command?: string;
}

const REFUSAL_NAMING = /(?:Command|Tool call) blocked by PreToolUse hook: (.*?)\. (Command|Tool): ([\s\S]*)$/;
const PATCH_START = '*** Begin Patch';

/**
 * The calls the field hook refused, in the order the model made them, read from the answers in a session record
 * (the rollout): the `--json` stream shows none of them, and a code-mode script's nested calls show only in its
 * answer. Pure: the rollout's text in.
 */
export function refusedCalls(rollout: string): RefusedCall[] {
  const refused: RefusedCall[] = [];
  readJsonLines(rollout, (entry) => {
    const p = isPlainObject(entry.payload) ? entry.payload : undefined;
    if (entry.type !== 'response_item' || !p || typeof p.type !== 'string' || !p.type.endsWith('_call_output')) return;
    const m = REFUSAL_NAMING.exec(outputText(p.output));
    if (!m || m[1] !== FIELD_REFUSAL) return;
    const callId = str(p.call_id) ?? '';
    if (m[2] === 'Tool') refused.push({ callId, tool: m[3]!.trim() });
    else refused.push({ callId, tool: m[3]!.startsWith(PATCH_START) ? 'apply_patch' : HOOK_SHELL_TOOL, command: m[3]! });
  });
  return refused;
}

/** Codex's answer to a call of a tool it did not offer (`unsupported call: x`, `unsupported custom tool call: x`): nothing ran. */
const NOT_OFFERED = /^unsupported (custom tool )?call: /;

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
 * SKILL.md directly in a folder of `roots` (by default the workspace's skills folder). That read is Codex's skill
 * trigger, the one command a field trial lets run (inside the read-only sandbox); every other command acts.
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
    return posix.basename(path) === 'SKILL.md' && roots.some((r) => posix.dirname(posix.dirname(path)) === posix.normalize(r));
  };
  return files.length > 0 && files.every(inRoot);
}

/** A tool call as Codex's PreToolUse hook is handed it: `tool_name`, `tool_input` (`command` for the shell and patches). */
export interface HookCall {
  tool: string;
  input: Json;
  cwd: string;
}

/** Whether a call acts (and is refused in the field): anything but a skill read through the shell and the non-acting tools. */
export function isActingCall(call: HookCall): boolean {
  if (call.tool === HOOK_SHELL_TOOL) return !isSkillRead(str(call.input.command) ?? '', call.cwd);
  return !NON_ACTING_TOOLS.includes(call.tool);
}

/** What the hook answers the JSON it reads on stdin: nothing (the call goes on), or the refusal, for any input it cannot read too. */
export function hookDecision(stdin: string): { refuse: boolean } {
  let input: unknown;
  try {
    input = JSON.parse(stdin);
  } catch {
    return { refuse: true };
  }
  if (!isPlainObject(input) || typeof input.tool_name !== 'string') return { refuse: true };
  const call = { tool: input.tool_name, input: isPlainObject(input.tool_input) ? input.tool_input : {}, cwd: str(input.cwd) ?? '' };
  return { refuse: isActingCall(call) };
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
    hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: hookCommand, timeout: 30 }] }] },
  });
}

/** The hook's command line: this Node running the compiled hook entry. */
export const hookCommandLine = (node: string, entry: string): string => `${shellWord(node)} ${shellWord(entry)}`;

/**
 * `codex exec`'s extra flag in the field: a hook runs only once trusted, and trust is stored per hook in the user's
 * config by the interactive CLI; this flag trusts the trial's own hook for the one invocation.
 */
export const FIELD_FLAGS = ['--dangerously-bypass-hook-trust'];

/** The command inside Codex's `/bin/bash -lc '…'` wrapper, as its stream shows a command that ran. */
export function unwrappedCommand(command: string): string {
  const words = shellWords(command);
  return words.length === 3 && /^(\/bin\/|\/usr\/bin\/)?(ba)?sh$/.test(words[0]!) && words[1] === '-lc' ? words[2]! : command;
}

/** Stream items that mean a tool ran: a command, a patch, a sub-agent, an MCP tool, a web search. */
const RAN = new Set(['command_execution', 'file_change', 'collab_tool_call', 'mcp_tool_call', 'web_search']);

const outputText = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : Array.isArray(output)
      ? output.map((p) => (isPlainObject(p) ? (str(p.text) ?? '') : '')).join('\n')
      : '';

/** A call the model made, as the session record holds it, named as the hook names it. */
function recordedCall(p: Json, cwd: string): HookCall | undefined {
  const name = str(p.name) ?? '';
  if (p.type === 'function_call') {
    let args: unknown;
    try {
      args = JSON.parse(str(p.arguments) ?? '');
    } catch {
      args = {};
    }
    const input = isPlainObject(args) ? args : {};
    return name === SHELL_FUNCTION ? { tool: HOOK_SHELL_TOOL, input: { command: input.cmd }, cwd } : { tool: name, input, cwd };
  }
  // A script's nested calls are not in the record: each is its own hook call, and what ran shows in the stream.
  if (p.type === 'custom_tool_call' && name !== SCRIPT_TOOL) return { tool: name, input: { command: p.input }, cwd };
  return undefined;
}

/**
 * Why a field trial's evidence fails (undefined when it holds): its stream (`codex exec --json`) shows a tool that
 * ran other than a skill read, or its session record (the rollout) holds an acting call whose answer is neither the
 * refusal nor Codex's word that no such tool was offered, or a code-mode menu without the script tool. Pure: both
 * texts in.
 */
export function codexFieldProblem(stream: TranscriptLines, rollout: string): string | undefined {
  let cwd = '';
  const calls: { id: string; call: HookCall }[] = [];
  const outputs = new Map<string, string>();
  let listed: string[] | undefined;
  readJsonLines(rollout, (entry) => {
    const p = isPlainObject(entry.payload) ? entry.payload : undefined;
    if (!p) return;
    if (entry.type === 'session_meta') cwd = str(p.cwd) ?? '';
    if (entry.type !== 'response_item') return;
    if (p.type === 'additional_tools') listed = JSON.stringify(p.tools).match(/"name":"[^"]+"/g) ?? [];
    const call = recordedCall(p, cwd);
    if (call) calls.push({ id: str(p.call_id) ?? '', call });
    if (typeof p.type === 'string' && p.type.endsWith('_call_output')) outputs.set(str(p.call_id) ?? '', outputText(p.output));
  });
  if (!cwd) return 'no Codex session record: cannot verify that every acting call was refused';
  if (listed && !listed.includes(`"name":"${SCRIPT_TOOL}"`)) return `the model was not offered the shell (no "${SCRIPT_TOOL}" tool)`;
  let ran: string | undefined;
  readJsonLines(stream, (ev) => {
    const item = isPlainObject(ev.item) ? ev.item : undefined;
    const type = str(item?.type) ?? '';
    if (ran !== undefined || ev.type !== 'item.started' || !RAN.has(type)) return;
    const command = unwrappedCommand(str(item?.command) ?? '');
    if (type !== 'command_execution' || !isSkillRead(command, cwd))
      ran = type === 'command_execution' ? `a command ran: ${command}` : `a ${type} ran`;
  });
  if (ran) return ran;
  const notRun = (output = '') => isCodexFieldRefusal(output) || NOT_OFFERED.test(output);
  const unrefused = calls.find(({ id, call }) => isActingCall(call) && !notRun(outputs.get(id)));
  return unrefused && `the acting call ${unrefused.call.tool} was not refused: ${(outputs.get(unrefused.id) ?? 'no answer').slice(0, 200)}`;
}
