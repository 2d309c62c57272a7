import type { ActingCall } from './acting-calls.js';
import { ACT_KINDS, type ActKind } from '../conversation.js';

/** A part of a Gemini model turn: text, or a function call. */
export type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

/** The Gemini CLI 0.61 tool for each act, and its arguments for a call (the schemas it offers). */
const TOOLS: Record<ActKind, { name: string; args: (call: ActingCall) => Record<string, unknown> }> = {
  shell: { name: 'run_shell_command', args: (c) => ({ command: c.target }) },
  write: { name: 'write_file', args: (c) => ({ file_path: c.target, content: c.content ?? '' }) },
  // The fetch tool takes a prompt holding the URLs; its own model call fetches them.
  fetch: { name: 'web_fetch', args: (c) => ({ prompt: `Fetch ${c.target} and summarise what it says.` }) },
  // `generalist` is the sub-agent the CLI lists for any task.
  agent: { name: 'invoke_agent', args: (c) => ({ agent_name: 'generalist', prompt: c.target }) },
};

/** An acting call as Gemini's model makes it, or undefined when the request did not offer its tool. */
export function geminiActingCall(call: ActingCall, tools: readonly string[]): Part | undefined {
  const tool = TOOLS[call.act];
  return tools.includes(tool.name) ? { functionCall: { name: tool.name, args: tool.args(call) } } : undefined;
}

/** The acts the request offered Gemini a tool for (what the view reports as the model's ways to act). */
export const geminiActs = (tools: readonly string[]): ActKind[] => ACT_KINDS.filter((act) => tools.includes(TOOLS[act].name));
