import { z } from 'zod';

/**
 * The config file's schema. It lives with the run folder's contract because every run.json stores the resolved
 * config: a regrade, a resume or a comparison reads it back from there.
 */

export const ARMS = ['skill', 'ablation'] as const;
export type Arm = (typeof ARMS)[number];

/**
 * Where trials run: `lab`, the CLI's read tools and its skill tool only (what the description does, isolated);
 * `field`, the CLI's default tool menu with every acting call refused before it runs (what a user's session does).
 */
export const CONTEXTS = ['lab', 'field'] as const;
export type Context = (typeof CONTEXTS)[number];
export const contextSchema = z.enum(CONTEXTS);

/**
 * A case's `context`: one. A list there is refused by name (not as a wrong type): both contexts side by side are one
 * run per context of the whole suite, asked on the suite or the command line.
 */
export const caseContextSchema = z.preprocess((v, ctx) => {
  if (!Array.isArray(v)) return v;
  ctx.addIssue({
    code: z.ZodIssueCode.custom,
    message:
      'names a list, and a case runs in one context — write `context: lab` or `context: field` here; to run the suite in both side by side, put `context: [lab, field]` in skillprobe.config.yaml or run with --context lab,field',
  });
  return z.NEVER;
}, contextSchema);

/** The config's `context`: one, or both side by side (`[lab, field]`: one run per context, as `--context lab,field`). */
export const suiteContextSchema = z.union([
  contextSchema,
  z
    .array(contextSchema)
    .min(1)
    .max(CONTEXTS.length)
    .refine((list) => new Set(list).size === list.length, 'names a context twice — name each of lab and field once'),
]);

/** `lab` is stored as no context at all, so a run that names it and one made before contexts are the same run. */
export const storedContext = (context: Context | undefined): { context?: 'field' } => (context === 'field' ? { context } : {});

const positiveInt = (max: number) => z.number().int().min(1).max(max);

/** How cases are decided; `sprt` is Wald's test, kept selectable beside the design that always decides. */
export const DECISION_MODES = ['sequential', 'sprt', 'fixed'] as const;
export type DecisionMode = (typeof DECISION_MODES)[number];

/**
 * The most trials per case a sequential design may need (its equal-error fixed N, or its minTrials): the design
 * itself reaches up to 1.5 times that, and its construction time grows as the square.
 */
export const DESIGN_LIMIT = 1000;

/** Per-case decision parameters; any subset, so tags and cases can override the defaults. */

export const decisionParamsSchema = z
  .object({
    /** p0: the pass rate a case must reach. */
    threshold: z.number().gt(0).max(1),
    /** p1 = p0 − δ: the rate the test must tell apart from p0. */
    delta: z.number().gt(0).lt(1),
    /** Chance of failing a case whose true rate is p0. */
    alpha: z.number().gt(0).max(0.5),
    /** Chance of passing a case whose true rate is p1. */
    beta: z.number().gt(0).max(0.5),
    minTrials: positiveInt(100_000),
    maxTrials: positiveInt(100_000),
  })
  .partial()
  .strict();

export type DecisionOverrides = z.output<typeof decisionParamsSchema>;

/** A model's prices, USD per million tokens, as the provider's price list gives them. */
export const tokenPriceSchema = z
  .object({
    input: z.number().min(0),
    /** Input served from the prompt cache. */
    cachedInput: z.number().min(0),
    /** Input written to the prompt cache; the input price when not given. */
    cacheWrite: z.number().min(0).optional(),
    output: z.number().min(0),
  })
  .strict();
export type TokenPrice = z.output<typeof tokenPriceSchema>;

/** What a calibration example asks: an assistant's text, the item, and the answer a trustworthy judge gives. */
export const judgeExampleSchema = z
  .object({
    item: z.string().trim().min(1),
    answer: z.string(),
    expect: z.enum(['yes', 'no']),
  })
  .strict();
export type JudgeExample = z.output<typeof judgeExampleSchema>;

/** The model judge of `expect.judge` items. */
export const judgeConfigSchema = z
  .object({
    /** The agent CLI that judges, headless in a sealed workspace; the run's agent when not given. */
    agent: z.string().min(1).optional(),
    /** The judge's model, pinned and recorded; the judge agent's default model when not given. */
    model: z.string().min(1).optional(),
    /** How often each item of each trial is asked; the verdict is the strict majority. */
    samples: z.number().int().min(1).max(15).default(3),
    /** Above this share of items whose samples disagreed (tested one-sided at `alpha`), a case's judged checks are UNSTABLE. */
    maxFlipRate: z.number().gt(0).lt(1).default(0.1),
    alpha: z.number().gt(0).max(0.5).default(0.05),
    /** UNSTABLE judged checks give exit code 3 (INCONCLUSIVE); otherwise they are advisory. */
    gate: z.boolean().default(false),
    /** Lets the judge be the model under test (refused by default: a model grading its own answers). */
    allowSelf: z.boolean().default(false),
    /** Examples the judge must get right, beside the built-in controls, before any of its verdicts counts. */
    calibration: z.array(judgeExampleSchema).default([]),
  })
  .strict();
export type JudgeConfig = z.output<typeof judgeConfigSchema>;

/**
 * The user's files a trial's workspace holds: a folder (relative to the file that names it) copied whole, or
 * workspace paths with their content written inline.
 */
export const fixtureFilesSchema = z.union([z.string().min(1), z.record(z.string().min(1), z.string())]);

/** The project's instruction file (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`): a file (relative to the file naming it), or `{ text }`. */
export const instructionsSchema = z.union([z.string().min(1), z.object({ text: z.string() }).strict()]);

/**
 * An MCP server's name as a trial offers it: the CLIs join it to each tool's name with `__` (Claude Code) or `_`
 * (Gemini CLI), so it holds no `_` and the tool's name is always what follows the first join.
 */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+$/;

/**
 * MCP servers offered to a trial, by name: the built-in stub (`stub:` a YAML file of its tools and canned answers,
 * relative to the file naming it), or a real server (opt-in: its command, arguments and the caller's environment
 * variables it may see; `readOnly`: all its tools, or the listed ones, only read, so the field may let them run).
 */
export const mcpServersSchema = z.record(
  z.string().regex(MCP_SERVER_NAME, 'an MCP server name holds only letters, digits and `-` — rename it'),
  z.union([
    z.object({ stub: z.string().min(1) }).strict(),
    z
      .object({
        command: z.string().min(1),
        args: z.array(z.string()).default([]),
        env: z.array(z.string().min(1)).default([]),
        readOnly: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
      })
      .strict(),
  ]),
);
export type McpServersConfig = z.output<typeof mcpServersSchema>;

/**
 * How trials reach a real model: `key`, the API key (or cloud provider) in the caller's environment; `login`, the
 * subscription login the caller's CLI stored, its credential file copied alone into each trial's fresh HOME.
 */
export const AUTHS = ['key', 'login'] as const;
export type Auth = (typeof AUTHS)[number];

export const configSchema = z
  .object({
    /** An agent id of the agents registry, its only list (checked where the config is loaded). */
    agent: z.string().min(1).default('claude-code'),
    /** Several agents: the suite runs once per agent, each a run folder of its own under one folder (`--agent a,b`). */
    agents: z.array(z.string().min(1)).min(1).optional(),
    models: z
      .record(z.string().min(1))
      .optional()
      .describe("A model per agent id (`codex: gpt-5.5`); an agent not named here asks for its CLI's own default model."),
    auth: z
      .enum(AUTHS)
      .default('key')
      .describe(
        "`key` (the default): the API key in the environment; `login` (as --login): the CLI's stored subscription login, only its credential file copied into each trial.",
      ),
    /** Path to the agent binary; by default the pinned one from node_modules. */
    agentBinary: z.string().min(1).optional(),
    // No default here: a model belongs to one CLI, so the agent's own default is filled in where the agent is known.
    model: z
      .string()
      .min(1)
      .optional()
      .describe("The model for a run of one agent, passed to its CLI; without it, the CLI's own default. Several agents: `models`."),
    /** `lab` (absent) or `field`: see CONTEXTS; a case may set its own. The config file may name both (`configFileSchema`). */
    context: contextSchema.optional(),
    trials: positiveInt(10_000).default(10),
    /**
     * Trials running at once: a number, or `auto` (against a real model, the default): adaptive to the provider's
     * rate limits (HTTP 429 cuts it, 529 and 5xx pause its growth) and bounded by what the machine can run.
     */
    concurrency: z.union([positiveInt(64), z.literal('auto')]).default(2),
    skillsDir: z.string().min(1).default('skills'),
    neighbours: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A folder of the user's other skills (`<dir>/SKILL.md` each), installed beside the family in every trial of both arms: offered, never under test.",
      ),
    cases: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('cases/*.yaml'),
    transcriptsDir: z.string().min(1).default('transcripts'),
    arms: z.array(z.enum(ARMS)).min(1).default(['skill', 'ablation']),
    /** `scored`: the ablation arm runs only where it scores something (positive cases with plan checks); `always`. */
    ablation: z.enum(['scored', 'always']).default('scored'),
    timeouts: z
      .object({
        /** The harness's own wall-clock deadline per trial; the CLI has none that works on a stalled stream. */
        trialSeconds: z.number().positive().max(3600).default(300),
      })
      .strict()
      .default({}),
    maxTurns: positiveInt(200).default(8),
    /** Stop scheduling trials once their reported costs reach this many USD (`--max-cost`); the run is then partial. */
    maxCostUsd: z.number().positive().optional(),
    /**
     * Stop a trial once no later event can change its graded outcome (a trigger-only case: the expected skill's call and
     * its load status, a forbidden one's, an acting call in the field), recorded as `settled`; `false` (`--no-settle`):
     * every trial runs to the end of its turn.
     */
    settle: z.boolean().default(true),
    /** What one trial may print before it is stopped and recorded as `output_too_large` (MB). */
    maxOutputMB: z.number().positive().max(4096).default(64),
    retries: z
      .object({
        /** CLAUDE_CODE_MAX_RETRIES: the CLI's own retries of one API call. */
        cli: z.number().int().min(0).max(10).default(2),
        /** How often the harness re-runs a trial that ended in an infrastructure error. */
        infra: z.number().int().min(0).max(10).default(1),
      })
      .strict()
      .default({}),
    grading: z
      .object({
        /** Reading a skill's files counts as firing it (`fire`), or is only reported (`separate`). */
        readTriggers: z.enum(['fire', 'separate']).default('fire'),
        /** Timeout and max-turns stops are failures under the budget given (`fail`), or left out (`exclude`). */
        budgetStops: z.enum(['fail', 'exclude']).default('fail'),
        confidence: z.number().gt(0.5).lt(1).default(0.95),
      })
      .strict()
      .default({}),
    decision: z
      .object({
        /**
         * `sequential`: each case stops as soon as the evidence decides it, and every case is decided by the design's
         * maximum; `sprt`: Wald's test, which may leave a case undecided at maxTrials; `fixed`: `trials` per case.
         */
        mode: z.enum(DECISION_MODES).default('sequential'),
        threshold: z.number().gt(0).max(1).default(0.9),
        delta: z.number().gt(0).lt(1).default(0.2),
        alpha: z.number().gt(0).max(0.5).default(0.05),
        beta: z.number().gt(0).max(0.5).default(0.2),
        minTrials: positiveInt(100_000).default(5),
        /** A cap on trials per case; by default the design's own maximum (by which every case is decided). */
        maxTrials: positiveInt(100_000).optional(),
        /** Fixed-N mode: multiple-testing correction across cases. */
        correction: z.enum(['bh', 'bonferroni', 'none']).default('bh'),
        /** What an INCONCLUSIVE case does to the exit code. */
        inconclusive: z.enum(['fail', 'warn', 'pass']).default('warn'),
        /** Overrides per case tag (`vague: { threshold: 0.5 }`); the first matching tag of a case wins. */
        tags: z.record(z.string(), decisionParamsSchema).default({}),
      })
      .strict()
      .default({}),
    /** The model judge, for cases with `expect.judge` items. */
    judge: judgeConfigSchema.optional(),
    prices: z
      .record(z.string().min(1), tokenPriceSchema)
      .optional()
      .describe(
        'USD per million tokens per model (`sonnet: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 }`): the CACHE line then prices what the run paid and what the cache saved.',
      ),
    workspace: fixtureFilesSchema
      .optional()
      .describe(
        "The user's files every trial's workspace holds (both arms): a folder, or `path: content` pairs; a case's `files` add to them.",
      ),
    instructions: instructionsSchema
      .optional()
      .describe("The project's instruction file, written as each CLI's own (CLAUDE.md, AGENTS.md, GEMINI.md): a file, or `{ text: … }`."),
    mcp: mcpServersSchema
      .optional()
      .describe(
        "MCP servers offered to every trial (both arms), by name: `{ stub: tools.yaml }` (the built-in stub, its tools and canned answers), or a real server `{ command, args, env, readOnly }`; a case's `mcp` adds to them.",
      ),
    /** Command prefix per skill, prepended to bare Skill args when canonicalising plans (`atl-jira: atl jira`). */
    commands: z.record(z.string(), z.string().min(1)).default({}),
  })
  .strict();

export type Config = z.output<typeof configSchema>;

/**
 * The config file as the user writes it: `context` may name both contexts, which is two runs, each storing its one
 * context in its run.json (`configSchema`, the run folder's contract, keeps one).
 */
export const configFileSchema = configSchema.extend({
  context: suiteContextSchema
    .optional()
    .describe(
      'Where trials run: `lab` (the default), `field`, or `[lab, field]`: the suite once in each, side by side (as --context lab,field).',
    ),
});
export type DecisionConfig = Config['decision'];
export type InconclusivePolicy = DecisionConfig['inconclusive'];
