import type { ActingCall } from './acting-calls.js';
import { ACT_KINDS, type ActKind } from '../conversation.js';
import { execScript, offersShell, SCRIPT_TOOL, shellArguments, shellOnlyThroughScripts, SHELL_TOOL } from './codex-commands.js';
import type { ModelReply } from './dialect.js';
import { shellWord } from '../../util/shell-words.js';

/** A call item of the Responses API, as the dialect streams it. */
interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** The namespace a namespaced tool (an MCP server's, the sub-agent tools) was offered in. */
  namespace?: string;
  arguments: string;
  status: 'completed';
}

interface CustomToolCallItem {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: 'completed';
}

export type CallItem = FunctionCallItem | CustomToolCallItem;

/** Code mode's script tool running `script`. */
export const scriptCall = (r: Pick<ModelReply, 'id'>, script: string, index: number): CallItem => ({
  type: 'custom_tool_call',
  id: `ct_${r.id}_${index}`,
  call_id: `call_${r.id}_${index}`,
  name: SCRIPT_TOOL,
  input: script,
  status: 'completed',
});

/** A function of a namespace the request offered (an MCP server's `mcp__<server>`, the sub-agent tools), called by its name in it. */
export const namespacedCall = (
  r: Pick<ModelReply, 'id'>,
  namespace: string,
  name: string,
  args: Record<string, unknown>,
  index: number,
): CallItem => ({
  type: 'function_call',
  id: `fc_${r.id}_${index}`,
  call_id: `call_${r.id}_${index}`,
  name,
  namespace,
  arguments: JSON.stringify(args),
  status: 'completed',
});

/** A shell command, run the way the request offered the shell. */
export function shellCall(r: Pick<ModelReply, 'id' | 'tools'>, cmd: string, index: number): CallItem {
  const call_id = `call_${r.id}_${index}`;
  return shellOnlyThroughScripts(r.tools)
    ? scriptCall(r, execScript(cmd), index)
    : { type: 'function_call', id: `fc_${r.id}_${index}`, call_id, name: SHELL_TOOL, arguments: shellArguments(cmd), status: 'completed' };
}

/** Codex 0.169's patch tool (offered by some models' metadata) and its sub-agent tool, in the namespace it is offered in. */
const PATCH_TOOL = 'apply_patch';
const AGENT_TOOL = 'spawn_agent';
/** The namespace of the sub-agent tools: `collaboration` beside code mode's script tool, `multi_agent_v1` otherwise. */
const agentNamespace = (tools: readonly string[]) => (tools.includes(SCRIPT_TOOL) ? 'collaboration' : 'multi_agent_v1');

/** A new file as the patch tool's grammar adds one. */
export const addFilePatch = (path: string, content: string): string =>
  `*** Begin Patch\n*** Add File: ${path}\n${content
    .split('\n')
    .map((line) => `+${line}`)
    .join('\n')}\n*** End Patch\n`;

/** A file written, and a URL fetched, through the shell. */
const writeCommand = (path: string, content: string): string => `printf '%s' ${shellWord(content)} > ${shellWord(path)}`;
const fetchCommand = (url: string): string => `curl -fsSL ${shellWord(url)}`;

/**
 * An acting call as Codex's model makes it, with the tools the request offered: a command, a fetch (`curl`) and a
 * write without the patch tool go through the shell (directly or in a script, as offered); a write with the patch
 * tool is a patch; a sub-agent is `spawn_agent`. Undefined when the request offered no tool for it.
 */
export function codexActingCall(r: Pick<ModelReply, 'id' | 'tools'>, call: ActingCall, index: number): CallItem | undefined {
  const shell = (command: string) => (offersShell(r.tools) ? shellCall(r, command, index) : undefined);
  const call_id = `call_${r.id}_${index}`;
  switch (call.act) {
    case 'shell':
      return shell(call.target);
    case 'fetch':
      return shell(fetchCommand(call.target));
    case 'write':
      if (!r.tools.includes(PATCH_TOOL)) return shell(writeCommand(call.target, call.content ?? ''));
      return {
        type: 'custom_tool_call',
        id: `ct_${r.id}_${index}`,
        call_id,
        name: PATCH_TOOL,
        input: addFilePatch(call.target, call.content ?? ''),
        status: 'completed',
      };
    case 'agent':
      if (!r.tools.includes(AGENT_TOOL)) return undefined;
      return namespacedCall(r, agentNamespace(r.tools), AGENT_TOOL, { message: call.target }, index);
  }
}

/** The acts the request offered Codex a tool for (what the view reports as the model's ways to act). */
export const codexActs = (tools: readonly string[]): ActKind[] =>
  ACT_KINDS.filter((act) => codexActingCall({ id: 'offered', tools }, { act, target: 'x' }, 0) !== undefined);
