import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Transcript } from '../../transcript/types.js';
import { baseTrialEnv, NETWORK, NO_PROXY_LOOPBACK, simulatorProxy } from '../caller-env.js';
import { cliFolderFile, credentialJson, jwtExpiry } from '../login.js';
import { isPlainObject } from '../../util/json.js';
import { codexUsageLimit } from './usage-limit.js';
import { installedFile, notInstalled, overrideBinary, printedVersion } from '../cli-binary.js';
import type { CliPackage } from '../conformance.js';
import { CONFORMANCE } from './conformance.js';
import { runAgentCommand } from '../spawn.js';
import { inWatchedFolder } from '../../workspace/watched.js';
import { listingProblem } from '../init-isolation.js';
import type { AgentAdapter, Invocation, InvocationRequest, IsolationExpectation } from '../types.js';
import { codexConfig, codexHome, REAL_KEY_VARIABLE, SIM_KEY_VARIABLE } from './config.js';
import { plantNonces } from './nonce.js';
import { parseCodexStream, SHELL_TOOL, SKILLS_FOLDER, threadStartedIn } from './parse.js';
import { withFieldRecord } from './field-evidence.js';
import { collectFieldEvidence, prepareCodexField } from './field-run.js';
import { withFieldFlags } from './field.js';
import { CODEX_BUNDLED_SKILLS } from './bundled.js';
import { historyHeldInRollout, readSessionRecord, seededRollout, seededRolloutFile, shownInSession, threadIdFor } from './session.js';
import { fieldWorkspaceProblem } from '../field-refusal.js';
import { fieldMcpProblem } from '../field-mcp.js';
import { statusIn, statusSignal } from '../provider-signals.js';
import { prepareMcpServers } from '../mcp-servers.js';
import { mcpListingProblem } from '../mcp-listing.js';
import { codexMcpServers } from './mcp.js';
import { codexMcpName } from './mcp-names.js';

/** The CLI's package, installed beside skillprobe by the user (an optional peer). */
const CLI_PACKAGE: CliPackage = { name: '@openai/codex', command: 'codex' };

/** The project instruction file Codex reads, from the git root down to its working folder. */
const INSTRUCTION_FILE = 'AGENTS.md';

/** Rust target triples of the platform packages the pinned wrapper ships (the native binary lives there). */
const TRIPLES: Record<string, string> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

function pinnedBinary(): string | undefined {
  // The native binary itself: the package's `bin` is a Node wrapper that only finds and execs it.
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  const platform = triple && installedFile(`@openai/codex-${key}/package.json`);
  const bin = platform && join(dirname(platform), 'vendor', triple, 'bin', 'codex');
  return bin && existsSync(bin) ? bin : undefined;
}

/** Every variable a trial runs with: the caller's locale (and for a real model its key and proxies), then ours. */
export function trialEnv(req: Pick<InvocationRequest, 'callerEnv' | 'home' | 'tmp' | 'simulator' | 'login'>): Record<string, string> {
  // Under a login the key stays out: the copied auth.json is the only credential.
  const real = req.simulator ? [] : req.login ? NETWORK : [REAL_KEY_VARIABLE, ...NETWORK];
  return {
    // Codex puts its daemon and sandbox mount folders in TMPDIR: per trial, never shared.
    ...baseTrialEnv(req, (name) => real.includes(name)),
    CODEX_HOME: codexHome(req.home),
    ...(req.simulator &&
      (req.login ? simulatorProxy(req.simulator.url) : { [SIM_KEY_VARIABLE]: 'skillprobe-simulator', ...NO_PROXY_LOOPBACK })),
  };
}

/** Writes the trial's config where Codex reads it. */
async function writeConfig(req: Parameters<typeof codexConfig>[0] & Pick<InvocationRequest, 'home'>): Promise<void> {
  await mkdir(codexHome(req.home), { recursive: true });
  await writeFile(join(codexHome(req.home), 'config.toml'), codexConfig(req));
}

/** The context file Codex records for the AGENTS.md at the workspace root: the one a declared `instructions:` writes. */
const declaredContextFile = (cwd: string) => `${INSTRUCTION_FILE} (${cwd})`;

function isolationProblem(t: Transcript, expected: IsolationExpectation): string | undefined {
  const init = t.events.find((e) => e.kind === 'init');
  if (init?.kind !== 'init') return 'no thread.started event: cannot verify what the agent was shown';
  // Codex's stream says nothing of skills or sandbox: its session record does, and without it nothing is verified.
  if (init.skillsFrom === undefined) return 'no Codex session record: cannot verify which skills the model was shown';
  // Only the declared one, at the workspace root the session names, is the suite's; anything else leaked in.
  const declared = expected.instructions && init.cwd ? declaredContextFile(init.cwd) : undefined;
  const leaked = (init.contextFiles ?? []).filter((f) => f !== declared);
  if (leaked.length) return `instruction files reached the model: ${leaked.join(', ')}`;
  if (init.sandbox !== 'read-only') return `tools ran in the "${init.sandbox ?? 'unknown'}" sandbox, not read-only`;
  // The session record lists exactly what the model was shown: any skill beyond the family and neighbours leaked in.
  const field = expected.context === 'field';
  const listing =
    listingProblem(init.skills, expected, true, field ? CODEX_BUNDLED_SKILLS : []) ?? mcpListingProblem(init.tools, expected, codexMcpName);
  if (listing || !field) return listing;
  // The field: nothing but a skill read or a read-only MCP tool ran, every acting call refused, the workspace unchanged.
  if (!init.fieldRecord) return 'field: no record of the refusing hook: cannot verify that every acting call was refused';
  return init.fieldRecord.problem ?? fieldMcpProblem(t, expected.mcp) ?? fieldWorkspaceProblem(expected);
}

/** `codex exec [sub] <flags> -- <positional>` with the trial's locks (and in the field, the refusing hook's flags). */
function execArgs(req: InvocationRequest, sub: readonly string[], positional: readonly string[]): string[] {
  // --strict-config: a key this version does not know fails the trial rather than leaving a lock unset.
  const lab = ['exec', ...sub, '--json', '--strict-config', '--skip-git-repo-check', '--ignore-rules', '--', ...positional];
  return req.context === 'field' && req.role === 'trial' ? withFieldFlags(lab) : lab;
}

/** Where the write probe writes: it must not exist afterwards. */
const PROBE_FILE = 'skillprobe-write-probe';
const PROBE_READ = 'readable';

export const codex: AgentAdapter = {
  id: 'codex',
  package: CLI_PACKAGE,
  conformance: CONFORMANCE,
  // What the pinned CLI requests when its config names no model.
  defaultModel: 'gpt-6.1-sol',
  // Codex reports tokens, never a price.
  reportsCost: false,
  skillsFolder: SKILLS_FOLDER,
  // Instruction files and skill folders Codex reads from a project; the workspace is a git root, which stops its
  // walk, and these are refused above the workspace root in case a future version walks further.
  ancestorLeaks: ['AGENTS.md', 'AGENTS.override.md', '.codex', '.agents'],
  instructionFiles: [INSTRUCTION_FILE, 'AGENTS.override.md'],
  // The shell is the only way to read a skill; the read-only sandbox stops writes and network.
  trialTools: [SHELL_TOOL],
  // The field keeps the default menu; a PreToolUse hook of the harness's own refuses every acting call (`field.ts`).
  contexts: ['lab', 'field'],
  // Codex lists every skill's full description on one line; it sets no budget of its own.
  skillListing: { cli: 'Codex CLI', descriptionCap: 1024, budgetChars: Number.POSITIVE_INFINITY },
  skillCallArgs: false,
  grading: {
    // The skill is the folder whose planted secret the read showed: already a member's exact name.
    skillName: (requested) => requested.trim(),
    isolationProblem,
    bundledSkills: CODEX_BUNDLED_SKILLS,
  },

  resolveBinary(override?: string): string {
    if (override !== undefined) return overrideBinary(override, CLI_PACKAGE);
    const bin = pinnedBinary();
    if (!bin) throw notInstalled(CLI_PACKAGE, 'Codex CLI');
    return bin;
  },

  // `codex --version` prints "codex-cli 0.171.0".
  cliVersion: (binary) => printedVersion(binary, ['--version']),

  credentialProblem(env: NodeJS.ProcessEnv): string | undefined {
    if ((env[REAL_KEY_VARIABLE] ?? '') !== '') return undefined;
    // Every trial has a fresh CODEX_HOME, so a stored `codex login` cannot be used.
    return `no credentials for the Codex CLI in the environment — export ${REAL_KEY_VARIABLE} (and OPENAI_BASE_URL for another endpoint), or run against the simulator with --sim PROFILE`;
  },

  usageLimit: codexUsageLimit,

  // A ChatGPT login (`codex login`), kept in auth.json unless the user chose the keyring.
  login: {
    what: 'ChatGPT',
    files: [
      {
        from: cliFolderFile('CODEX_HOME', '.codex', 'auth.json'),
        to: '.codex/auth.json',
        // The access token's own expiry (its JWT `exp`); an API key stored there instead has none.
        expiresAt: (text) => {
          const tokens = credentialJson(text)?.tokens;
          return isPlainObject(tokens) ? jwtExpiry(tokens.access_token) : undefined;
        },
      },
    ],
    logIn: 'log in with `codex login`, keeping it in a file (`cli_auth_credentials_store = "file"` in ~/.codex/config.toml)',
    renew: 'start `codex` once, which renews it in your own folder, or log in again with `codex login`',
  },

  // A history is a seeded thread it resumes (`exec resume <id>`); `exec` answers once and ends, so each follow-up is
  // a process of its own resuming the trial's thread, named by the first process's `thread.started`.
  conversation: {
    history: true,
    followUps: {
      via: 'resume',
      sessionOf: threadStartedIn,
      resumeInvocation(req, thread, text) {
        return { file: req.binary ?? codex.resolveBinary(), args: execArgs(req, ['resume'], [thread, text]), env: trialEnv(req) };
      },
    },
  },

  async prepareTrial(req) {
    const mcpServers = codexMcpServers(await prepareMcpServers(req), req.mcp ?? []);
    if (req.context === 'field' && req.role === 'trial') await prepareCodexField({ ...req, mcpServers });
    else await writeConfig({ ...req, mcpServers });
    const history = req.conversation?.history;
    if (history?.length) {
      const file = seededRolloutFile(codexHome(req.home), req.workspace);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, seededRollout(history, req.workspace));
    }
    return { skillNonces: await plantNonces(join(req.workspace, this.skillsFolder)) };
  },

  async collectEvidence(req) {
    const rollout = await readSessionRecord(codexHome(req.home));
    const shown = rollout === undefined ? undefined : shownInSession(rollout);
    const field = req.context === 'field' && req.role === 'trial' ? await collectFieldEvidence(req.harnessDir, rollout) : undefined;
    const history = req.conversation?.history.length ? historyHeldInRollout(rollout, req.conversation.history) : undefined;
    return {
      ...(shown ? { shown } : {}),
      ...(field ? { field } : {}),
      ...(history ? { history } : {}),
    };
  },

  // Codex has no turn limit: the harness counts the commands it starts and stops it past the limit.
  startsToolCall: (line) => line.includes('"item.started"'),
  // Its reconnects are `error` events on stdout naming the status: `Reconnecting... 1/5 (… 429 Too Many Requests …)`.
  providerSignal: (line, from) => (from === 'stdout' && line.includes('"type":"error"') ? statusSignal(statusIn(line)) : undefined),

  async lockdownProblem(binary, scratch, callerEnv) {
    // Codex's sandbox needs kernel features a container may lack; then it may run commands unconfined. Measured
    // with the trial's own config, by the CLI's own sandbox command, before anything else is created.
    return inWatchedFolder(scratch, 'sandbox-', async (root) => {
      // Only PATH of the caller's: the probe runs one local command and must carry no credential.
      const req = {
        home: join(root, 'home'),
        tmp: join(root, 'tmp'),
        callerEnv: { PATH: callerEnv.PATH },
        model: 'probe',
        role: 'trial' as const,
        cliRetries: 0,
        deadlineMs: 30_000,
      };
      const ws = join(root, 'ws');
      for (const d of [req.home, req.tmp, ws]) await mkdir(d, { recursive: true });
      await writeFile(join(ws, PROBE_READ), 'ok');
      await writeConfig(req);
      const script = `echo probe > ${PROBE_FILE}; cat ${PROBE_READ}`;
      const r = await runAgentCommand(binary, ['sandbox', '--', '/bin/sh', '-c', script], {
        cwd: ws,
        env: trialEnv(req),
        timeoutMs: 30_000,
      });
      const wrote = existsSync(join(ws, PROBE_FILE));
      if (wrote) {
        return {
          what: "the Codex CLI's read-only sandbox did not stop a write on this machine, so trials would run unlocked",
          todo: 'run where the sandbox works (a container needs user namespaces or seccomp), or use another agent',
        };
      }
      if (!String(r.stdout).includes('ok')) {
        const said = (String(r.stderr).trim().split('\n').at(-1) ?? '') || `exit ${r.exitCode ?? r.signal}`;
        return {
          what: `the Codex CLI's sandbox does not run commands on this machine (${said}), so no trial could read a skill`,
          todo: 'run where the sandbox works (a container needs user namespaces or seccomp), or use another agent',
        };
      }
      return undefined;
    });
  },

  simulatorHint: (url) => `a model provider with base_url = "${url}/v1" and wire_api = "responses"`,

  invocation(req: InvocationRequest): Invocation {
    // A history: the seeded thread resumed, the prompt its next turn.
    const args = req.conversation?.history.length
      ? execArgs(req, ['resume'], [threadIdFor(req.workspace), req.prompt])
      : execArgs(req, [], [req.prompt]);
    return { file: req.binary ?? this.resolveBinary(), args, env: trialEnv(req) };
  },

  parse(raw, trial) {
    const t = parseCodexStream(raw, trial);
    const field = trial?.evidence?.field;
    return field ? withFieldRecord(t, raw, field) : t;
  },
};
