import type { TranscriptLines } from './json-lines.js';
import type { Arm, Context } from '../run/config-schema.js';
import type { RefusedStatus, ShownEvidence, StoredMcpServer, TrialEvidence, TrialMeta, UsageLimit } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import type { EarlierTurn } from '../load/conversation.js';
import type { McpServer } from '../load/mcp.js';
import type { McpToolName } from '../mcp/names.js';
import type { CliLogin } from './login.js';
import type { CliPackage, ConformanceRecord } from './conformance.js';

/** Everything an adapter needs to build one headless invocation. */
export interface InvocationRequest {
  prompt: string;
  model: string;
  maxTurns: number;
  cliRetries: number;
  /** The harness's own deadline for the whole trial. */
  deadlineMs: number;
  workspace: string;
  home: string;
  /** A fresh temp folder for the CLI (its TMPDIR), inside the trial's own root. */
  tmp: string;
  /** A folder for the adapter's own files (config, policy), outside the workspace the model can read. */
  harnessDir: string;
  /** The caller's environment; the adapter passes on only what it allowlists. */
  callerEnv: NodeJS.ProcessEnv;
  /**
   * Set when running against the simulator: its URL and the trial's identity, as headers or (for a CLI that cannot
   * send headers) as a base URL whose path carries it.
   */
  simulator?: { url: string; headers: Record<string, string>; identityUrl: string };
  /**
   * The trial runs on the caller's subscription login (`auth: login`): its credential file was copied into `home`,
   * and no API key reaches the CLI. Absent: an API key (or cloud provider) from the caller's environment.
   */
  login?: boolean;
  /** The binary the run resolved, once, before any trial; by default the pinned one. */
  binary?: string;
  /** What the trial is for, which decides the tools the CLI offers (each adapter maps it to its argv and files). */
  role: TrialRole;
  /** `field`: a trial (role `trial`) offered the CLI's default tools, every acting call refused; absent: the lab. */
  context?: 'field';
  /** The MCP servers the trial is offered (the config's and its case's); absent: none. */
  mcp?: readonly McpServer[];
  /**
   * A trial of a conversation (its case has `history:` or `followUps:`), for a CLI that takes one
   * (`AgentAdapter.conversation`): the earlier turns it starts from. For a CLI that takes follow-ups on its stdin the
   * prompt then goes in as the first user line there, and each follow-up after it, never in its arguments.
   */
  conversation?: { history: readonly EarlierTurn[] };
  /**
   * A trial whose outcome a call of one of `skills` settles (`settlingSkills`): a CLI that can stop itself before its
   * next model request does so; every CLI is stopped anyway once the harness reads the settling event in its stream.
   */
  settle?: { skills: readonly string[] };
}

/**
 * How a CLI takes a case's conversation: the earlier turns it starts from (`history`), and the user turns that follow
 * the prompt (`followUps`), its own way. A case asking for what its CLI cannot take is refused before anything starts.
 */
export interface ConversationSupport {
  history: boolean;
  followUps?: StdinFollowUps | ResumedFollowUps;
}

/**
 * Follow-ups as lines on the running CLI's stdin, each answered by a turn of the assistant that ends with a line the
 * harness recognises; closing stdin ends the process.
 */
export interface StdinFollowUps {
  via: 'stdin';
  /** The stdin line that sends `text` as the user's next turn. */
  userLine(text: string): string;
  /** Whether a line of the CLI's stdout ends the assistant's turn (then it waits for the next user line). */
  endsTurn(line: string): boolean;
}

/**
 * Follow-ups for a CLI that answers once and ends: each is a process of its own that resumes the trial's session,
 * with the first turn's workspace, HOME and lock.
 */
export interface ResumedFollowUps {
  via: 'resume';
  /** The session a turn's stdout says it ran in (what the next turn resumes), or undefined when it names none. */
  sessionOf(turnStdout: string): string | undefined;
  /** The process that sends `text` as the user's next turn of `session`. */
  resumeInvocation(req: InvocationRequest, session: string, text: string): Invocation;
}

/**
 * What a trial is for: `trial`, a trial under test (today's tool menu and the skill tool); `judge`, a judge's request
 * (no tool at all, so its answer is only the text it writes); `proposer`, a tune proposer's request (it writes a new
 * description from what the request shows it, and needs no tool either).
 */
export type TrialRole = 'trial' | 'judge' | 'proposer';

export interface Invocation {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** How a CLI lists skills to the model: what lint measures a family's descriptions against. */
export interface SkillListing {
  /** The CLI's name, for messages. */
  cli: string;
  /** Each description is cut after this many characters. */
  descriptionCap: number;
  /** Characters the whole listing may take before skills lose their descriptions. */
  budgetChars: number;
}

/** The skills a trial's CLI must list: the family in the skill arm only, the declared neighbours in both arms. */
export interface ListingExpectation {
  arm: Arm;
  family: readonly string[];
  /** The user's other skills installed beside the family (`neighbours:`); none when not given. */
  neighbours?: readonly string[];
}

/** What a trial was set up to show the model: the listing, and whether the suite declared an instruction file. */
export interface IsolationExpectation extends ListingExpectation {
  /** The case's fixtures held the project's instruction file (`instructions:`): the CLI showing it is no leak. */
  instructions?: boolean;
  /** `field`: the default tools listed, every acting call refused, the workspace unchanged; absent: the lab. */
  context?: 'field';
  /** What changed in the workspace while the trial ran (the field's evidence; absent when not looked at). */
  workspaceChanged?: readonly string[];
  /** The MCP servers the trial was offered, as its case stores them: a stub's tools must be listed (absent: none). */
  mcp?: readonly StoredMcpServer[];
  /** The servers' records of the trial (its evidence): the tools a real server listed must be offered too. */
  mcpRecords?: readonly { server: string; listed?: string[] }[];
}

/** How a CLI names and echoes what the graders read through: the graders see only the canonical transcript. */
export interface GradingConventions {
  /** The name a requested skill name resolves to, as the CLI resolves it (the graders then match it exactly). */
  skillName(requested: string): string;
  /** What the CLI's file-read tool prints before each line, which a model may copy into a planned call. */
  readEchoPrefix?: RegExp;
  /**
   * Why the trial's own evidence (what the CLI says it loaded and offered) shows the family missing in the skill
   * arm, visible in the ablation arm, a declared neighbour missing, or a locked tool open; undefined when it checks out.
   */
  isolationProblem(t: Transcript, expected: IsolationExpectation): string | undefined;
  /**
   * The skills the CLI itself lists to the model beside the installed ones in a field trial, as a default session
   * lists them (measured on the pinned version): offered, never under test, so a firing of one is graded as going to
   * a neighbour. The lab lists none.
   */
  bundledSkills: readonly string[];
}

/** One agent CLI. Everything CLI-specific (flags, env, skill folder, stream format) lives behind this. */
export interface AgentAdapter {
  readonly id: string;
  /** The npm package the CLI comes in (installed beside skillprobe by default) and the command it puts on PATH. */
  readonly package: CliPackage;
  /** The versions skillprobe's conformance suite ran against (`<cli>/conformance.ts`), what `doctor` tells a user. */
  readonly conformance: readonly ConformanceRecord[];
  /** The model a trial asks for when the config names none: the pinned CLI's own default. */
  readonly defaultModel: string;
  /** Whether the CLI reports what a trial cost (what `--max-cost` spends); without it the cap could never stop a run. */
  readonly reportsCost: boolean;
  readonly skillListing: SkillListing;
  /**
   * Whether the CLI's skill call carries the model's arguments (a skill tool with an args field): the grader then reads
   * them as a planned call behind the skill's command prefix. A CLI that loads a skill by reading its file has none.
   */
  readonly skillCallArgs: boolean;
  readonly grading: GradingConventions;
  /** What to change when this CLI refuses to load a skill for a cause of its own (else the generic advice). */
  readonly refusalFixes?: Partial<Record<RefusedStatus, (asked: string) => string>>;
  /** Where the family is installed inside the workspace (relative). */
  readonly skillsFolder: string;
  /** Files or folders that the CLI loads from any ancestor of its working directory, leaking into trials. */
  readonly ancestorLeaks: readonly string[];
  /**
   * The instruction files the CLI reads from a project; the first is the name a suite's `instructions:` is written
   * under at the workspace root (the only one a trial holds: fixtures of these names are refused).
   */
  readonly instructionFiles: readonly string[];
  /** The only tools a trial may use: the invocation locks the CLI to exactly these. */
  readonly trialTools: readonly string[];
  /** The contexts this CLI's trials can run in; without `field`, a field run is refused before anything starts. */
  readonly contexts: readonly Context[];
  /** What of a case's conversation (`history:`, `followUps:`) it takes; without it, neither. */
  readonly conversation?: ConversationSupport;
  /**
   * How the CLI names an MCP tool on its model wire, and the longest such name it keeps whole (a longer one it shortens,
   * so neither its listing of a stub nor its rules for a read-only tool can name it); absent: no limit measured.
   */
  readonly mcpToolNames?: { nameOf(t: McpToolName): string; maxLength: number };
  invocation(req: InvocationRequest): Invocation;
  /** How a user points this CLI at a simulator serving on `url`, in one line (`skillprobe sim` prints it). */
  simulatorHint(url: string): string;
  /**
   * Writes what this CLI needs per trial beyond the sealed workspace (config files, planted nonces), before it
   * starts; returns what the parser will need to read the trial.
   */
  prepareTrial?(req: InvocationRequest): Promise<TrialEvidence>;
  /** After the process ended: what the CLI's own files say it showed the model (merged into the trial's evidence). */
  collectEvidence?(req: InvocationRequest): Promise<TrialEvidence>;
  /**
   * For a CLI whose trials leave no record of the skills it listed: its own listing for a prepared trial, measured
   * once per arm before any trial runs.
   */
  probeListing?(req: InvocationRequest): Promise<ShownEvidence>;
  /**
   * Why this machine cannot lock the CLI down as a trial needs (a sandbox that does not block writes), measured
   * before anything is created; undefined when it can.
   */
  lockdownProblem?(binary: string, scratch: string, callerEnv: NodeJS.ProcessEnv): Promise<{ what: string; todo: string } | undefined>;
  /**
   * Why this CLI cannot show the model the family as it is (a skill of it that the CLI's own settings would hide),
   * measured before anything is created; undefined when it can.
   */
  familyProblem?(binary: string, family: readonly string[]): { what: string; todo: string } | undefined;
  /**
   * Whether the CLI stops itself, before its next model request, once a call of one of `InvocationRequest.settle`'s
   * skills loaded (a hook of its own): the harness then lets it end and write its last lines (what it used and cost).
   * Without it, the harness kills a settled trial's CLI as soon as it reads the settling event.
   */
  readonly stopsWhenSettled?: boolean;
  /** For a CLI with no turn limit of its own: whether a line of its stdout starts a tool call (the harness counts). */
  startsToolCall?(line: string): boolean;
  /**
   * What a line the CLI prints while it runs says of the provider: an HTTP 429 it is retrying (with the delay it
   * will wait, where it says), or a 529/5xx. Read as the trial runs, so the concurrency limit reacts before the CLI
   * burns its own retries.
   */
  providerSignal?(line: string, from: 'stdout' | 'stderr'): ProviderSignal | undefined;
  /**
   * What a line the CLI prints says of a subscription's usage limit: reached (its words, and when it resets where it
   * says; `now` dates a reset given as a time of day or a delay), or undefined. Read as the trial runs: the first one
   * stops the CLI (one may sleep until the reset by itself), and the trial is missing data.
   */
  usageLimit?(line: string, now: Date, from: 'stdout' | 'stderr'): UsageLimit | undefined;
  /**
   * The raw stream (its text, or its lines as they are read) → the canonical transcript, reading the trial's
   * evidence and exit code where the stream alone does not say enough.
   */
  parse(raw: TranscriptLines, trial?: Pick<TrialMeta, 'evidence' | 'exitCode'>): Transcript;
  /** The CLI's subscription login (`auth: login`): the credential files a trial gets; absent: it has none. */
  readonly login?: CliLogin;
  /** Why the caller's environment cannot reach a real model (no credentials), or undefined. */
  credentialProblem(env: NodeJS.ProcessEnv): string | undefined;
  /** Resolves the binary that will run (for the manifest and for errors before any trial). */
  resolveBinary(override?: string): string;
  /** The version the binary says it is (what a resumed run must match), or undefined when it will not say. */
  cliVersion(binary: string): Promise<string | undefined>;
}

/** A CLI's report, while it runs, that the provider refused a request. */
export interface ProviderSignal {
  kind: 'rate_limited' | 'overloaded';
  retryAfterMs?: number;
}
