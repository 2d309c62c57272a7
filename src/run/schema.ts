import { z } from 'zod';
import { checkResultSchema } from '../checks/kind.js';
import { storedChecksSchema, storedExpectFields } from '../checks/registry.js';
import { ARMS, AUTHS, configSchema, tokenPriceSchema, type Arm } from './config-schema.js';

/**
 * The run folder's contract: what run.json, <n>.meta.json and results.json hold. Every stage takes its
 * vocabulary (arms, statuses, verdicts, the stored case, the graded outcome) from here, so a literal is written
 * once, and every read of a run folder is validated against it.
 *
 * Format versions: 1 adds `version`, the run's owner, trial costs and the `cost_capped` status. A folder
 * without `version` was written before versioning (format 0) and is read with the defaults below; a folder
 * of a newer version than this harness knows is refused rather than guessed at.
 */
/**
 * Format 2 added the sequential design (mode `sequential`, stored boundaries, adjusted estimates); format 3 stores
 * why a trial is not scored as a code (`nothing_to_score`), where format 2 stored a sentence (read as its code);
 * format 4 adds "not this skill" negative cases (`not`), which an older harness would grade as "no skill may fire";
 * format 5 adds the user's files (`fixtures`), which an older harness would resume without (trials in another
 * room) and whose declared instruction file it would grade as a leak, and the neighbours (`neighbours`, the fired
 * value `neighbour`, `neighbour:<dir>` columns), which it would read as names outside the family; format 6 adds a
 * case's own neighbours (a stored case's `neighbours`), which an older harness would resume without and grade as names
 * outside the family; format 7 adds conversations (a stored case's `conversation` and `by`) and MCP servers (`mcp`,
 * the fired value `tool`, `tool:<server>/<tool>` columns), which an older harness would resume as one-message,
 * tool-less trials and could not read as outcomes; format 8 adds trials stopped once their outcome was settled (the status
 * `settled`, a meta's `settled`, a stored case's `settle`), which an older harness would grade as crashes.
 */
export const RUN_FORMAT_VERSION = 8;

// Stamped by the store on every write; absent in format 0.
const version = z.number().int().min(0).optional();

export const armSchema = z.enum(ARMS);

export interface TrialRef {
  caseId: string;
  arm: Arm;
  /** 1-based trial number within case and arm. */
  n: number;
}

/** A trial's stable identity: the simulator draws from it, and a resumed run matches stored trials by it. */
export function trialKey(ref: TrialRef): string {
  return `${ref.caseId}/${ref.arm}/${ref.n}`;
}

/** Where a trial's raw transcript lives inside its run folder (what reports point a reader to). */
export function transcriptPath(ref: TrialRef): string {
  return `trials/${ref.caseId}/${ref.arm}/${ref.n}.jsonl`;
}

/** Where a stored trial's process facts are, relative to the run folder. */
export function metaPath(ref: TrialRef): string {
  return `trials/${ref.caseId}/${ref.arm}/${ref.n}.meta.json`;
}

export const sprtParamsSchema = z.object({
  threshold: z.number(),
  delta: z.number(),
  alpha: z.number(),
  beta: z.number(),
  minTrials: z.number().int(),
  maxTrials: z.number().int(),
});
export type SprtParams = z.output<typeof sprtParamsSchema>;
/** A case's decision parameters before its design is built: maxTrials is only the user's cap, if any. */
export type DecisionParams = Omit<SprtParams, 'maxTrials'> & { maxTrials?: number };

/** The sequential design a case was run under: its boundaries, so that a regrade replays exactly these. */
const storedDesignFields = z.object({
  /** `optimal`: the truncated design that always decides (mode sequential); `wald`: Wald's SPRT (mode sprt). */
  kind: z.enum(['optimal', 'wald']),
  /** The design's own last stage; the case's `decision.maxTrials` may cap it lower. */
  maxTrials: z.number().int().positive(),
  /** Per number of scored trials n (index 0 unused): fewest passes that PASS, most passes that FAIL. */
  acceptFrom: z.array(z.number().int()),
  rejectUpTo: z.array(z.number().int()),
});
export const storedDesignSchema = storedDesignFields.superRefine((d, ctx) => {
  // Boundaries a damaged file could garble into different decisions: refused, never replayed.
  if (d.acceptFrom.length !== d.maxTrials + 1 || d.rejectUpTo.length !== d.maxTrials + 1) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `the boundaries must list ${d.maxTrials + 1} stages` });
    return;
  }
  const bad = d.acceptFrom.findIndex((a, n) => !(d.rejectUpTo[n]! >= -1 && d.rejectUpTo[n]! < a && a <= n + 1));
  if (bad >= 0)
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `stage ${bad} would both PASS and FAIL, or lies outside 0–${bad} passes` });
});
export type StoredDesign = z.output<typeof storedDesignSchema>;

/**
 * An MCP server a case's trials were offered, as run.json stores it: its name and hash; a stub's tools by name (the
 * listing its trials must show, every one of them only reading); a real server's tools that only read (`true`: all).
 */
const storedMcpServerSchema = z.object({
  name: z.string(),
  hash: z.string(),
  stubTools: z.array(z.string()).optional(),
  readOnly: z.union([z.boolean(), z.array(z.string())]).optional(),
});
export type StoredMcpServer = z.output<typeof storedMcpServerSchema>;

/** The tools of a server that only read: a stub's all, a real server's as the suite marked them (`true`: all). */
export const readOnlyToolsOf = (s: Pick<StoredMcpServer, 'stubTools' | 'readOnly'>): 'all' | readonly string[] =>
  s.stubTools !== undefined || s.readOnly === true ? 'all' : Array.isArray(s.readOnly) ? s.readOnly : [];

/** Whether the tool `tool` of a stored server only reads. */
export const readsOnly = (s: StoredMcpServer, tool: string): boolean => {
  const tools = readOnlyToolsOf(s);
  return tools === 'all' || tools.includes(tool);
};

/** A case as run.json stores it: what graders need, plus the prompt and where it was written. */
export const storedCaseSchema = z.object({
  id: z.string().min(1),
  /** A family member's folder name, or `none`. */
  expect: z.string().min(1),
  /** A negative case that forbids only this member (siblings may fire); absent: no member may fire (format 3 and older). */
  not: z.string().min(1).optional(),
  exclusive: z.boolean(),
  tags: z.array(z.string()),
  plan: storedChecksSchema.optional(),
  /** The judged checks of `expect` (`judge`: rubric items a model judges, in the order written). */
  ...storedExpectFields,
  command: z.string().optional(),
  /** Resolved decision parameters (defaults ← tag ← case); maxTrials is the last stage the case may reach. */
  decision: sprtParamsSchema,
  /** The sequential design's boundaries; absent in runs made before designs were stored (Wald's, rebuilt from `decision`). */
  design: storedDesignSchema.optional(),
  /**
   * The user's files the case's workspace held (format 5): their hash (paths, bytes, modes), and whether the project's
   * instruction file was among them (then the CLI showing it to the model is no leak). Absent: none.
   */
  fixtures: z.object({ hash: z.string(), instructions: z.boolean() }).optional(),
  /**
   * The case's own neighbours (format 6), listed in its trials beside the run's `neighbours`, each with its hash; and,
   * when they change it, the skill listing its trials got (as the run's `listing`). Absent: the run's only.
   */
  neighbours: z.array(z.object({ dir: z.string(), name: z.string(), hash: z.string() })).optional(),
  listing: z.object({ chars: z.number().int(), byNameOnly: z.array(z.string()) }).optional(),
  /** `field` when its trials ran in the field (the case's or the config's context); absent: the lab. */
  context: z.literal('field').optional(),
  /** The user turn the expected skill must fire by (`expect.by`); absent: any turn of the conversation. */
  by: z.number().int().min(1).optional(),
  /**
   * The case's conversation (`history:`, `followUps:`): its hash, the earlier turns its trials started from and the
   * follow-ups they could send. Absent: one user message, as every run before conversations.
   */
  conversation: z.object({ hash: z.string(), history: z.number().int().min(0), followUps: z.number().int().min(0) }).optional(),
  /**
   * The MCP servers its trials were offered (the config's and its own), each with its hash; a stub's tools by name (the
   * listing its trials must show). Absent: none (and in runs made before MCP servers).
   */
  mcp: z.array(storedMcpServerSchema).optional(),
  /** `false` when the case's trials run to their end (the case's or the run's `settle: false`); absent: settled early where they can be. */
  settle: z.literal(false).optional(),
  /** Absent in format 0. */
  prompt: z.string().optional(),
  source: z.object({ file: z.string(), line: z.number().int() }).optional(),
});
export type GradableCase = z.output<typeof storedCaseSchema>;

export const familyMemberSchema = z.object({ dir: z.string(), name: z.string() });
export type FamilyMember = z.output<typeof familyMemberSchema>;

/** Stage boundaries as a scheduler walks them: per number of scored trials (index 0 unused). */
export const boundariesSchema = z.object({
  minTrials: z.number().int().min(0),
  maxTrials: z.number().int().positive(),
  acceptFrom: z.array(z.number().int()),
  rejectUpTo: z.array(z.number().int()),
});

/**
 * `run --baseline`: the stored run the candidate ran against, and each case's canary. Its boundaries stop the
 * candidate's skill arm (accept: a drop of `margin` ruled out; reject: the drop shown); `base` is where the base
 * run's case ended, `baseRule` the rule it ended by (with `baseAdded` trials topped up after it), from which the
 * critical z was calibrated.
 */
export const canarySchema = z.object({
  base: z.object({ runId: z.string(), dir: z.string() }),
  /** The false-alarm rate across the compared cases, and each case's share of it (Bonferroni). */
  alpha: z.number(),
  caseAlpha: z.number(),
  margin: z.number(),
  futilityLevel: z.number(),
  /** The run stops scheduling once any case is REGRESSED. */
  stopAtFirstRegression: z.boolean(),
  /** The user's cap on each case's trials (`--max-trials`), when one was given: a resume is checked against it. */
  maxTrials: z.number().int().positive().optional(),
  cases: z.array(
    z.object({
      caseId: z.string(),
      base: z.object({ trials: z.number().int().positive(), passes: z.number().int().min(0) }),
      baseRule: boundariesSchema,
      baseAdded: z.number().int().min(0),
      critical: z.number(),
      /** REGRESSED is looked for up to this trial (its critical z calibrated for it); later ones only rule the margin out. */
      regressionCap: z.number().int().positive().optional(),
      design: boundariesSchema,
    }),
  ),
});
export type StoredCanary = z.output<typeof canarySchema>;

export const RUN_STATUSES = ['running', 'completed', 'interrupted', 'cost_capped', 'isolation_stopped', 'failed'] as const;
export const runStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.output<typeof runStatusSchema>;

export const runManifestSchema = z.object({
  version,
  runId: z.string().min(1),
  harness: z.object({ name: z.literal('skillprobe'), version: z.string() }),
  status: runStatusSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  /** The process writing the run: a `running` run whose owner is gone was interrupted (format 0: unknown). */
  owner: z.object({ pid: z.number().int(), host: z.string() }).optional(),
  agent: z.object({ id: z.string(), binary: z.string(), cliVersion: z.string().optional() }),
  model: z.string(),
  reportedModel: z.string().optional(),
  config: configSchema,
  configFile: z.string().optional(),
  skills: z.array(z.object({ dir: z.string(), name: z.string(), hash: z.string() })),
  skillsHash: z.string(),
  /** The user's other skills installed beside the family in both arms (`neighbours:`), and their hash; absent: none. */
  neighbours: z.array(z.object({ dir: z.string(), name: z.string(), hash: z.string() })).optional(),
  neighboursHash: z.string().optional(),
  /**
   * With neighbours: the skill listing the CLI shows the model (the family and the neighbours), its size against the
   * CLI's budget (absent for a CLI that lists every skill whole), and the family's skills it lists by name only.
   */
  listing: z
    .object({ cli: z.string(), chars: z.number().int(), budgetChars: z.number().int().optional(), byNameOnly: z.array(z.string()) })
    .optional(),
  /**
   * The family's own entries in the CLI's skill listing, in characters, and the CLI's budget for the whole listing
   * (absent for a CLI that lists every skill whole): what every trial of the skill arm lists (absent in runs made
   * before it was kept).
   */
  familyListing: z.object({ cli: z.string(), chars: z.number().int(), budgetChars: z.number().int().optional() }).optional(),
  cases: z.object({ files: z.array(z.string()), hash: z.string(), defs: z.array(storedCaseSchema) }),
  /** A hash of every case's fixtures (format 5), over the whole suite a shard split; absent when no case has any. */
  fixturesHash: z.string().optional(),
  /** A hash of every case's own neighbours (format 6), over the whole suite a shard split; absent when no case has any. */
  caseNeighboursHash: z.string().optional(),
  family: z.array(familyMemberSchema),
  /** The simulator's profile file, name and seed, and a hash of everything in it that sets behaviour. */
  simulator: z
    .object({
      profile: z.string(),
      name: z.string(),
      seed: z.number(),
      behaviourHash: z.string().optional(),
      /**
       * The seed of this run's draws, mixed into every trial's key: a fresh one per run, so two runs of a profile draw
       * independently; `given` (`--draw-seed`) when the user chose it, and runs given the same seed share their draws
       * trial for trial (common random numbers). Absent in runs made before: their draws were the profile seed's alone.
       */
      draws: z.object({ seed: z.number().int(), given: z.boolean() }).optional(),
    })
    .nullable(),
  trials: z.object({ planned: z.number().int(), finished: z.number().int(), notStarted: z.number().int() }),
  /** When the run was resumed (`--resume`), oldest first. */
  resumedAt: z.array(z.string()).optional(),
  /** What had changed when a resume was forced (`--force`): trials before and after differ in these. */
  forcedChanges: z.array(z.string()).optional(),
  /**
   * Skill folders edited while the run went, with their new hash (none: removed). The trials were not affected: each
   * got the skills as they were at the start (the run folder's `skills/`), which `skillsHash` names.
   */
  skillsChangedDuringRun: z.array(z.object({ dir: z.string(), hash: z.string().optional() })).optional(),
  /** A share of the suite (`run --shard I/N`): `suiteCases` are all the cases the N shards split between them. */
  shard: z.object({ index: z.number().int().min(1), total: z.number().int().min(1), suiteCases: z.array(z.string()) }).optional(),
  /** A run joined from shard folders (`skillprobe merge`): where its trials came from. */
  mergedFrom: z.array(z.object({ runId: z.string(), dir: z.string(), shard: z.string() })).optional(),
  canary: canarySchema.optional(),
  /**
   * `isolation_stopped`: what the isolation check found in the run's first trials, which all failed it;
   * `interrupted` at a subscription's usage limit: the CLI's words and when it resets.
   */
  stoppedBecause: z.string().optional(),
  /** `run --resume --add-trials N`: trials added to every case after its design stopped it, oldest first. */
  topUps: z.array(z.number().int().positive()).optional(),
  /** `concurrency: auto`: every change of the limit, with when (epoch ms) and why. */
  concurrency: z
    .object({
      mode: z.literal('auto'),
      trace: z.array(z.object({ at: z.number(), from: z.number().int(), to: z.number().int(), why: z.string() })),
    })
    .optional(),
});
export type RunManifest = z.output<typeof runManifestSchema>;

/**
 * What the agent's adapter set up for one trial and gathered beside its stdout, kept so the transcript can be
 * parsed again (regrade) exactly as it was graded.
 */
export const trialEvidenceSchema = z.object({
  /** Per-trial secrets planted in each installed SKILL.md, by skill folder: one in a command's output proves a read. */
  skillNonces: z.record(z.string()).optional(),
  /** A field trial's workspace: the paths added, removed or changed while it ran (none, when nothing ran). */
  workspaceChanged: z.array(z.string()).optional(),
  /**
   * A field trial of a CLI whose stream never shows a refused call (Codex): each call its refusing hook was handed, in
   * order, and why its own session record does not show every acting call refused (absent when it does).
   */
  field: z
    .object({
      hook: z.array(z.object({ tool: z.string(), input: z.record(z.unknown()), refused: z.boolean() })),
      sessionProblem: z.string().optional(),
    })
    .optional(),
  /**
   * A trial started from its case's history: whether the CLI's own record shows the first request it answered built
   * on the seeded turns (`source`: where that was read; `detail`: what it showed instead).
   */
  history: z.object({ source: z.string(), held: z.boolean(), detail: z.string().optional() }).optional(),
  /**
   * Per MCP server of the trial, as it recorded them outside anything the model can read: whether it started, and a
   * stub's every call it answered (tool, arguments, an error or not, when), a real server's end by itself. Absent: no
   * server. Runs stored before real servers were watched hold the stubs' records only.
   */
  mcp: z
    .array(
      z.object({
        server: z.string(),
        started: z.boolean(),
        /** The tools it listed when the CLI asked (absent: the CLI never asked, or a run before it was recorded). */
        listed: z.array(z.string()).optional(),
        /** Whether the CLI ended it; false: it was killed while the trial ran (absent: a run before it was recorded). */
        ended: z.boolean().optional(),
        calls: z.array(z.object({ tool: z.string(), args: z.record(z.unknown()), isError: z.boolean(), at: z.string() })),
        /** A real server that ended by itself while the trial ran, or could not be started (absent: neither). */
        exited: z.object({ code: z.number().int().nullable(), signal: z.string().nullable(), error: z.string().optional() }).optional(),
      }),
    )
    .optional(),
  /** What the CLI itself says the model was shown, for a CLI whose event stream does not say. */
  shown: z
    .object({
      /** Where this came from (the CLI's session record, or its skill listing measured once per arm). */
      source: z.string(),
      /** Skills listed to the model, by name. */
      skills: z.array(z.string()),
      /** Instruction files the CLI put into the model's context (AGENTS.md, GEMINI.md, …). */
      contextFiles: z.array(z.string()).default([]),
      /** The sandbox the CLI ran tools in, in its own words. */
      sandbox: z.string().optional(),
      model: z.string().optional(),
      cwd: z.string().optional(),
      cliVersion: z.string().optional(),
      /**
       * The MCP servers whose tools the CLI's first request offered the model (Codex: its deferred tool namespaces);
       * absent where the CLI's record does not say, or was read before this was.
       */
      mcpServers: z.array(z.string()).optional(),
    })
    .optional(),
});
export type TrialEvidence = z.output<typeof trialEvidenceSchema>;
export type ShownEvidence = NonNullable<TrialEvidence['shown']>;

/** The file that makes a folder a run of several agents (`run --agent a,b`). */
export const AGENT_RUNS_FILE = 'agents.json';

/** A run of several agents: the suite ran once per agent, each a complete run folder of its own inside this one. */
export const agentRunsSchema = z.object({
  version,
  runId: z.string(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  /** `context`: one run per context of one agent (`--context lab,field`), each entry's id the context; absent: one per agent. */
  by: z.literal('context').optional(),
  /** Every agent the run is for, in order (absent in older folders: the agents listed are all there were). */
  planned: z.array(z.string()).optional(),
  /** The agents started so far, each as it started and, once it ended, as it ended. */
  agents: z.array(
    z.object({
      id: z.string(),
      /** The agent's run folder, relative to this one. */
      dir: z.string(),
      binary: z.string(),
      cliVersion: z.string().optional(),
      model: z.string(),
      status: runStatusSchema,
      /** The exit code its verdicts give (absent until it is graded). */
      exitCode: z.number().int().optional(),
    }),
  ),
});
export type AgentRuns = z.output<typeof agentRunsSchema>;

/** Process facts of one trial, beside its transcript. */
export const trialMetaSchema = z.object({
  version,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  wallMs: z.number(),
  /** The harness's own deadline fired and it killed the process tree. */
  timedOut: z.boolean(),
  /** Stopped by the user (Ctrl-C) or by the run being aborted. */
  interrupted: z.boolean(),
  stderrTail: z.string(),
  attempt: z.number().int().min(1),
  /** A failure to start the process at all (binary missing, …). */
  spawnError: z.string().optional(),
  startedAt: z.string(),
  /** Where the trial ran, when workspaces are kept (--keep-workspaces). */
  workspace: z.string().optional(),
  /** Bytes the agent wrote to stdout (format 0: not recorded). */
  outputBytes: z.number().int().min(0).optional(),
  /** The agent printed more than the cap: the transcript holds the first `outputBytes` bytes and it was stopped. */
  outputTruncated: z.boolean().optional(),
  /** The harness stopped the agent at the turn limit, for a CLI that has no limit of its own. */
  turnLimitHit: z.boolean().optional(),
  /** The agent was stopped once no later event could change the trial's outcome (`settledAt`): the transcript ends there. */
  settled: z.boolean().optional(),
  /** The agent CLI that wrote the transcript (its id), so it is never read with another CLI's parser. */
  agent: z.string().optional(),
  /** The hash of the skills the trial's workspace got (`familyHash`; format 3 and before: not recorded; none without skills). */
  skillsHash: z.string().optional(),
  /** How long the agent had printed nothing when it ended, in ms: a stream that stalled shows as a long quiet. */
  quietMs: z.number().int().min(0).optional(),
  evidence: trialEvidenceSchema.optional(),
  /**
   * The CLI said the subscription's usage limit was reached (`auth: login`): the trial is missing data, never a
   * miss, and runs again once the limit resets. `resetAt`: when it resets (ISO), where the CLI said.
   */
  usageLimit: z.object({ message: z.string(), resetAt: z.string().optional() }).optional(),
});
export type TrialMeta = z.output<typeof trialMetaSchema>;
export type UsageLimit = NonNullable<TrialMeta['usageLimit']>;

export const TRIAL_STATUSES = [
  'ok',
  'timeout',
  'max_turns',
  'max_budget',
  'agent_error',
  'infra_error',
  'killed',
  'isolation_error',
  'output_too_large',
  'settled',
] as const;
export const trialStatusSchema = z.enum(TRIAL_STATUSES);
export type TrialStatus = z.output<typeof trialStatusSchema>;

/** Statuses that carry no evidence about the skill: left out of n, reported, never scored as "did not trigger". */
const NO_EVIDENCE_STATUSES = [
  'infra_error',
  'isolation_error',
  'agent_error',
  'killed',
  'output_too_large',
] as const satisfies readonly TrialStatus[];
export const NO_EVIDENCE: ReadonlySet<TrialStatus> = new Set(NO_EVIDENCE_STATUSES);

/** Statuses whose trial shows the model's choice whole: it ran to its end, or was stopped once its outcome was settled. */
export const outcomeStands = (s: TrialStatus): boolean => s === 'ok' || s === 'settled';

/** Stops under the budget given (time, turns, money) after the model acted: failures unless `budgetStops: exclude`. */
const BUDGET_STOP_STATUSES = ['timeout', 'max_turns', 'max_budget'] as const satisfies readonly TrialStatus[];
export const BUDGET_STOPS: ReadonlySet<TrialStatus> = new Set(BUDGET_STOP_STATUSES);

/** Why an ablation trial is not scored: without the skill only plan checks can be. */
export const NOTHING_TO_SCORE = 'nothing_to_score';

/** Why a trial is not scored although it ran: the judge gave no verdict on one of its items (a tie, unreadable replies). */
export const JUDGE_ERROR = 'judge_error';

/** Why a trial is not scored: the status that left it out, or an arm with nothing to score. Reporters word them. */
export const EXCLUSION_REASONS = [...NO_EVIDENCE_STATUSES, ...BUDGET_STOP_STATUSES, NOTHING_TO_SCORE, JUDGE_ERROR] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];
export const exclusionReasonSchema = z.union([
  z.enum(EXCLUSION_REASONS),
  // Format 2 and older stored this reason as the sentence reports showed.
  z.literal('nothing to score without the skill').transform((): ExclusionReason => NOTHING_TO_SCORE),
]);

export const SKILL_LOAD_STATUSES = ['loaded', 'denied', 'unknown', 'invalid'] as const;
export const skillLoadStatusSchema = z.enum(SKILL_LOAD_STATUSES);
export type SkillLoadStatus = z.output<typeof skillLoadStatusSchema>;

export const firingSchema = z.object({
  /** The family member's folder name, or undefined when the model asked for something outside the family. */
  skill: z.string().optional(),
  /**
   * Outside the family: the neighbour it names, a declared one's folder name or, in the field, a skill the CLI bundles
   * (results before neighbours: absent).
   */
  neighbour: z.string().optional(),
  /** What the model wrote, as written. */
  requested: z.string(),
  via: z.enum(['invoke', 'read']),
  /** For invocations: what the CLI did with it. Reads have no load step. */
  status: skillLoadStatusSchema.optional(),
  callId: z.string(),
  /** Position of the call among all events, for ordering. */
  at: z.number().int(),
  /** The user turn it came in (the case's prompt is 1); absent: a trial of one user message. */
  turn: z.number().int().min(1).optional(),
});
export type Firing = z.output<typeof firingSchema>;

export const planGradeSchema = z.object({ plans: z.array(z.string()), checks: z.array(checkResultSchema), pass: z.boolean() });
export type PlanGrade = z.output<typeof planGradeSchema>;

/**
 * What fired, seen from the case: the expected skill; `sibling`, another member (for a negative case, one it forbids: a
 * false trigger); `neighbour`, a skill offered beside the family, never under test: one of the user's other skills
 * (`neighbours:`) or, in the field, one the CLI bundles; `other`, only names nothing installed or listed, or members a "not this skill" case leaves free; `none`; `self`, the model
 * went around the skills: its first acting call (a command, a write, a fetch, a sub-agent) came before any skill
 * fired (only a field trial offers such calls); `tool`, the model used an MCP tool the trial offered before any skill
 * fired (results before MCP servers: never).
 */
export const FIRED_CATEGORIES = ['expected', 'sibling', 'neighbour', 'other', 'none', 'self', 'tool'] as const;
export type FiredCategory = (typeof FIRED_CATEGORIES)[number];

/** No skill: a negative case's `expect`, and the confusion-matrix column of a trial where none fired. */
export const NONE = 'none';
/** The confusion-matrix column of a trial where more than one skill fired (names outside the family count as one). */
export const MULTIPLE = 'multiple';
/** The confusion-matrix column of a trial where only names outside the family fired. */
export const OTHER = 'other';
/**
 * The confusion-matrix column of a trial where only the neighbour `dir` fired (a declared one, or a skill the CLI
 * bundles in the field): named apart from any family member.
 */
export const neighbourColumn = (dir: string): string => `neighbour:${dir}`;
/** The confusion-matrix column of a trial where the model acted by itself before any skill fired. */
export const SELF = 'self';
/** The confusion-matrix column of a trial where the model used the MCP tool `<server>/<tool>` before any skill fired. */
export const toolColumn = (tool: string): string => `${TOOL_COLUMN}${tool}`;
const TOOL_COLUMN = 'tool:';
/** Whether a confusion-matrix column is an MCP tool's (`toolColumn`). */
export const isToolColumn = (column: string): boolean => column.startsWith(TOOL_COLUMN);
/** The MCP tool (`<server>/<tool>`) a tool's column names. */
export const toolOfColumn = (column: string): string => column.slice(TOOL_COLUMN.length);

/** The tokens a trial's model calls used, as its CLI reported them; `input` is all input, cached or not. */
export const trialUsageSchema = z.object({
  input: z.number(),
  /** Of `input`, what the provider's prompt cache served. */
  cached: z.number(),
  /** Of `input`, what was written to the prompt cache, when the CLI says (Claude Code, Codex). */
  cacheWrite: z.number().optional(),
  output: z.number(),
});
export type TrialUsage = z.output<typeof trialUsageSchema>;

export const trialOutcomeSchema = z.object({
  caseId: z.string(),
  arm: armSchema,
  n: z.number().int(),
  status: trialStatusSchema,
  statusDetail: z.string().optional(),
  /** null: the trial carries no evidence (infra, isolation, crash) or nothing is scored in this arm. */
  passed: z.boolean().nullable(),
  excludedBecause: exclusionReasonSchema.optional(),
  firings: z.array(firingSchema),
  /** The confusion-matrix column: a family member's folder name, `none`, `multiple` or `other`. */
  firedColumn: z.string(),
  fired: z.enum(FIRED_CATEGORIES),
  readOnly: z.boolean(),
  /** The user turn the expected skill first fired in, in a trial of a conversation (`followUps:`); absent otherwise. */
  firedTurn: z.number().int().min(1).optional(),
  flags: z.object({ noop: z.boolean(), clarifying: z.boolean() }),
  plan: planGradeSchema.optional(),
  parseWarnings: z.number().int(),
  /** Process facts that reports and cost caps need (format 0: absent). */
  wallMs: z.number().optional(),
  attempt: z.number().int().optional(),
  /** What the CLI says the trial cost, in USD, when it says. */
  costUsd: z.number().optional(),
  /** The tokens the CLI says the trial used, when it says (absent in folders written before it was kept). */
  usage: trialUsageSchema.optional(),
  /** The model requests its transcript shows (`grade/model-requests.ts`); absent in results graded before they were counted. */
  requests: z.number().int().optional(),
  /** The judge's verdict on each `expect.judge` item, from its samples; `scored` false while the judge is uncalibrated. */
  judge: z
    .object({
      scored: z.boolean(),
      items: z.array(
        z.object({ item: z.string(), samples: z.array(z.enum(['yes', 'no', 'error'])), verdict: z.enum(['yes', 'no', 'judge_error']) }),
      ),
      /** Whether the trial passed its other checks (the skill, the plan) before its items were scored (older results: absent). */
      passedWithoutItems: z.boolean().optional(),
    })
    .optional(),
});
export type TrialOutcome = z.output<typeof trialOutcomeSchema>;

const intervalShape = { lo: z.number(), hi: z.number() };
export const intervalSchema = z.object(intervalShape);
export type Interval = z.output<typeof intervalSchema>;
// NaN (n = 0) is stored as null by JSON.stringify.
const estimate = z
  .number()
  .nullable()
  .transform((x) => x ?? Number.NaN);
export const rateSchema = z.object({ ...intervalShape, successes: z.number(), n: z.number(), p: estimate });
export type Rate = z.output<typeof rateSchema>;

const trialCountShape = { trials: z.number().int(), example: z.number().int().optional() };
const trialCountSchema = z.object(trialCountShape);
export type TrialCount = z.output<typeof trialCountSchema>;

export const failureBreakdownSchema = z.object({
  didNotFire: trialCountSchema,
  sibling: trialCountSchema,
  planWrong: trialCountSchema,
  falseTrigger: trialCountSchema,
  budgetStop: trialCountSchema,
  firedOthers: z.array(z.object({ skill: z.string(), trials: z.number().int() })),
  /** Failed trials a neighbour took (the model went to another of the user's skills); results before neighbours: none. */
  neighbour: trialCountSchema.default({ trials: 0 }),
  /** Per neighbour, most often first: the scored trials it fired in, and their share with its interval. */
  firedNeighbours: z.array(z.object({ skill: z.string(), trials: z.number().int(), share: rateSchema })).default([]),
  planChecks: z.array(
    z.object({ check: z.string(), failed: z.number().int(), details: z.array(z.object({ detail: z.string(), trials: z.number().int() })) }),
  ),
  whenSilent: z.object({ clarifying: z.number().int(), answered: z.number().int(), empty: z.number().int() }),
  refused: z.object({
    ...trialCountShape,
    calls: z.array(z.object({ status: skillLoadStatusSchema.exclude(['loaded']), requested: z.string(), trials: z.number().int() })),
  }),
  /** Scored trials the judge said no to on some `expect.judge` item (results written before the judge: none). */
  judgeNo: trialCountSchema.default({ trials: 0 }),
  /** Scored trials of a positive case where the model acted by itself before any skill fired; absent when none. */
  wentAround: trialCountSchema.optional(),
  /**
   * Scored trials of a positive case where the model used an MCP tool before any skill fired, and which tools, most
   * often first; absent when none.
   */
  usedTool: z.object({ ...trialCountShape, tools: z.array(z.object({ tool: z.string(), trials: z.number().int() })) }).optional(),
  /**
   * Per judged item, in rubric order: the scored trials the judge said no to, and the trials it gave no verdict on
   * (left out of n while it is calibrated); `scored` false while it is uncalibrated, when its verdicts are only shown.
   */
  judged: z.array(z.object({ item: z.string(), no: z.number().int(), noVerdict: z.number().int(), scored: z.boolean() })).default([]),
});
export type FailureBreakdown = z.output<typeof failureBreakdownSchema>;

export const caseArmSummarySchema = z.object({
  caseId: z.string(),
  arm: armSchema,
  tags: z.array(z.string()),
  expect: z.string(),
  /** The member a "not this skill" case forbids (`expect` is then `none`). */
  not: z.string().optional(),
  trials: z.number().int(),
  rate: rateSchema,
  passK: z.array(z.object({ k: z.number().int(), passAtK: estimate, passHatK: estimate })),
  fired: z.object({
    expected: z.number(),
    sibling: z.number(),
    neighbour: z.number().default(0),
    other: z.number(),
    none: z.number(),
    readOnly: z.number(),
    /** Usable trials where the model acted by itself before any skill fired; absent when none (and in the lab). */
    self: z.number().optional(),
    /** Usable trials where the model used an MCP tool before any skill fired; absent when none (and without MCP servers). */
    tool: z.number().optional(),
  }),
  /** The rate of `fired.self` among the usable trials, with its interval; absent when none. */
  wentAround: rateSchema.optional(),
  /**
   * A case with follow-ups, in the skill arm: of the usable trials, how many first fired the expected skill on each user
   * turn (`counts[k - 1]`), and the share that had by turn k (`byTurn[k - 1]`), its intervals holding jointly over every
   * k (each at `pointwiseConfidence`). Absent otherwise.
   */
  firingTurns: z.object({ counts: z.array(z.number().int()), byTurn: z.array(rateSchema), pointwiseConfidence: z.number() }).optional(),
  statuses: z.record(trialStatusSchema, z.number()),
  excluded: z.number().int(),
  flags: z.object({ noop: z.number(), clarifying: z.number() }),
  failures: failureBreakdownSchema,
});
export type CaseArmSummary = z.output<typeof caseArmSummarySchema>;

export const pairedCountsSchema = z.object({ both: z.number(), skillOnly: z.number(), ablationOnly: z.number(), neither: z.number() });
export type PairedCounts = z.output<typeof pairedCountsSchema>;

export const summarySchema = z.object({
  confidence: z.number(),
  cases: z.array(caseArmSummarySchema),
  confusion: z.object({
    rows: z.array(z.string()),
    columns: z.array(z.string()),
    cells: z.record(z.record(rateSchema)),
    /** The "not this skill" rows (`not <member>`), each with the member it forbids (format 3 and older: none). */
    forbids: z.record(z.string()).default({}),
  }),
  aggregates: z.object({ recall: rateSchema, falseTriggerRate: rateSchema, precision: rateSchema, f1: estimate }),
  ablation: z.array(
    z.object({
      caseId: z.string(),
      pairs: z.number().int(),
      counts: pairedCountsSchema,
      skillRate: rateSchema,
      ablationRate: rateSchema,
      difference: z.object({ diff: estimate, ...intervalShape }),
      pValue: estimate,
    }),
  ),
});
export type Summary = z.output<typeof summarySchema>;
export type ConfusionMatrix = Summary['confusion'];
export type Aggregates = Summary['aggregates'];
export type AblationRow = Summary['ablation'][number];
export type RefusedStatus = FailureBreakdown['refused']['calls'][number]['status'];

export const VERDICTS = ['PASS', 'FAIL', 'INCONCLUSIVE', 'ERROR'] as const;
export const verdictSchema = z.enum(VERDICTS);
export type Verdict = z.output<typeof verdictSchema>;

const optionalNumber = z
  .number()
  .nullable()
  .optional()
  .transform((x) => (x === null ? Number.NaN : x));
export const caseVerdictSchema = z.object({
  caseId: z.string(),
  verdict: verdictSchema,
  mode: configSchema.shape.decision.removeDefault().shape.mode.removeDefault(),
  params: sprtParamsSchema,
  trials: z.number().int(),
  scored: z.number().int(),
  passes: z.number().int(),
  excluded: z.number().int(),
  decidedAt: z.number().int().optional(),
  afterDecision: z.number().int().optional(),
  llr: optionalNumber,
  fixedNEquivalent: z.number().optional(),
  pBelow: optionalNumber,
  pBelowAdjusted: optionalNumber,
  pAbove: optionalNumber,
  /** The design's exact error rates as run (with any cap), and its own maximum. */
  design: z.object({ kind: storedDesignFields.shape.kind, maxTrials: z.number().int(), alpha: z.number(), beta: z.number() }).optional(),
  /** The rate adjusted for stopping early: median-unbiased estimate and exact interval under the design's stopping rule. */
  estimate: z.object({ rate: z.number(), lower: z.number(), upper: z.number(), level: z.number() }).optional(),
  descriptiveInterval: z.boolean(),
  reason: z.string(),
  /** A judged case whose judge cannot back the verdict: its items went unchecked (uncalibrated), or it is UNSTABLE here. */
  untrustedJudge: z.enum(['uncalibrated', 'unstable']).optional(),
});
export type CaseVerdict = z.output<typeof caseVerdictSchema>;

/** The run's essentials, from the manifest: what made these numbers, so results.json stands on its own. */
export const runFactsSchema = z.object({
  agent: z.object({ id: z.string(), cliVersion: z.string().optional() }),
  model: z.object({ requested: z.string(), reported: z.string().optional() }),
  /** A skillprobe model simulator answered, not a model: the numbers echo its profile. */
  simulated: z.boolean(),
  simulator: runManifestSchema.shape.simulator,
  /** How the trials reached the model (the config's `auth`); absent in results made before it was recorded. */
  auth: z.enum(AUTHS).optional(),
  status: runStatusSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  trials: runManifestSchema.shape.trials,
  decision: configSchema.shape.decision.removeDefault(),
  grading: configSchema.shape.grading.removeDefault(),
  /** Sum of the trials' reported costs, in USD (absent when the CLI reported none). */
  costUsd: z.number().optional(),
  /**
   * `costUsd` is notional: the CLI's price of its tokens, not money spent, since a subscription login (`auth: login`)
   * pays with its quota. Absent when the cost is billed, or there is none.
   */
  costNotional: z.literal(true).optional(),
  /** Sum of the trials' reported token usage, over the `trials` that reported it (absent when none did). */
  tokens: trialUsageSchema.extend({ trials: z.number().int() }).optional(),
  /** The configured price of the model the run asked for (`prices`), when there is one. */
  tokenPrice: tokenPriceSchema.extend({ model: z.string() }).optional(),
  concurrency: runManifestSchema.shape.concurrency,
});
export type RunFacts = z.output<typeof runFactsSchema>;

/** Trials the store could not read: listed, left out, never a crash. */
export const damagedTrialSchema = z.object({ path: z.string(), problem: z.string() });
export type DamagedTrial = z.output<typeof damagedTrialSchema>;

/** A calibration example or control the judge got wrong (or gave no verdict on). */
export const calibrationMissSchema = z.object({
  /** `example` (the config's), `empty`, `injection`, `reworded`, `reordered`. */
  kind: z.string(),
  item: z.string(),
  /** The answer text shown, cut for the report. */
  answer: z.string(),
  /** The right answer; for `reworded` and `reordered`, which have none, the verdict on the plain request they must agree with. */
  expected: z.enum(['yes', 'no']),
  got: z.enum(['yes', 'no', 'judge_error']),
});
export type CalibrationMiss = z.output<typeof calibrationMissSchema>;

export const judgeStabilitySchema = z.object({
  caseId: z.string(),
  /** (trial, item) pairs with at least two readable samples. */
  comparable: z.number().int(),
  /** Of those, pairs whose samples disagreed. */
  disagreeing: z.number().int(),
  share: rateSchema,
  /** One-sided exact p that the share is at most maxFlipRate; UNSTABLE when ≤ alpha. */
  p: z.number().nullable(),
  unstable: z.boolean(),
});
export type JudgeStability = z.output<typeof judgeStabilitySchema>;

export const judgeFindingsSchema = z.object({
  agent: z.string(),
  /** The judge CLI's version, as its last step recorded it. */
  cliVersion: z.string().optional(),
  model: z.string(),
  /** The judge is the model under test (allowed by `judge.allowSelf`). */
  self: z.boolean(),
  samples: z.number().int(),
  maxFlipRate: z.number(),
  /** Controls and examples asked, and the ones missed: any miss and the judge's verdicts are shown, never scored. */
  calibration: z.object({ asked: z.number().int(), missed: z.array(calibrationMissSchema) }),
  calibrated: z.boolean(),
  /** Judge requests asked (each `samples` times), and those still unanswered (a judge step stopped short). */
  requests: z.number().int(),
  unanswered: z.number().int(),
  costUsd: z.number().optional(),
  stability: z.array(judgeStabilitySchema),
});
export type JudgeFindings = z.output<typeof judgeFindingsSchema>;
/** The judge's findings as grading knows them; stability is measured where the verdicts are (`buildResults`). */
export type JudgeGrading = Omit<JudgeFindings, 'stability'>;

/** What a trial spends, per arm: all input tokens, the cached share of them, output tokens, USD, wall time, model requests. */
export const ARM_COST_METRICS = ['input', 'cached', 'output', 'costUsd', 'wallMs', 'requests'] as const;
export type ArmCostMetric = (typeof ARM_COST_METRICS)[number];
const armCostMetricSchema = z.enum(ARM_COST_METRICS);
/** Skill − ablation per trial, with Welch's interval; `ratio`, skill over ablation with Fieller's, when it is bounded. */
const costDifferenceSchema = z.object({
  diff: z.number(),
  lo: estimate,
  hi: estimate,
  ratio: z.object({ estimate: z.number(), lo: z.number(), hi: z.number() }).optional(),
});
export type CostDifference = z.output<typeof costDifferenceSchema>;
export const armCostsSchema = z.object({
  confidence: z.number(),
  /**
   * The family's entries in the CLI's skill listing, and their share of its budget (run.json's `familyListing`; a CLI
   * that lists every skill whole has neither budget nor share).
   */
  listing: z
    .object({ cli: z.string(), chars: z.number().int(), budgetChars: z.number().int().optional(), share: z.number().optional() })
    .optional(),
  cases: z.array(
    z.object({
      caseId: z.string(),
      expect: z.string(),
      arms: z.array(
        z.object({
          arm: armSchema,
          /** Trials that carry evidence (a fault's spending says nothing of the skill): each metric is over those that report it. */
          trials: z.number().int(),
          /** Of them, trials stopped once their outcome was settled: counted as spent, so the means are what a run that settles spends. */
          settled: z.number().int().default(0),
          metrics: z.record(armCostMetricSchema, z.object({ n: z.number().int(), mean: z.number(), sd: estimate })),
        }),
      ),
      /** Per metric both arms measured: skill − ablation. */
      difference: z.record(armCostMetricSchema, costDifferenceSchema),
    }),
  ),
  /**
   * Per family skill, over its positive cases with both arms measured (each case weighs the same): skill − ablation per
   * trial, and the pass rate's difference (the ablation table's, averaged) where those cases have one.
   */
  skills: z.array(
    z.object({
      skill: z.string(),
      cases: z.array(z.string()),
      difference: z.record(armCostMetricSchema, costDifferenceSchema),
      passRate: z.object({ diff: z.number(), cases: z.number().int() }).optional(),
    }),
  ),
});
export type ArmCosts = z.output<typeof armCostsSchema>;

/** What the trials stopped once settled left unspent, as far as the run can tell (`verdict/settled-savings.ts`). */
export const settledSavingsSchema = z.object({
  /** Trials stopped once their outcome was settled. */
  settled: z.number().int(),
  /** Of them, those with a trial alike to estimate from (same case, arm and choice, run to its end). */
  estimated: z.number().int(),
  /** Per estimated trial, summed: the trials alike's mean less its own (tokens where the CLI reported them). */
  saved: z.object({ inputTokens: z.number(), outputTokens: z.number(), wallMs: z.number(), costUsd: z.number().optional() }),
});
export type SettledSavings = z.output<typeof settledSavingsSchema>;

export const resultsSchema = z.object({
  version,
  runId: z.string(),
  harnessVersion: z.string(),
  run: runFactsSchema,
  gradedAt: z.string(),
  options: z.object({ readCountsAsFiring: z.boolean(), budgetStopsFail: z.boolean() }),
  outcomes: z.array(trialOutcomeSchema),
  summary: summarySchema,
  verdicts: z.array(caseVerdictSchema),
  damaged: z.array(damagedTrialSchema).default([]),
  /** The model judge: who judged, whether it passed calibration, and each judged case's stability. */
  judge: judgeFindingsSchema.optional(),
  /** What a trial costs per case and arm, and per skill, skill − ablation (results before it was measured: absent). */
  armCosts: armCostsSchema.optional(),
  /** The trials stopped once their outcome was settled and what that saved (absent: none was). */
  settled: settledSavingsSchema.optional(),
  /** The exit code these results give under the run's inconclusive policy. */
  exitCode: z.number().int(),
});
export type Results = z.output<typeof resultsSchema>;

/**
 * results.json as a list of runs reads it: the verdicts, each case's skill-arm rate, each trial's case and cost and
 * the run's cost, checked; the rest is left unread. The checking is most of a read's time, and a list of runs reads
 * fifty at a cold start (a thousand for a filter).
 */
export const resultsHeadSchema = z.object({
  run: runFactsSchema.pick({ costUsd: true }),
  verdicts: z.array(caseVerdictSchema),
  summary: z.object({ cases: z.array(caseArmSummarySchema.pick({ caseId: true, arm: true, rate: true })) }),
  outcomes: z.array(z.object({ caseId: z.string(), costUsd: z.number().optional() })),
});
export type ResultsHead = z.output<typeof resultsHeadSchema>;
