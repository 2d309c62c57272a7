import { InputError } from '../util/input-error.js';
import { claudeCode } from './claude-code/adapter.js';
import { codex } from './codex/adapter.js';
import { gemini } from './gemini/adapter.js';
import type { FixtureSeal } from '../load/fixtures.js';
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

/**
 * What no fixture of a suite may be named, whichever agent runs it: every CLI's instruction files, the folders it
 * reads skills, settings or hooks from (its skills folder's first part among them), and the workspace's own `.git`.
 */
export function fixtureSeal(): FixtureSeal {
  const all = Object.values(ADAPTERS);
  const instructionFiles = [...new Set(all.flatMap((a) => a.instructionFiles))];
  const folders = all.flatMap((a) => [...a.ancestorLeaks.filter((n) => !instructionFiles.includes(n)), a.skillsFolder.split('/')[0]!]);
  return { folders: [...new Set(['.git', ...folders])], instructionFiles };
}
