import { z } from 'zod';
import { InputError, ProblemList } from '../load/input-error.js';
import { loadYamlFile } from '../load/yaml-file.js';

/**
 * A simulator profile: how the fake model behaves, per case or prompt pattern, as a seeded distribution.
 * Each behaviour names exactly one action.
 */
const ACTIONS = ['skill', 'read', 'sibling', 'answer', 'clarify', 'http', 'stall', 'loop'] as const;

const behaviourSchema = z
  .object({
    /** Relative weight; weights in one list need not sum to 1. */
    p: z.number().min(0).default(1),
    skill: z.string().min(1).optional(),
    args: z.string().optional(),
    read: z.string().min(1).optional(),
    sibling: z.string().min(1).optional(),
    answer: z.union([z.string(), z.literal(true)]).optional(),
    clarify: z.union([z.string(), z.literal(true)]).optional(),
    http: z.number().int().min(400).max(599).optional(),
    retryAfter: z.number().min(0).max(60).optional(),
    stall: z.literal(true).optional(),
    loop: z.literal(true).optional(),
  })
  .strict()
  .refine((b) => ACTIONS.filter((a) => b[a] !== undefined).length === 1, {
    message: `a behaviour needs exactly one action — use one of ${ACTIONS.join(', ')}`,
  });

const planSchema = z
  .object({
    /** Probability that the plan after a loaded skill is deliberately wrong. */
    wrong: z.number().min(0).max(1).default(0),
    mutate: z.enum(['abbreviate', 'drop-flag']).default('abbreviate'),
  })
  .strict();

const ruleSchema = z
  .object({
    case: z.string().min(1).optional(),
    /** Case-insensitive regular expression over the user's prompt. */
    prompt: z.string().min(1).optional(),
    do: z.array(behaviourSchema).min(1),
    plan: planSchema.optional(),
    /** What the model answers when the skill it would call is not offered (the ablation arm). */
    unskilled: z.string().min(1).optional(),
  })
  .strict()
  .refine((r) => (r.case === undefined) !== (r.prompt === undefined), {
    message: 'a rule matches by `case` or by `prompt`, not both or neither — give it one of them',
  });

export const profileSchema = z
  .object({
    /** A label, shown in reports so nobody mistakes simulated numbers for a model's. */
    name: z.string().default('simulator'),
    seed: z.number().int().default(1),
    plan: planSchema.default({}),
    rules: z.array(ruleSchema).default([]),
    default: z.array(behaviourSchema).min(1).default([{ p: 1, answer: true }]),
  })
  .strict();

export type Profile = z.output<typeof profileSchema>;
export type Behaviour = z.output<typeof behaviourSchema>;
export type PlanPolicy = z.output<typeof planSchema>;
export type Rule = z.output<typeof ruleSchema>;

export function loadProfile(file: string): Profile {
  const { value, yaml } = loadYamlFile(file, profileSchema, 'simulator profile');
  const problems = new ProblemList();
  value.rules.forEach((r, i) => {
    if (r.prompt === undefined) return;
    try {
      new RegExp(r.prompt, 'i');
    } catch (e) {
      problems.add(yaml.problem(['rules', i, 'prompt'], `invalid regular expression: ${(e as Error).message}`, 'fix the pattern'));
    }
    if (r.do.every((b) => b.p === 0)) problems.add(yaml.problem(['rules', i, 'do'], 'every weight is 0', 'give at least one behaviour p > 0'));
  });
  problems.throwIfAny();
  return value;
}

export function parseProfile(data: unknown): Profile {
  const r = profileSchema.safeParse(data);
  if (!r.success) throw new InputError({ file: 'profile', what: r.error.issues[0]?.message ?? 'invalid', todo: 'fix the profile' });
  return r.data;
}
