import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InvocationRequest } from '../types.js';
import { geminiFieldPolicy, geminiFieldSettings } from './field.js';
import { policyFile } from './settings.js';

/**
 * Writes a field trial's user settings (the default menu, the trial's MCP servers) and admin policy (every acting call
 * refused) where the lab's go: the invocation is the lab's, which names that policy.
 */
export async function prepareGeminiField(req: InvocationRequest, mcpServers: Record<string, unknown>): Promise<void> {
  await mkdir(join(req.home, '.gemini'), { recursive: true });
  await writeFile(join(req.home, '.gemini', 'settings.json'), geminiFieldSettings(req, mcpServers));
  await writeFile(policyFile(req.harnessDir), geminiFieldPolicy(req.mcp ?? []));
}
