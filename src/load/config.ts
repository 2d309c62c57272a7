import { existsSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from './input-error.js';
import { loadYamlFile } from './yaml-file.js';

export const ARMS = ['skill', 'ablation'] as const;
export type Arm = (typeof ARMS)[number];

const positiveInt = (max: number) => z.number().int().min(1).max(max);

export const configSchema = z
  .object({
    agent: z.enum(['claude-code']).default('claude-code'),
    /** Path to the agent binary; by default the pinned one from node_modules. */
    agentBinary: z.string().min(1).optional(),
    model: z.string().min(1).default('sonnet'),
    trials: positiveInt(10_000).default(5),
    concurrency: positiveInt(64).default(2),
    skillsDir: z.string().min(1).default('skills'),
    cases: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('cases/*.yaml'),
    transcriptsDir: z.string().min(1).default('transcripts'),
    arms: z.array(z.enum(ARMS)).min(1).default(['skill', 'ablation']),
    timeouts: z
      .object({
        /** The harness's own wall-clock deadline per trial; the CLI has none that works on a stalled stream. */
        trialSeconds: z.number().positive().max(3600).default(120),
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
    /** Command prefix per skill, prepended to bare Skill args when canonicalising plans (`atl-jira: atl jira`). */
    commands: z.record(z.string(), z.string().min(1)).default({}),
  })
  .strict();

export type Config = z.output<typeof configSchema>;
export const DEFAULT_CONFIG_FILE = 'skillprobe.config.yaml';

/** Loads the config file (optional unless named explicitly) and applies flag overrides on top. */
export function loadConfig(file: string | undefined, overrides: Partial<Record<keyof Config, unknown>>): { config: Config; file?: string } {
  const path = file ?? DEFAULT_CONFIG_FILE;
  let fromFile: Record<string, unknown> = {};
  let used: string | undefined;
  if (existsSync(path)) {
    const { value } = loadYamlFile(path, configSchema, 'config file');
    fromFile = value;
    used = path;
  } else if (file) {
    throw new InputError({ file, what: 'config file not found', todo: 'check the --config path' });
  }
  const merged = { ...fromFile };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) merged[k] = v;
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    // Only a flag can be wrong here: the file already validated on its own.
    throw new InputError(
      result.error.issues.map((i) => ({
        file: `--${String(i.path[0] ?? 'option')}`,
        what: `invalid value: ${i.message}`,
        todo: 'fix the flag (see `skillprobe run --help`)',
      })),
    );
  }
  return { config: result.data, file: used };
}
