import type { TrialEvidence } from '../../run/schema.js';
import type { Transcript, TranscriptEvent } from '../../transcript/types.js';
import { isPlainObject } from '../../util/json.js';
import { shellWords } from '../../util/shell-words.js';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { readJsonLines, str, type Json, type TranscriptLines } from '../json-lines.js';
import { HOOK_SHELL_TOOL, isActingCall, isSkillRead, SCRIPT_TOOL, type HookCall, type HookRecord } from './field.js';
import { SHELL_TOOL } from './parse.js';
import { codexMcpServer, codexMcpTool } from './mcp-names.js';

/**
 * What a Codex field trial leaves to check that nothing ran: its `--json` stream shows what ran (a refused call shows
 * there not at all), its session record (the rollout) each call the model made and the answer it was sent.
 */

/** The words Codex puts before the reason a PreToolUse hook refused with: for a command or a patch, for any other tool. */
const HOOK_REFUSED = ['Command blocked by PreToolUse hook: ', 'Tool call blocked by PreToolUse hook: '];

/** Whether a tool's output (as the model was sent it) is the field refusal. */
export const isCodexFieldRefusal = (output: string): boolean => HOOK_REFUSED.some((p) => output.includes(p + FIELD_REFUSAL));

/** Codex's answer to a call of a tool it did not offer (`unsupported call: x`, `unsupported custom tool call: x`): nothing ran. */
const NOT_OFFERED = /^unsupported (custom tool )?call: /;

/** The command inside Codex's `/bin/bash -lc '…'` wrapper, as its stream shows a command that ran. */
export function unwrappedCommand(command: string): string {
  const words = shellWords(command);
  return words.length === 3 && /^(\/bin\/|\/usr\/bin\/)?(ba)?sh$/.test(words[0]!) && words[1] === '-lc' ? words[2]! : command;
}

/**
 * Stream items that mean a tool ran: a command, a patch, a sub-agent, a web search. An MCP tool's call may run when
 * the tool only reads: the transcript holds each (`mcp_tool_call`), checked against the trial's servers (`fieldMcpProblem`).
 */
const RAN = new Set(['command_execution', 'file_change', 'collab_tool_call', 'web_search']);

const outputText = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : Array.isArray(output)
      ? output.map((p) => (isPlainObject(p) ? (str(p.text) ?? '') : '')).join('\n')
      : '';

/**
 * A call the model made, as the session record holds it, named as the hook names it. An MCP tool's call, in its
 * server's namespace (a model outside Codex's catalog), may run when the tool only reads: the stream shows it
 * (`mcp_tool_call`), checked against the trial's servers (`fieldMcpProblem`), as a script's is.
 */
function recordedCall(p: Json, cwd: string): HookCall | undefined {
  const name = str(p.name) ?? '';
  if (p.type === 'function_call' && codexMcpServer(str(p.namespace) ?? '') !== undefined) return undefined;
  if (p.type === 'function_call') {
    let args: unknown;
    try {
      args = JSON.parse(str(p.arguments) ?? '');
    } catch {
      args = {};
    }
    const input = isPlainObject(args) ? args : {};
    return name === SHELL_TOOL ? { tool: HOOK_SHELL_TOOL, input: { command: input.cmd }, cwd } : { tool: name, input, cwd };
  }
  // A script's nested calls are not in the record: each is its own hook call, and what ran shows in the stream.
  if (p.type === 'custom_tool_call' && name !== SCRIPT_TOOL) return { tool: name, input: { command: p.input }, cwd };
  return undefined;
}

/**
 * What a field trial's session record (the rollout) says: the working folder its commands ran in (empty without a
 * record), and why it fails, if it does: a code-mode menu without the script tool, or an acting call whose answer is
 * neither the refusal nor Codex's word that no such tool was offered. Pure: the rollout's text in.
 */
export function sessionFieldProblem(rollout: string): { cwd: string; problem?: string } {
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
  if (listed && !listed.includes(`"name":"${SCRIPT_TOOL}"`))
    return { cwd, problem: `the model was not offered the shell (no "${SCRIPT_TOOL}" tool)` };
  const notRun = (output = '') => isCodexFieldRefusal(output) || NOT_OFFERED.test(output);
  const unrefused = calls.find(({ id, call }) => isActingCall(call) && !notRun(outputs.get(id)));
  if (!unrefused) return { cwd };
  return {
    cwd,
    problem: `the acting call ${unrefused.call.tool} was not refused: ${(outputs.get(unrefused.id) ?? 'no answer').slice(0, 200)}`,
  };
}

/**
 * What a field trial's stream (`codex exec --json`) shows ran, if anything did but a skill read: a command (run in
 * `cwd`), a patch, a sub-agent, a web search. Refused calls never show there. Pure: the stream's text in.
 */
export function ranInStream(stream: TranscriptLines, cwd: string): string | undefined {
  let ran: string | undefined;
  readJsonLines(stream, (ev) => {
    const item = isPlainObject(ev.item) ? ev.item : undefined;
    const type = str(item?.type) ?? '';
    if (ran !== undefined || ev.type !== 'item.started' || !RAN.has(type)) return;
    const command = unwrappedCommand(str(item?.command) ?? '');
    if (type !== 'command_execution' || !isSkillRead(command, cwd))
      ran = type === 'command_execution' ? `a command ran: ${command}` : `a ${type} ran`;
  });
  return ran;
}

/** The hook's log (`field-hook-main.ts`), read: each call the model made, in order, with whether it was refused. Pure. */
export function hookRecords(log: string): HookRecord[] {
  const records: HookRecord[] = [];
  readJsonLines(log, (r) => {
    if (typeof r.tool === 'string' && typeof r.refused === 'boolean')
      records.push({ tool: r.tool, input: isPlainObject(r.input) ? r.input : {}, refused: r.refused });
  });
  return records;
}

/** A refused call as the canonical transcript holds it: an acting call (an MCP tool's: the model chose it), answered by the refusal. */
function refusedEvents(record: HookRecord, n: number): TranscriptEvent[] {
  const id = `field-hook-${n}`;
  const mcp = codexMcpTool(record.tool);
  return [
    {
      kind: 'tool_call',
      source: 'assistant',
      id,
      name: record.tool,
      input: record.input,
      ...(mcp ? { intent: 'mcp', mcp } : { intent: 'act' }),
    },
    { kind: 'tool_result', source: 'tool', id, isError: true, text: FIELD_REFUSAL },
  ];
}

/**
 * A field trial's transcript with what its stream cannot show: each call the hook refused, as an acting call placed
 * among the commands that ran in the order the hook saw them (the hook is handed every call, the stream shows only
 * those that ran), and on the init event what the stream and the session record say ran or went unrefused. Only
 * refused calls act: a skill read through the shell, which the hook lets run, stays what the stream made of it. Pure.
 */
export function withFieldRecord(t: Transcript, stream: TranscriptLines, field: NonNullable<TrialEvidence['field']>): Transcript {
  const hook = field.hook;
  let next = 0;
  let refused = 0;
  const events: TranscriptEvent[] = [];
  /** The refused calls before the next call the hook let run through the shell (with `all`, every one left). */
  const flush = (all: boolean) => {
    for (; next < hook.length; next++) {
      const r = hook[next]!;
      if (r.refused) events.push(...refusedEvents(r, refused++));
      else if (!all && r.tool === HOOK_SHELL_TOOL) return void next++;
    }
  };
  for (const e of t.events) {
    // A command's own call (one command reading several skills adds `id/skill` calls after its result).
    if (e.kind === 'tool_call' && e.name === SHELL_TOOL && !e.id.includes('/')) flush(false);
    if (e.kind === 'result') flush(true);
    if (e.kind === 'init') {
      const problem = ranInStream(stream, e.cwd) ?? field.sessionProblem;
      events.push({ ...e, fieldRecord: problem ? { problem } : {} });
    } else events.push(e);
  }
  flush(true);
  return { ...t, events };
}
