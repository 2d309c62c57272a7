import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareMcpServers } from '../mcp-servers.js';
import type { InvocationRequest } from '../types.js';
import { geminiFieldPolicy, geminiFieldSettings } from './field.js';
import { geminiMcpServers } from './mcp.js';
import { policyFile } from './settings.js';

/**
 * Writes a field trial's user settings (the default menu, the trial's MCP servers) and admin policy (every acting call
 * refused) where the lab's go: the invocation is the lab's, which names that policy.
 */
export async function prepareGeminiField(req: InvocationRequest): Promise<void> {
  const servers = req.mcp ?? [];
  await mkdir(join(req.home, '.gemini'), { recursive: true });
  await writeFile(
    join(req.home, '.gemini', 'settings.json'),
    geminiFieldSettings(req, geminiMcpServers(await prepareMcpServers(req), servers)),
  );
  await writeFile(policyFile(req.harnessDir), geminiFieldPolicy(servers));
}
