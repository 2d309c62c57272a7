import { InputError } from '../util/input-error.js';
import { claudeCode } from './claude-code/adapter.js';
import { codex } from './codex/adapter.js';
import { gemini } from './gemini/adapter.js';
import type { AgentAdapter } from './types.js';

/** Every agent CLI skillprobe can drive, by the id stored in config and run.json. */
const ADAPTERS: Readonly<Record<string, AgentAdapter>> = { 'claude-code': claudeCode, codex, gemini };

/** The agent ids, in the registry's order: what `agent:` accepts. */
export const AGENT_IDS = Object.keys(ADAPTERS);

export function adapterFor(id: string, where = 'agent'): AgentAdapter {
  const adapter = ADAPTERS[id];
  if (!adapter)
    throw new InputError({ file: where, what: `unknown agent "${id}"`, todo: `use one of ${Object.keys(ADAPTERS).join(', ')}` });
  return adapter;
}
