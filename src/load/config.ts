import { existsSync } from 'node:fs';
import { z } from 'zod';
import { resolveDecision, decisionProblem } from '../trials/decision.js';
import { InputError, ProblemList } from './input-error.js';
import { loadYamlFile } from './yaml-file.js';

export const ARMS = ['skill', 'ablation'] as const;
export type Arm = (typeof ARMS)[number];

const positiveInt = (max: number) => z.number().int().min(1).max(max);

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

export const configSchema = z
  .object({
    agent: z.enum(['claude-code']).default('claude-code'),
    /** Path to the agent binary; by default the pinned one from node_modules. */
    agentBinary: z.string().min(1).optional(),
    model: z.string().min(1).default('sonnet'),
    trials: positiveInt(10_000).default(10),
    concurrency: positiveInt(64).default(2),
    skillsDir: z.string().min(1).default('skills'),
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
        /** `fixed`: `trials` per case, exact binomial tests; `sprt`: each case stops as soon as the evidence decides. */
        mode: z.enum(['fixed', 'sprt']).default('sprt'),
        threshold: z.number().gt(0).max(1).default(0.9),
        delta: z.number().gt(0).lt(1).default(0.2),
        alpha: z.number().gt(0).max(0.5).default(0.05),
        beta: z.number().gt(0).max(0.5).default(0.2),
        minTrials: positiveInt(100_000).default(5),
        maxTrials: positiveInt(100_000).default(30),
        /** Fixed-N mode: multiple-testing correction across cases. */
        correction: z.enum(['bh', 'bonferroni', 'none']).default('bh'),
        /** What an INCONCLUSIVE case does to the exit code. */
        inconclusive: z.enum(['fail', 'warn', 'pass']).default('warn'),
        /** Overrides per case tag (`vague: { threshold: 0.5 }`); the first matching tag of a case wins. */
        tags: z.record(z.string(), decisionParamsSchema).default({}),
      })
      .strict()
      .default({}),
    /** Command prefix per skill, prepended to bare Skill args when canonicalising plans (`atl-jira: atl jira`). */
    commands: z.record(z.string(), z.string().min(1)).default({}),
  })
  .strict();

export type Config = z.output<typeof configSchema>;

/** "what — what to do" → [what, what to do]. */
export function splitProblem(text: string): [string, string] {
  const [what, todo] = text.split(' — ');
  return [what!, todo ?? 'fix the value'];
}
export type DecisionConfig = Config['decision'];
export const DEFAULT_CONFIG_FILE = 'skillprobe.config.yaml';

/** Loads the config file (optional unless named explicitly) and applies flag overrides on top. */
export function loadConfig(file: string | undefined, overrides: Partial<Record<keyof Config, unknown>>): { config: Config; file?: string } {
  const path = file ?? DEFAULT_CONFIG_FILE;
  let fromFile: Record<string, unknown> = {};
  let used: string | undefined;
  if (existsSync(path)) {
    const { value, yaml } = loadYamlFile(path, configSchema, 'config file');
    const problems = new ProblemList();
    const defaults = decisionProblem(resolveDecision(value.decision, [], undefined));
    if (defaults) problems.add(yaml.problem(['decision'], ...splitProblem(defaults)));
    for (const tag of Object.keys(value.decision.tags)) {
      const p = decisionProblem(resolveDecision(value.decision, [tag], undefined));
      if (p) problems.add(yaml.problem(['decision', 'tags', tag], ...splitProblem(`tag "${tag}": ${p}`)));
    }
    problems.throwIfAny();
    fromFile = value;
    used = path;
  } else if (file) {
    throw new InputError({ file, what: 'config file not found', todo: 'check the --config path' });
  }
  const merged: Record<string, unknown> = { ...fromFile };
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) continue;
    // Nested sections (timeouts, decision) take flag values key by key.
    merged[k] = isMap(v) && isMap(merged[k]) ? { ...merged[k], ...Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) } : v;
  }
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    // Only a flag can be wrong here: the file already validated on its own.
    throw new InputError(
      result.error.issues.map((i) => ({
        file: `--${String(i.path.at(-1) ?? 'option')}`,
        what: `invalid value: ${i.message}`,
        todo: 'fix the flag (see `skillprobe run --help`)',
      })),
    );
  }
  return { config: result.data, file: used };
}
