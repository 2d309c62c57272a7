// Loaded into every process of the unit pass (the test worker by its setup file, and every Node process it starts
// through NODE_OPTIONS), so no test there can start an agent CLI, directly or through a spawned skillprobe. Plain
// JavaScript with only Node's own modules, since a spawned `node dist/cli.js` loads it before anything else.
import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The variable naming the file where every blocked agent spawn, in any process of a test, is written down. */
export const SPAWN_LOG_VARIABLE = 'SKILLPROBE_TEST_AGENT_SPAWN_LOG';

/** The folders of the pinned agent CLIs' packages (and their platform packages): what a trial spawns. */
const AGENT_PACKAGE = /[\\/]node_modules[\\/](@anthropic-ai[\\/]claude-code|@openai[\\/]codex|@google[\\/]gemini-cli)/;

/** The agent CLI that `file args` would start (its path), or undefined: the file itself, or the script Node runs. */
export function agentCommand(file, args = []) {
  const isNode = file === process.execPath || /(^|[\\/])node(\.exe)?$/.test(file);
  // Node's script is its first argument that is no option; with -e, -p or --eval there is none.
  const script = isNode && !args.some((a) => /^(-e|-p|--eval|--print)$/.test(a)) ? args.find((a) => !a.startsWith('-')) : undefined;
  return [file, script].find((part) => typeof part === 'string' && AGENT_PACKAGE.test(part));
}

const require = createRequire(import.meta.url);
const childProcess = require('node:child_process');
const guardImport = `--import=${pathToFileURL(new URL(import.meta.url).pathname).href}`;

/** The environment a child gets, with this guard loaded into it too should it be Node (or start Node). */
function guardedEnv(env) {
  const base = env ?? process.env;
  const nodeOptions = base.NODE_OPTIONS ?? '';
  return {
    ...base,
    [SPAWN_LOG_VARIABLE]: process.env[SPAWN_LOG_VARIABLE] ?? base[SPAWN_LOG_VARIABLE] ?? '',
    NODE_OPTIONS: nodeOptions.includes(guardImport) ? nodeOptions : `${nodeOptions} ${guardImport}`.trim(),
  };
}

/** Writes the spawn down for the test's check and refuses it: a unit test must not pay for an agent CLI. */
function refuse(agent) {
  const log = process.env[SPAWN_LOG_VARIABLE];
  if (log) appendFileSync(log, `${agent}\n`);
  const error = new Error(`the unit pass may not start an agent CLI (${agent}): name the test file *.e2e.test.ts`);
  error.code = 'EACCES';
  throw error;
}

/** Wraps a spawning function of node:child_process, `(file, args?, options?, callback?)`, each part optional. */
function guard(original) {
  return function guarded(file, ...rest) {
    const argsGiven = Array.isArray(rest[0]);
    const agent = agentCommand(file, argsGiven ? rest[0] : []);
    if (agent) refuse(agent);
    const at = argsGiven ? 1 : 0;
    const given = rest[at];
    const hasOptions = given !== null && typeof given === 'object';
    const options = { ...(hasOptions ? given : {}), env: guardedEnv(hasOptions ? given.env : undefined) };
    rest.splice(at, hasOptions || (given == null && rest.length > at) ? 1 : 0, options);
    return original.call(this, file, ...rest);
  };
}

if (!childProcess.spawn.agentSpawnGuard) {
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
    const wrapped = guard(childProcess[name]);
    wrapped.agentSpawnGuard = true;
    childProcess[name] = wrapped;
  }
  // ESM imports of node:child_process (execa's) see the wrapped functions too.
  syncBuiltinESMExports();
}
