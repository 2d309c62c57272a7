import { z } from 'zod';
import { InputError, ProblemList, type InputProblem } from '../util/input-error.js';
import { loadYamlFile, type LocatedYaml } from '../load/yaml-file.js';
import { compileLinearRegex } from '../util/linear-regex.js';
import { DEFAULT_JUDGE, JUDGE_BEHAVIOURS } from './judge.js';
import { DEFAULT_PROPOSER_WORDS } from './proposer.js';
import { DEFAULT_ROUTER } from './router.js';
import { ACT_KINDS } from './conversation.js';

/**
 * A simulator profile: how the fake model behaves, per case or prompt pattern, as a seeded distribution.
 * Each behaviour names exactly one action.
 */
const ACTIONS = ['skill', 'read', 'sibling', 'act', 'mcp', 'answer', 'clarify', 'http', 'stall', 'loop'] as const;

const actKind = z.enum(ACT_KINDS, { message: `act must be one of ${ACT_KINDS.join(', ')}` });

const behaviourSchema = z
  .object({
    /** Relative weight; weights in one list need not sum to 1. */
    p: z.number().min(0).default(1),
    skill: z.string().min(1).optional(),
    args: z.string().optional(),
    /** A family skill's SKILL.md; or `{ file }`, a file of the workspace (the user's files), by its path there. */
    read: z.union([z.string().min(1), z.object({ file: z.string().min(1) }).strict()]).optional(),
    sibling: z.string().min(1).optional(),
    /** Goes around the skills: the CLI's own acting call of this kind (refused in the field), then an answer. */
    act: actKind.optional(),
    /**
     * With `act`: the skill it calls when the CLI offers no acting call of that kind (the lab, where it cannot do the
     * work by hand); without it, it answers. Absent: a profile plays as it did before.
     */
    otherwise: z.string().min(1).optional(),
    /**
     * Calls an MCP tool the request offers, `<server>/<tool>`, with `input` as its arguments, then answers from its
     * result; a tool the request does not offer is no choice: it answers instead.
     */
    mcp: z
      .string()
      .regex(/^[^/]+\/[^/]+$/, 'mcp names a tool as `<server>/<tool>`')
      .optional(),
    input: z.record(z.unknown()).optional(),
    answer: z.union([z.string(), z.literal(true)]).optional(),
    clarify: z.union([z.string(), z.literal(true)]).optional(),
    http: z.number().int().min(400).max(599).optional(),
    retryAfter: z.number().min(0).max(60).optional(),
    stall: z.literal(true).optional(),
    loop: z.literal(true).optional(),
    /**
     * The user turn the action plays on, counted in the request as the CLI sent it (a resumed history's user turns
     * included): on each turn before it the model asks first (`ask`, else a generic clarifying question) and ends its
     * turn (a `skill` behaviour only where that skill is offered: without it, the ablation arm, it answers at once).
     * Absent: on the first. Without a default, so a profile without it keeps its hash.
     */
    onTurn: z.number().int().min(1).max(100).optional(),
    ask: z.string().min(1).optional(),
  })
  .strict()
  .refine((b) => ACTIONS.filter((a) => b[a] !== undefined).length === 1, {
    message: `a behaviour needs exactly one action — use one of ${ACTIONS.join(', ')}`,
  })
  .refine((b) => b.ask === undefined || b.onTurn !== undefined, {
    message: '`ask` is what the model asks before the turn its action plays on — give the behaviour `onTurn`, or drop `ask`',
  })
  .refine((b) => b.input === undefined || b.mcp !== undefined, {
    message: '`input` holds the arguments of an `mcp` call — give the behaviour `mcp`, or drop `input`',
  })
  .refine((b) => b.otherwise === undefined || b.act !== undefined, {
    message: '`otherwise` names the skill an `act` behaviour calls when it cannot act — give the behaviour `act`, or drop `otherwise`',
  });

const planSchema = z
  .object({
    /** Probability that the plan after a loaded skill is deliberately wrong. */
    wrong: z.number().min(0).max(1).default(0),
    mutate: z.enum(['abbreviate', 'drop-flag']).default('abbreviate'),
    /** Probability that the stream stalls once the skill loaded (headers and a first piece, then nothing). */
    stall: z.number().min(0).max(1).default(0),
  })
  .strict();

const ruleSchema = z
  .object({
    case: z.string().min(1).optional(),
    /** Case-insensitive regular expression (RE2 syntax) over the user's prompt. */
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

/** The description router: answers first-turn prompts no rule matches, from the listed descriptions (`router.ts`). */
const routerSchema = z
  .object({
    temperature: z
      .number()
      .gt(0, 'router temperature must be above 0 — lower is more decisive; try 0.5')
      .max(10, 'router temperature must be at most 10 — higher makes every choice a coin toss; try 0.5')
      .default(DEFAULT_ROUTER.temperature),
    threshold: z
      .number()
      .min(0, 'router threshold must be 0 or more — it is the score of answering without a skill; try 1.5')
      .max(50, 'router threshold must be at most 50 — no description scores that high; try 1.5')
      .default(DEFAULT_ROUTER.threshold),
    k1: z
      .number()
      .min(0, 'router k1 must be 0 or more — BM25 usually takes 1.2 to 2')
      .max(10, 'router k1 must be at most 10 — BM25 usually takes 1.2 to 2')
      .default(DEFAULT_ROUTER.k1),
    b: z
      .number()
      .min(0, 'router b must be between 0 and 1 — BM25 usually takes 0.75')
      .max(1, 'router b must be between 0 and 1 — BM25 usually takes 0.75')
      .default(DEFAULT_ROUTER.b),
    /**
     * The chance of acting by itself (`actWith`) when the draw answers without a skill, so it falls as a description
     * matches the prompt better. Without a default: a router without it keeps its hash and its draws.
     */
    act: z
      .number()
      .min(0, 'router act must be between 0 and 1 — the chance of acting by itself instead of answering; 0 never does')
      .max(1, 'router act must be between 0 and 1 — the chance of acting by itself instead of answering; 0 never does')
      .optional(),
    actWith: actKind.optional(),
  })
  .strict();

/** The stand-in for the model that proposes a description in `tune` (`proposer.ts`). */
const proposerSchema = z
  .object({
    /** How many words of the missed prompts one proposal adds. */
    words: z
      .number()
      .int()
      .min(1, 'proposer words must be at least 1')
      .max(50, 'proposer words must be at most 50')
      .default(DEFAULT_PROPOSER_WORDS),
  })
  .strict();

/** A chance in a `judge` block: 0 to 1, with what the field means in its message. */
const judgeChance = (field: string, meaning: string) =>
  z.number().min(0, `judge ${field} must be between 0 and 1 — ${meaning}`).max(1, `judge ${field} must be between 0 and 1 — ${meaning}`);

const ACCURACY_MEANS = 'the chance that the judge leans to the right answer for an item; 1 is always right';
const FLIP_RATE_MEANS = 'the chance that one sample answers against its lean; 0 never does';

/** The stand-in for the model judge of rubric items (`judge.ts`). */
const judgeSchema = z
  .object({
    behaviour: z.enum(JUDGE_BEHAVIOURS).default(DEFAULT_JUDGE.behaviour),
    accuracy: judgeChance('accuracy', ACCURACY_MEANS).default(DEFAULT_JUDGE.accuracy),
    flipRate: judgeChance('flipRate', FLIP_RATE_MEANS).default(DEFAULT_JUDGE.flipRate),
    unreadable: judgeChance('unreadable', 'the chance that a reply ends in neither YES nor NO; 0 never does').default(
      DEFAULT_JUDGE.unreadable,
    ),
    /** Error rates of single items, by the item's exact text. */
    items: z
      .record(
        z.string().min(1),
        z
          .object({
            accuracy: judgeChance('accuracy', ACCURACY_MEANS).optional(),
            flipRate: judgeChance('flipRate', FLIP_RATE_MEANS).optional(),
          })
          .strict(),
      )
      .default({}),
  })
  .strict();

/**
 * Simulator only: the limits of a provider (`provider.ts`). Every field optional and without a default, so a profile
 * without the block, or with only part of it, keeps its hash and plays as before.
 */
const providerSchema = z
  .object({
    /** Seeded lognormal delay before a response starts. */
    latency: z
      .object({
        medianMs: z.number().min(0).max(600_000),
        /** Without it, every request waits the median. */
        p95Ms: z.number().min(0).max(600_000).optional(),
      })
      .strict()
      .refine((l) => l.p95Ms === undefined || l.p95Ms >= l.medianMs, { message: 'provider latency p95Ms must be at least medianMs' })
      .optional(),
    /** Requests in flight per credential beyond which the simulator answers 429. */
    concurrency: z.number().int().min(1, 'provider concurrency must be at least 1').max(100_000).optional(),
    /** Requests per minute per credential (a sliding 60 s window) beyond which the simulator answers 429. */
    rpm: z.number().int().min(1, 'provider rpm must be at least 1').max(10_000_000).optional(),
    /** What Retry-After says; without it, the seconds until a slot frees or the window allows. */
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    /**
     * A subscription's usage limit: after `afterRequests` admitted requests of one credential, every request is refused
     * as its CLI's usage limit until `resetSeconds` after the first refusal; then the count starts again.
     */
    usageLimit: z
      .object({
        afterRequests: z.number().int().min(0).max(10_000_000),
        resetSeconds: z
          .number()
          .int()
          .min(0)
          .max(30 * 86_400),
      })
      .strict()
      .optional(),
    /** A burst of overloaded answers (529 Anthropic, 503 Gemini and OpenAI): that share of requests in the window. */
    overloaded: z
      .object({
        share: z.number().min(0).max(1),
        fromSeconds: z.number().min(0).optional(),
        /** Without it, the burst never ends. */
        forSeconds: z.number().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const profileSchema = z
  .object({
    /** A label, shown in reports so nobody mistakes simulated numbers for a model's. */
    name: z.string().default('simulator'),
    seed: z.number().int().default(1),
    plan: planSchema.default({}),
    rules: z.array(ruleSchema).default([]),
    default: z
      .array(behaviourSchema)
      .min(1)
      .default([{ p: 1, answer: true }]),
    /** Optional, and without a default, so a profile without them keeps its behaviour and its hash. */
    router: routerSchema.optional(),
    proposer: proposerSchema.optional(),
    judge: judgeSchema.optional(),
    provider: providerSchema.optional(),
  })
  .strict();

export type Profile = z.output<typeof profileSchema>;
export type Behaviour = z.output<typeof behaviourSchema>;
export type PlanPolicy = z.output<typeof planSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type ProviderLimits = z.output<typeof providerSchema>;

/** Where `init` writes the project's simulator profile, and where `lint` looks for one when given none. */
export const DEFAULT_PROFILE_FILE = 'sim/skillprobe.profile.yaml';

export interface LoadedProfile {
  profile: Profile;
  /** The file as parsed, so later checks can point at file:line:col. */
  yaml: LocatedYaml;
}

/**
 * Reads a profile on its own (schema, prompt patterns, weights); every mistake is reported with file:line:col. A
 * relative `file` is taken from `cwd`, the user's working folder.
 */
export function readProfile(file: string, cwd?: string): LoadedProfile {
  const { value, yaml } = loadYamlFile(file, profileSchema, 'simulator profile', cwd);
  const problems = new ProblemList();
  value.rules.forEach((r, i) => {
    if (r.prompt === undefined) return;
    const compiled = compileLinearRegex(r.prompt, { ignoreCase: true });
    if (!compiled.ok) problems.add(yaml.problem(['rules', i, 'prompt'], compiled.what, compiled.todo));
    if (r.do.every((b) => b.p === 0))
      problems.add(yaml.problem(['rules', i, 'do'], 'every weight is 0', 'give at least one behaviour p > 0'));
  });
  problems.throwIfAny();
  return { profile: value, yaml };
}

export function loadProfile(file: string, cwd?: string): Profile {
  return readProfile(file, cwd).profile;
}

/** What a profile's rules may point at. */
export interface ProfileTargets {
  /** Skill folder names of the family (what the simulator sees offered). */
  skills: readonly string[];
  /** The suite's case ids; leave out when the suite could not be loaded, and case references go unchecked. */
  caseIds?: readonly string[];
}

const SKILL_REFERENCES = ['skill', 'read', 'sibling', 'otherwise'] as const;

/** Listed in a message: enough to spot a typo, short enough for one line. */
function someOf(names: readonly string[]): string {
  const shown = [...names].sort().slice(0, 8).join(', ');
  return names.length > 8 ? `${shown}, …` : shown;
}

/**
 * Rules whose `case` names no case, and behaviours whose `skill`, `read`, `sibling` or `otherwise` names no family member: the
 * schema accepts them, but such a rule never applies and such a behaviour never plays as written.
 */
export function profileReferenceProblems({ profile, yaml }: LoadedProfile, targets: ProfileTargets): InputProblem[] {
  const problems: InputProblem[] = [];
  const skills = new Set(targets.skills);
  const cases = targets.caseIds && new Set(targets.caseIds);
  const checkBehaviours = (list: Behaviour[], at: (string | number)[], label: string) =>
    list.forEach((b, j) => {
      for (const key of SKILL_REFERENCES) {
        const name = b[key];
        // A file read names a workspace file, not a skill.
        if (name === undefined || typeof name !== 'string' || skills.has(name)) continue;
        problems.push(
          yaml.problem(
            [...at, j, key],
            `${label} behaviour ${j + 1}: \`${key}: ${name}\` names no skill in the skills folder, so the simulator never plays it as written`,
            `use one of ${someOf(targets.skills)}`,
          ),
        );
      }
    });
  profile.rules.forEach((r, i) => {
    if (cases && r.case !== undefined && !cases.has(r.case)) {
      problems.push(
        yaml.problem(
          ['rules', i, 'case'],
          `rule ${i + 1} matches case "${r.case}", which is not in the suite, so the rule never applies`,
          `use one of the case ids (${someOf([...cases])}), or match by \`prompt\``,
        ),
      );
    }
    checkBehaviours(r.do, ['rules', i, 'do'], `rule ${i + 1}`);
  });
  checkBehaviours(profile.default, ['default'], 'default');
  return problems;
}

/** Reads a profile and checks it against the suite it will play: what `run --sim` uses. */
export function loadProfileForSuite(file: string, targets: ProfileTargets, cwd?: string): Profile {
  const loaded = readProfile(file, cwd);
  const problems = profileReferenceProblems(loaded, targets);
  if (problems.length) throw new InputError(problems);
  return loaded.profile;
}

export function parseProfile(data: unknown): Profile {
  const r = profileSchema.safeParse(data);
  if (!r.success) throw new InputError({ file: 'profile', what: r.error.issues[0]?.message ?? 'invalid', todo: 'fix the profile' });
  return r.data;
}
