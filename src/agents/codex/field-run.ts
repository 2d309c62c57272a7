import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Invocation, InvocationRequest } from '../types.js';
import { codex, codexHome } from './adapter.js';
import { codexFieldConfig, hookCommandLine, withFieldFlags } from './field.js';

// Compiled beside this module (dist/agents/codex/), so it is found from an installed package too.
const HOOK_ENTRY = fileURLToPath(new URL('./field-hook-main.js', import.meta.url));

/** Writes a field trial's config (the lab's, with the default menu and the refusing hook) where Codex reads it. */
export async function prepareCodexField(req: InvocationRequest): Promise<void> {
  await mkdir(codexHome(req.home), { recursive: true });
  await writeFile(join(codexHome(req.home), 'config.toml'), codexFieldConfig(req, hookCommandLine(process.execPath, HOOK_ENTRY)));
}

/** A field trial's invocation: the lab's, with the flag that lets the trial's own hook run untrusted by a person. */
export function codexFieldInvocation(req: InvocationRequest): Invocation {
  const lab = codex.invocation(req);
  return { ...lab, args: withFieldFlags(lab.args) };
}
