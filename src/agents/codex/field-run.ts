import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Invocation, InvocationRequest } from '../types.js';
import { codex, codexHome } from './adapter.js';
import { hookRecords } from './field-evidence.js';
import { codexFieldConfig, hookCommandLine, withFieldFlags, type HookRecord } from './field.js';

// Compiled beside this module (dist/agents/codex/), so it is found from an installed package too.
const HOOK_ENTRY = fileURLToPath(new URL('./field-hook-main.js', import.meta.url));

/** Where the hook logs each call of a trial: beside the trial's other harness files, outside the workspace. */
export const hookLogFile = (harnessDir: string) => join(harnessDir, 'field-hook.jsonl');

/** Writes a field trial's config (the lab's, with the default menu and the refusing hook) where Codex reads it. */
export async function prepareCodexField(req: InvocationRequest): Promise<void> {
  await mkdir(codexHome(req.home), { recursive: true });
  const hook = hookCommandLine(process.execPath, HOOK_ENTRY, hookLogFile(req.harnessDir));
  await writeFile(join(codexHome(req.home), 'config.toml'), codexFieldConfig(req, hook));
}

/** The calls the hook logged in a trial, in order; none when it logged nothing. */
export async function readHookLog(harnessDir: string): Promise<HookRecord[]> {
  return hookRecords(await readFile(hookLogFile(harnessDir), 'utf8').catch(() => ''));
}

/** A field trial's invocation: the lab's, with the flag that lets the trial's own hook run untrusted by a person. */
export function codexFieldInvocation(req: InvocationRequest): Invocation {
  const lab = codex.invocation(req);
  return { ...lab, args: withFieldFlags(lab.args) };
}
