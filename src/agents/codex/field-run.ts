import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageFile } from '../../util/package-root.js';
import type { TrialEvidence } from '../../run/schema.js';
import type { InvocationRequest } from '../types.js';
import { codexHome, type ConfigRequest } from './config.js';
import { codexReadOnlyMcp } from './mcp.js';
import { hookRecords, sessionFieldProblem } from './field-evidence.js';
import { codexFieldConfig, hookCommandLine, type HookRecord } from './field.js';

// An entry of its own in the package's compiled modules, found from the command's bundle as from any module.
const HOOK_ENTRY = packageFile('dist', 'agents', 'codex', 'field-hook-main.js');

/** Where the hook logs each call of a trial: beside the trial's other harness files, outside the workspace. */
const hookLogFile = (harnessDir: string) => join(harnessDir, 'field-hook.jsonl');

/** Writes a field trial's config (the lab's, with the default menu and the refusing hook) where Codex reads it. */
export async function prepareCodexField(req: InvocationRequest & Pick<ConfigRequest, 'mcpServers'>): Promise<void> {
  await mkdir(codexHome(req.home), { recursive: true });
  const hook = hookCommandLine(process.execPath, HOOK_ENTRY, hookLogFile(req.harnessDir), codexReadOnlyMcp(req.mcp));
  await writeFile(join(codexHome(req.home), 'config.toml'), codexFieldConfig(req, hook));
}

/** The calls the hook logged in a trial, in order; none when it logged nothing. */
async function readHookLog(harnessDir: string): Promise<HookRecord[]> {
  return hookRecords(await readFile(hookLogFile(harnessDir), 'utf8').catch(() => ''));
}

/** A field trial's own evidence: the hook's log, and what its session record (when there is one) says went unrefused. */
export async function collectFieldEvidence(harnessDir: string, rollout: string | undefined): Promise<NonNullable<TrialEvidence['field']>> {
  const problem = rollout === undefined ? undefined : sessionFieldProblem(rollout).problem;
  return { hook: await readHookLog(harnessDir), ...(problem ? { sessionProblem: problem } : {}) };
}
