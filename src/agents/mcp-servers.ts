import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOnlyTools, type McpServer } from '../load/mcp.js';
import { readStubRecord } from '../mcp/record.js';
import { STUB_MAIN, WATCH_MAIN } from '../mcp/stub-entry.js';
import type { TrialEvidence } from '../run/schema.js';
import type { InvocationRequest } from './types.js';

/**
 * The MCP servers of a trial as every CLI starts them over stdio, each with this Node (`process.execPath`) from an
 * entry of the package's own: the built-in stub, reading its tools from a file beside the trial and recording each
 * call to another, both in the trial's harness folder, outside anything the model can read; a real server as the suite
 * named it, under a watch that records whether it started (the same folder).
 */
export interface McpLaunch {
  name: string;
  command: string;
  args: string[];
  /** Variables the server gets beyond what the CLI passes on: a real server's allowlisted ones, from the caller. */
  env: Record<string, string>;
}

const folder = (req: Pick<InvocationRequest, 'harnessDir'>) => join(req.harnessDir, 'mcp');
/** Where a server's record goes (a stub's calls, a real server's start), read back after the trial. */
export const mcpRecordFile = (req: Pick<InvocationRequest, 'harnessDir'>, server: string) => join(folder(req), `${server}.record.jsonl`);

/** The caller's values of the variables a real server may see (a name the caller does not set is left out). */
export const allowlistedEnv = (names: readonly string[], callerEnv: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(names.flatMap((n) => (callerEnv[n] ? [[n, callerEnv[n]!]] : [])));

/** Writes each stub's tools where its server will read them; returns how the CLI starts every server. */
export async function prepareMcpServers(req: Pick<InvocationRequest, 'harnessDir' | 'callerEnv' | 'mcp'>): Promise<McpLaunch[]> {
  const servers = req.mcp ?? [];
  if (servers.length === 0) return [];
  await mkdir(folder(req), { recursive: true });
  return Promise.all(
    servers.map(async (s: McpServer): Promise<McpLaunch> => {
      const record = mcpRecordFile(req, s.name);
      if (s.kind === 'command')
        return {
          name: s.name,
          command: process.execPath,
          args: [WATCH_MAIN, record, s.cwd, s.command, ...s.args],
          env: allowlistedEnv(s.env, req.callerEnv),
        };
      const spec = join(folder(req), `${s.name}.stub.json`);
      await writeFile(spec, JSON.stringify({ server: s.name, stub: s.stub }));
      return { name: s.name, command: process.execPath, args: [STUB_MAIN, spec, record], env: {} };
    }),
  );
}

/**
 * What each server recorded (a stub: started, and every call it answered; a real server's watch: started, and how it
 * ended by itself): the trial's evidence of what its tools did. A server that left no record never started; a record
 * cut short by a kill keeps its whole lines.
 */
export async function collectMcpEvidence(req: Pick<InvocationRequest, 'harnessDir' | 'mcp'>): Promise<TrialEvidence> {
  const servers = req.mcp ?? [];
  if (servers.length === 0) return {};
  const records = await Promise.all(
    servers.map(async (s) => {
      const text = await readFile(mcpRecordFile(req, s.name), 'utf8').catch(() => '');
      return { server: s.name, ...readStubRecord(text) };
    }),
  );
  return { mcp: records };
}

/**
 * Each server as a CLI's config names one (`command`, `args`, `env`), with what that CLI adds given the server's tools
 * that only read (`onlyReads('all')`: trusted, approved; else the tools by name, none for a server the suite did not mark).
 */
export const serverEntries = (
  launches: readonly McpLaunch[],
  servers: readonly McpServer[],
  onlyReads: (tools: 'all' | readonly string[]) => Record<string, unknown>,
): Record<string, Record<string, unknown>> =>
  Object.fromEntries(
    launches.map((l) => {
      const server = servers.find((s) => s.name === l.name);
      return [l.name, { command: l.command, args: l.args, env: l.env, ...onlyReads(server ? readOnlyTools(server) : []) }];
    }),
  );
