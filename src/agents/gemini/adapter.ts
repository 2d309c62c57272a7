import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError } from '../../util/input-error.js';
import type { ShownEvidence } from '../../run/schema.js';
import type { Transcript } from '../../transcript/types.js';
import { baseTrialEnv, NETWORK, NO_PROXY_LOOPBACK, simulatorProxy } from '../caller-env.js';
import { cliFolderFile, credentialJson, epochMs } from '../login.js';
import { installedManifest, notInstalled, overrideBinary, printedVersion } from '../cli-binary.js';
import type { CliPackage } from '../conformance.js';
import { CONFORMANCE } from './conformance.js';
import { runAgentCommand } from '../spawn.js';
import { listingProblem } from '../init-isolation.js';
import type { AgentAdapter, Invocation, InvocationRequest, IsolationExpectation } from '../types.js';
import { notRegistered, parseGeminiStream, sessionStartedIn, SKILL_TOOL } from './parse.js';
import { historyEvidence, historyFile, seededChat } from './session.js';
import {
  builtinSkills,
  builtinsToHide,
  GEMINI_BUILTIN_SKILLS,
  geminiPolicy,
  geminiSettings,
  policyFile,
  skillNamesIn,
} from './settings.js';
import { prepareMcpServers } from '../mcp-servers.js';
import { mcpListingProblem } from '../mcp-listing.js';
import { geminiMcpRules, geminiMcpServers } from './mcp.js';
import { geminiFieldTranscriptProblem } from './field.js';
import { prepareGeminiField } from './field-run.js';
import { fieldWorkspaceProblem } from '../field-refusal.js';
import { fieldMcpProblem } from '../field-mcp.js';
import { statusIn, statusSignal } from '../provider-signals.js';
import { geminiMcpName } from './mcp-names.js';
import { SIMULATED_GOOGLE_CERT } from './simulated-google.js';
import { geminiUsageLimit } from './usage-limit.js';

/** The CLI's package, installed beside skillprobe by the user (an optional peer). */
const CLI_PACKAGE: CliPackage = { name: '@google/gemini-cli', command: 'gemini' };

/** The key the API-key auth reads (GOOGLE_API_KEY is Vertex AI's, which the trial's settings never select). */
const KEY_VARIABLE = 'GEMINI_API_KEY';
/** Where the CLI sends its requests (it appends `/v1beta/models/…`): the simulator, or the caller's own endpoint. */
const BASE_URL_VARIABLE = 'GOOGLE_GEMINI_BASE_URL';
/** Where the CLI sends a Google login's requests (it appends `/v1internal:<method>`). */
const CODE_ASSIST_VARIABLE = 'CODE_ASSIST_ENDPOINT';

/** The certificate a trial against the simulator trusts for the Google account hosts the simulator plays. */
const simulatorCertFile = (harnessDir: string) => join(harnessDir, 'simulator-google.pem');

/**
 * What points a trial at the simulator: the API key and base URL, or under a login Code Assist's endpoint, the
 * simulator as the proxy of every other host, and the certificate of the Google account hosts it plays.
 */
function simulatorVariables(req: Pick<InvocationRequest, 'harnessDir' | 'simulator' | 'login'>): Record<string, string> {
  if (!req.simulator) return {};
  if (!req.login) return { [KEY_VARIABLE]: 'skillprobe-simulator', [BASE_URL_VARIABLE]: req.simulator.identityUrl, ...NO_PROXY_LOOPBACK };
  return {
    [CODE_ASSIST_VARIABLE]: req.simulator.identityUrl,
    ...simulatorProxy(req.simulator.url),
    NODE_EXTRA_CA_CERTS: simulatorCertFile(req.harnessDir),
  };
}

/** The pinned CLI's entry point: the JavaScript file its package.json names as `bin`. */
function pinnedScript(): string | undefined {
  const manifest = installedManifest(CLI_PACKAGE.name);
  const bin = manifest?.json.bin;
  const script = typeof bin === 'string' ? bin : bin?.gemini;
  return manifest && script !== undefined ? join(dirname(manifest.path), script) : undefined;
}

/** A JavaScript entry point runs under this Node, so a trial's PATH need not hold one; any other binary runs itself. */
function command(binary: string): { file: string; args: string[] } {
  return /\.[cm]?js$/.test(binary) ? { file: process.execPath, args: [binary] } : { file: binary, args: [] };
}

const PINNED_SCRIPT = pinnedScript();

/** Built-in skills by bundle folder: read when a trial first needs them, not when any command loads this module. */
const builtinsByBundle = new Map<string, string[]>();

/** The built-in skills every trial hides: those of the bundle that runs, which ships them beside its entry point. */
function builtinsOf(binary: string): string[] {
  const bundle = dirname(binary);
  const known = builtinsByBundle.get(bundle) ?? builtinSkills(bundle);
  builtinsByBundle.set(bundle, known);
  return known;
}

/** Every variable a trial runs with: the caller's locale (and for a real model its key, endpoint, proxies), then ours. */
export function trialEnv(
  req: Pick<InvocationRequest, 'callerEnv' | 'home' | 'tmp' | 'harnessDir' | 'simulator' | 'login'>,
): Record<string, string> {
  // Under a login the key stays out: the copied oauth_creds.json is the only credential.
  const real = req.simulator ? [] : req.login ? NETWORK : [KEY_VARIABLE, BASE_URL_VARIABLE, ...NETWORK];
  return {
    // The CLI writes crash reports to TMPDIR: per trial, never shared.
    ...baseTrialEnv(req, (name) => real.includes(name)),
    GEMINI_CLI_HOME: req.home,
    TERM: 'dumb',
    NO_COLOR: '1',
    // Else the CLI re-spawns itself as a child Node with a larger heap: one process less to start and to kill.
    GEMINI_CLI_NO_RELAUNCH: 'true',
    // Machine-wide settings (and the defaults read beside them) override the trial's own: pointed at a file that
    // does not exist, none apply.
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(req.harnessDir, 'system-settings.json'),
    ...simulatorVariables(req),
  };
}

/** Where the CLI reads machine-wide policies; they cannot be moved, and while they exist it ignores `--admin-policy`. */
function systemPoliciesDir(): string {
  if (process.platform === 'darwin') return '/Library/Application Support/GeminiCli/policies';
  if (process.platform === 'win32') return 'C:\\ProgramData\\gemini-cli\\policies';
  return '/etc/gemini-cli/policies';
}

/** Why the machine-wide policies in `dir` would unlock a trial's tools; undefined when it holds none. */
export function systemPolicyProblem(dir: string): { what: string; todo: string } | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.toml'));
  } catch {
    return undefined;
  }
  if (!files.length) return undefined;
  return {
    what: `the Gemini CLI ignores the trial's tool lock (--admin-policy) while machine-wide policies exist, and ${dir} holds ${files.join(', ')}`,
    todo: `run on a machine without policy files in ${dir}, or use another agent`,
  };
}

/** The skills `gemini skills list --all` shows enabled: `<name> [Enabled]` lines, each followed by its description. */
export function enabledSkills(listing: string): string[] {
  const lines = listing.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  return lines.flatMap((line, i) => {
    const m = /^(\S.*?) \[Enabled\](?: \[Built-in\])?$/.exec(line.trimEnd());
    return m && lines[i + 1]?.startsWith('  Description:') ? [m[1]!] : [];
  });
}

const LISTING_SOURCE = 'gemini skills list (once per arm)';
const LISTING_TIMEOUT_MS = 60_000;

function isolationProblem(t: Transcript, expected: IsolationExpectation): string | undefined {
  const init = t.events.find((e) => e.kind === 'init');
  if (init?.kind !== 'init') return 'no init event: cannot verify what the agent was shown';
  // The stream lists no skills: the CLI's own listing for the arm does, and without it nothing is verified.
  if (init.skillsFrom === undefined) return 'no skill listing for this arm: cannot verify which skills the model was shown';
  if (t.events.some((e) => e.kind === 'skill_load' && notRegistered(e))) return `${SKILL_TOOL} was not offered: the tool lock is wrong`;
  const field = expected.context === 'field';
  const listing =
    listingProblem(init.skills, expected, true, field ? GEMINI_BUILTIN_SKILLS : []) ??
    mcpListingProblem(init.tools, expected, geminiMcpName);
  if (listing || !field) return listing;
  // The field: every acting call (an MCP tool's that may act too) answered by the policy's refusal, the workspace unchanged.
  const refusals = geminiFieldTranscriptProblem(t);
  return refusals ? `field: ${refusals}` : (fieldMcpProblem(t, expected.mcp) ?? fieldWorkspaceProblem(expected));
}

export const gemini: AgentAdapter = {
  id: 'gemini',
  package: CLI_PACKAGE,
  conformance: CONFORMANCE,
  // The CLI's own default is `auto`, which routes every turn through an extra model call to a model it picks; a
  // trial needs one model, so this is the model the CLI names its default (DEFAULT_GEMINI_MODEL in its bundle).
  defaultModel: 'gemini-2.5-pro',
  // Gemini reports tokens, never a price.
  reportsCost: false,
  // A workspace skill folder the CLI shares with other agents; it lists skills only at depth 1 below it.
  skillsFolder: '.agents/skills',
  // Context files, settings, policies and skill folders the CLI reads from a project and its ancestors.
  ancestorLeaks: ['GEMINI.md', '.gemini', '.agents'],
  instructionFiles: ['GEMINI.md'],
  trialTools: ['list_directory', 'read_file', 'grep_search', 'glob', SKILL_TOOL],
  // The field keeps the default menu; an admin policy refuses every acting call before it runs (`field.ts`).
  contexts: ['lab', 'field'],
  // The pinned CLI lists every enabled skill with its whole description (skillLoader.ts, renderAgentSkills in its
  // bundle): no cap and no budget of its own.
  skillListing: { cli: 'Gemini CLI', descriptionCap: Number.POSITIVE_INFINITY, budgetChars: Number.POSITIVE_INFINITY },
  skillCallArgs: false,
  // It retries silently on stdout; stderr says `Attempt N failed with status 429. Retrying with backoff...`.
  providerSignal: (line, from) => (from === 'stderr' && /failed with status/.test(line) ? statusSignal(statusIn(line)) : undefined),
  grading: {
    // The skill tool takes only a name from its list, exactly as listed.
    skillName: (requested) => requested.trim(),
    isolationProblem,
    bundledSkills: GEMINI_BUILTIN_SKILLS,
  },

  resolveBinary(override?: string): string {
    if (override !== undefined) return overrideBinary(override, CLI_PACKAGE);
    if (!PINNED_SCRIPT || !existsSync(PINNED_SCRIPT)) throw notInstalled(CLI_PACKAGE, 'Gemini CLI');
    return PINNED_SCRIPT;
  },

  // The pinned CLI's version is its package's; any other binary is asked (`gemini --version` prints "0.61.0",
  // offline, in about 0.8 s, writing into the HOME it is given).
  async cliVersion(binary) {
    if (binary === PINNED_SCRIPT) return installedManifest(CLI_PACKAGE.name)?.json.version;
    const { file, args } = command(binary);
    return printedVersion(file, [...args, '--version'], (home) => ({ GEMINI_CLI_HOME: home, GEMINI_CLI_NO_RELAUNCH: 'true' }));
  },

  credentialProblem(env: NodeJS.ProcessEnv): string | undefined {
    if ((env[KEY_VARIABLE] ?? '') !== '') return undefined;
    // Every trial has a fresh HOME, so a stored Google login cannot be used.
    return `no credentials for the Gemini CLI in the environment — export ${KEY_VARIABLE} (and ${BASE_URL_VARIABLE} for another endpoint), or run against the simulator with --sim PROFILE`;
  },

  // It shortens a longer `mcp_<server>_<tool>` to its first and last 30 characters (generateValidName in its bundle).
  mcpToolNames: { nameOf: geminiMcpName, maxLength: 63 },

  // A history is a seeded chat it loads (`--session-file`); the CLI answers once and ends, so each follow-up is a
  // process of its own resuming the first one's session (`--resume <id>`, which the CLI refuses beside
  // `--session-file`: the resumed session already holds the history).
  conversation: {
    history: true,
    followUps: {
      via: 'resume',
      sessionOf: sessionStartedIn,
      resumeInvocation: (req, session, text) => geminiInvocation({ ...req, prompt: text }, ['--resume', session]),
    },
  },

  async prepareTrial(req) {
    if (req.login && req.simulator) await writeFile(simulatorCertFile(req.harnessDir), SIMULATED_GOOGLE_CERT);
    const history = req.conversation?.history;
    if (history?.length) await writeFile(historyFile(req.harnessDir), seededChat(history));
    const servers = geminiMcpServers(await prepareMcpServers(req), req.mcp ?? []);
    if (req.context === 'field' && req.role === 'trial') {
      await prepareGeminiField(req, servers);
      return {};
    }
    // A built-in no family skill replaces is hidden (one that would hide a family skill too refused the run already).
    const { hide } = builtinsToHide(builtinsOf(req.binary ?? this.resolveBinary()), skillNamesIn(join(req.workspace, this.skillsFolder)));
    await mkdir(join(req.home, '.gemini'), { recursive: true });
    await writeFile(join(req.home, '.gemini', 'settings.json'), geminiSettings(req, this.trialTools, hide, servers));
    await writeFile(policyFile(req.harnessDir), geminiPolicy(SKILL_TOOL, req.role, this.trialTools, geminiMcpRules(req.mcp ?? [])));
    // Gemini has a skill tool: the stream shows every skill call, so no secret needs planting.
    return {};
  },

  async collectEvidence(req) {
    const history = req.conversation?.history;
    return history?.length ? { history: await historyEvidence(req.home, history, historyFile(req.harnessDir)) } : {};
  },

  async probeListing(req): Promise<ShownEvidence> {
    const binary = req.binary ?? this.resolveBinary();
    const { file, args } = command(binary);
    // `skills list` has no --skip-trust; trusting the workspace by variable is the same here, since a prepared
    // workspace has no .gemini/settings.json for trust to load.
    const r = await runAgentCommand(file, [...args, 'skills', 'list', '--all'], {
      cwd: req.workspace,
      env: { ...trialEnv(req), GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      timeoutMs: LISTING_TIMEOUT_MS,
    });
    if (r.exitCode !== 0) {
      const said = r.timedOut
        ? `no answer in ${LISTING_TIMEOUT_MS / 1000} s`
        : String(r.stderr).trim().split('\n').at(-1) || `exit ${r.exitCode ?? r.signal}`;
      throw new InputError({
        file: binary,
        what: `\`gemini skills list\` failed (${said}), so no trial could be checked for the skills it was shown`,
        todo: 'check that the agent binary is the Gemini CLI and runs on this machine',
      });
    }
    return { source: LISTING_SOURCE, skills: enabledSkills(String(r.stdout)), contextFiles: [] };
  },

  lockdownProblem: async () => systemPolicyProblem(systemPoliciesDir()),

  familyProblem(binary, family) {
    const { clash } = builtinsToHide(builtinsOf(binary), family);
    if (!clash.length) return undefined;
    return {
      what: `this Gemini CLI ships a built-in skill ${clash.join(', ')}, which its settings can hide only by a name that also hides the family's skill of that name (they differ only in case)`,
      todo: 'rename that skill of the family (folder and `name`), or run the pinned Gemini CLI (drop agentBinary)',
    };
  },

  // A Google account login ("Login with Google"): its tokens, and the account list beside them.
  login: {
    what: 'Google account',
    files: [
      {
        from: cliFolderFile('GEMINI_CLI_HOME', '.gemini', 'oauth_creds.json'),
        to: '.gemini/oauth_creds.json',
        // The access token lasts an hour and the CLI renews it with the refresh token, which Google does not spend: a
        // trial renewing its copy leaves the caller's login working. Without a refresh token, its expiry ends the login.
        expiresAt: (text) => {
          const creds = credentialJson(text);
          return creds && creds.refresh_token === undefined ? epochMs(creds.expiry_date) : undefined;
        },
      },
      { from: cliFolderFile('GEMINI_CLI_HOME', '.gemini', 'google_accounts.json'), to: '.gemini/google_accounts.json', optional: true },
    ],
    logIn: 'log in with `gemini` and its "Login with Google"',
    renew: 'log in again with `gemini` and its "Login with Google"',
  },
  usageLimit: geminiUsageLimit,

  simulatorHint: (url) => `${BASE_URL_VARIABLE}=${url} with security.auth.selectedType "gemini-api-key"`,

  invocation: (req) => geminiInvocation(req, req.conversation?.history.length ? ['--session-file', historyFile(req.harnessDir)] : []),

  parse: parseGeminiStream,
};

/** The trial's process, sending `req.prompt`, in the session `session` names (a seeded file, a resumed id, or none). */
function geminiInvocation(req: InvocationRequest, session: readonly string[]): Invocation {
  const { file, args } = command(req.binary ?? gemini.resolveBinary());
  // `--prompt=`: a prompt starting with `-` stays the prompt, not an option.
  const flags = [
    '--skip-trust',
    '--admin-policy',
    policyFile(req.harnessDir),
    '--output-format',
    'stream-json',
    '--model',
    req.model,
    ...session,
    `--prompt=${req.prompt}`,
  ];
  return { file, args: [...args, ...flags], env: trialEnv(req) };
}
