import { existsSync } from 'node:fs';
import { DEFAULT_CONFIG_FILE } from '../load/config.js';
import { serversOf } from '../load/mcp.js';
import { loadSuite } from '../runner/load-suite.js';
import { startMcpServers } from '../runner/mcp-check.js';
import { placeText } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';

/** One real MCP server's start check, as `doctor` reports it. */
export interface ServerCheck {
  name: string;
  /** Where the suite names it: `file:line:col`. */
  at: string;
  /** How long it took to answer `initialize`, or to fail. */
  ms: number;
  /** Why it cannot serve a trial, and what to do; absent: it answered. */
  problem?: { what: string; todo: string };
}

export interface SuiteServers {
  /** The config file, as the user names it. */
  config: string;
  servers: ServerCheck[];
}

/**
 * The start check a run makes before any trial (`startMcpServers`), of each real MCP server the suite offers its
 * trials: the suite of the config `--config` names, else of skillprobe.config.yaml where there is one (undefined: no
 * suite here). A suite that does not load is refused as every command reading it refuses it (exit 2).
 */
export async function checkSuiteServers(
  config: string | undefined,
  io: { cwd: string; env: NodeJS.ProcessEnv },
  boundMs?: number,
): Promise<SuiteServers | undefined> {
  const file = config ?? DEFAULT_CONFIG_FILE;
  if (config === undefined && !existsSync(fromFolder(io.cwd, file))) return undefined;
  // What a run needs besides (the agent's binary and credentials, the judge) is not the servers' business.
  const loaded = loadSuite({ cwd: io.cwd, config, overrides: {}, callerEnv: io.env }, { run: false, judge: false });
  const starts = await startMcpServers(serversOf(loaded.suite.cases), { callerEnv: io.env }, boundMs);
  return {
    config: file,
    servers: starts.map(({ server, problem, ms }) => ({
      name: server.name,
      at: placeText(server.at),
      ms,
      ...(problem ? { problem: { what: problem.what, todo: problem.todo } } : {}),
    })),
  };
}
