import type { Arm } from '../run/config-schema.js';
import type { RefusedStatus } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';

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
  /** The caller's environment; the adapter passes on only what it allowlists. */
  callerEnv: NodeJS.ProcessEnv;
  /** Set when running against the simulator: its URL and the trial's identity headers. */
  simulator?: { url: string; headers: Record<string, string> };
  /** The binary the run resolved, once, before any trial; by default the pinned one. */
  binary?: string;
}

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

/** How a CLI names and echoes what the graders read through: the graders see only the canonical transcript. */
export interface GradingConventions {
  /** The name a requested skill name resolves to, as the CLI resolves it (the graders then match it exactly). */
  skillName(requested: string): string;
  /** What the CLI's file-read tool prints before each line, which a model may copy into a planned call. */
  readEchoPrefix?: RegExp;
  /**
   * Why the trial's own evidence (what the CLI says it loaded and offered) shows the family missing in the skill
   * arm, visible in the ablation arm, or a locked tool open; undefined when it checks out.
   */
  isolationProblem(t: Transcript, expected: { arm: Arm; family: readonly string[] }): string | undefined;
}

/** One agent CLI. Everything CLI-specific (flags, env, skill folder, stream format) lives behind this. */
export interface AgentAdapter {
  readonly id: string;
  readonly skillListing: SkillListing;
  readonly grading: GradingConventions;
  /** What to change when this CLI refuses to load a skill for a cause of its own (else the generic advice). */
  readonly refusalFixes?: Partial<Record<RefusedStatus, (asked: string) => string>>;
  /** Where the family is installed inside the workspace (relative). */
  readonly skillsFolder: string;
  /** Files or folders that the CLI loads from any ancestor of its working directory, leaking into trials. */
  readonly ancestorLeaks: readonly string[];
  /** Tools that must never be available to the model in a trial (checked against the init event). */
  readonly deniedTools: readonly string[];
  /** The only tools a trial may use: the invocation locks the CLI to exactly these. */
  readonly trialTools: readonly string[];
  invocation(req: InvocationRequest): Invocation;
  parse(raw: string): Transcript;
  /** Why the caller's environment cannot reach a real model (no credentials), or undefined. */
  credentialProblem(env: NodeJS.ProcessEnv): string | undefined;
  /** Resolves the binary that will run (for the manifest and for errors before any trial). */
  resolveBinary(override?: string): string;
  /** The version the binary says it is (what a resumed run must match), or undefined when it will not say. */
  cliVersion(binary: string): Promise<string | undefined>;
}
