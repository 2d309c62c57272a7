import type { GradingConventions } from '../agents/types.js';
import type { Arm } from '../run/config-schema.js';
import type { InitEvent, ResultEvent, SkillLoadEvent, ToolCallEvent, Transcript } from '../transcript/types.js';
import { extractPlans, gradePlans } from './plan.js';
import { trialStatus, type StatusVerdict } from './status.js';
import { settledAt } from './settle.js';
import { modelRequests } from './model-requests.js';
import { mcpToolText } from '../mcp/names.js';
import { firings } from './trigger.js';
import { isConversation } from './turns.js';
import { falselyFired } from '../run/expectation.js';
import {
  BUDGET_STOPS,
  MULTIPLE,
  NO_EVIDENCE,
  NONE,
  NOTHING_TO_SCORE,
  OTHER,
  neighbourColumn,
  SELF,
  toolColumn,
  type ExclusionReason,
  type FamilyMember,
  type FiredCategory,
  type Firing,
  type GradableCase,
  type TrialMeta,
  type TrialOutcome,
  type TrialUsage,
  outcomeStands,
} from '../run/schema.js';

export interface GradeOptions {
  family: FamilyMember[];
  /**
   * The user's other skills installed beside the family (`neighbours:`): their firings are graded apart, as are the
   * CLI's bundled skills' in the field (`conventions.bundledSkills`).
   */
  neighbours?: FamilyMember[];
  skillsFolder: string;
  /** Whether reading a skill's files counts as firing it (the default: for some CLIs it is the only way). */
  readCountsAsFiring: boolean;
  /** Whether budget stops (timeout, max_turns, max_budget) count as failures (the default) or are left out. */
  budgetStopsFail: boolean;
  /** How the agent CLI names skills and echoes files (its adapter's). */
  conventions: GradingConventions;
}

function behaviourFlags(t: Transcript): TrialOutcome['flags'] {
  const texts = t.events.filter((e) => e.kind === 'text' && e.source === 'assistant').map((e) => (e.kind === 'text' ? e.text.trim() : ''));
  const calls = t.events.filter((e) => e.kind === 'tool_call').length;
  const lastText = texts.filter(Boolean).at(-1) ?? '';
  return {
    noop: calls === 0 && texts.every((x) => x === ''),
    clarifying: calls === 0 && lastText.endsWith('?'),
  };
}

/** What the CLI says the trial cost, when it says: the budget `--max-cost` spends (a conversation's last result carries its sum). */
/** What the CLI says a trial cost: its last result's, which in a conversation is the session's running total. */
export const trialCostUsd = (t: Transcript): number | undefined => t.events.findLast((e): e is ResultEvent => e.kind === 'result')?.costUsd;

function costOf(t: Transcript): { costUsd?: number } {
  const costUsd = trialCostUsd(t);
  return costUsd !== undefined ? { costUsd } : {};
}

/**
 * What the CLI says the trial's model calls used, when it says: its last result carries the session's sum, and in a
 * conversation each user turn's result its own turn's, so those are added up.
 */
function usageOf(t: Transcript): { usage?: TrialUsage } {
  const results = t.events.filter((e): e is ResultEvent => e.kind === 'result' && e.usage !== undefined).map((e) => e.usage!);
  const counted = isConversation(t) ? results : results.slice(-1);
  if (!counted.length) return {};
  const u = counted.reduce((a, b) => ({
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    ...(a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined
      ? { cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) }
      : {}),
    outputTokens: a.outputTokens + b.outputTokens,
  }));
  return {
    usage: {
      input: u.inputTokens,
      cached: u.cachedInputTokens,
      ...(u.cacheWriteTokens !== undefined ? { cacheWrite: u.cacheWriteTokens } : {}),
      output: u.outputTokens,
    },
  };
}

/**
 * The model's first call of `intent` (`act`: a command, a write, a fetch, a sub-agent; `mcp`: an MCP tool) and where it
 * is in the transcript (Infinity when there is none, so that "before" reads as a plain comparison).
 */
const firstCall = (t: Transcript, intent: 'act' | 'mcp'): { at: number; call?: ToolCallEvent } => {
  const at = t.events.findIndex((e) => e.kind === 'tool_call' && e.source === 'assistant' && e.intent === intent);
  return at < 0 ? { at: Infinity } : { at, call: t.events[at] as ToolCallEvent };
};

function column(counted: Firing[]): string {
  const members = [...new Set(counted.map((f) => f.skill ?? (f.neighbour !== undefined ? neighbourColumn(f.neighbour) : OTHER)))];
  if (members.length === 0) return NONE;
  if (members.length > 1) return MULTIPLE;
  return members[0]!;
}

/** The neighbours a suite installed in a case's trials: the suite's, and the case's own beside them. */
const declaredNeighbours = (c: Pick<GradableCase, 'neighbours'>, opts: Pick<GradeOptions, 'neighbours'>) => [
  ...(opts.neighbours ?? []),
  ...(c.neighbours ?? []).map(({ dir, name }) => ({ dir, name })),
];

/**
 * The skills a trial offered beside the family, never under test: the declared neighbours and, in the field, the
 * skills the CLI bundles (a name the family or a declared neighbour holds is theirs: a field run refuses such a tie).
 */
export function offeredNeighbours(
  c: Pick<GradableCase, 'context' | 'neighbours'>,
  opts: Pick<GradeOptions, 'family' | 'neighbours' | 'conventions'>,
) {
  const declared = declaredNeighbours(c, opts);
  if (c.context !== 'field') return declared;
  const taken = new Set([...opts.family, ...declared].flatMap((m) => [m.dir, m.name]));
  const bundled = opts.conventions.bundledSkills.filter((name) => !taken.has(name)).map((name) => ({ dir: name, name }));
  return [...declared, ...bundled];
}

/** Whether the expected skill's first firing came by user turn `by` (any turn when the case sets none). */
export const firedInTime = (first: Pick<Firing, 'turn'> | undefined, by: number | undefined): boolean =>
  by === undefined || (first !== undefined && (first.turn ?? 1) <= by);

/** Grades one trial. Pure: transcript, process facts, case and options in; an outcome out. */
export function gradeTrial(t: Transcript, meta: TrialMeta, c: GradableCase, arm: Arm, n: number, opts: GradeOptions): TrialOutcome {
  const declared = declaredNeighbours(c, opts);
  const neighbours = offeredNeighbours(c, opts);
  const status = trialStatus(t, meta, {
    arm,
    family: opts.family.map((m) => m.dir),
    neighbours: declared.map((m) => m.dir),
    instructions: c.fixtures?.instructions,
    ...(c.context ? { context: c.context } : {}),
    ...((c.conversation?.history ?? 0) > 0 ? { history: true } : {}),
    ...(c.mcp ? { mcp: c.mcp } : {}),
    isolationProblem: opts.conventions.isolationProblem,
  });
  // A trial the harness stopped as settled stands only where its transcript shows the settled outcome.
  const verdict: StatusVerdict =
    status.status === 'settled' && settledAt(t, c, arm, opts) === undefined
      ? { status: 'agent_error', detail: 'stopped as settled, but its transcript shows no settled outcome' }
      : status;
  const all = firings(t, opts.family, opts.skillsFolder, opts.conventions, neighbours);
  const counted = all.filter((f) => f.via === 'invoke' || opts.readCountsAsFiring);
  const family = counted.filter((f) => f.skill !== undefined);
  const expected = counted.filter((f) => f.skill === c.expect);
  const positive = c.expect !== NONE;
  const falseTriggers = falselyFired(c, [...new Set(family.map((f) => f.skill!))]);
  // The model's first choice was to act by itself, before any skill fired: it went around the skills; or to use an
  // MCP tool the trial offered: it chose the tool over the skills.
  const [acted, tool] = [firstCall(t, 'act'), firstCall(t, 'mcp')];
  const firstFiring = counted[0]?.at ?? Infinity;
  const wentAround = acted.at < firstFiring && acted.at < tool.at;
  const usedTool = !wentAround && tool.at < firstFiring ? tool.call?.mcp : undefined;
  const firedColumn = wentAround ? SELF : usedTool ? toolColumn(mcpToolText(usedTool)) : column(counted);
  // `sibling`: another family member fired (for a negative case, a member it forbids: a false trigger); `neighbour`:
  // a neighbour took it, the user's or, in the field, one the CLI bundles (the model went elsewhere); `other`: only
  // names nothing installed or listed (made-up skills), or members a "not this skill" case leaves free.
  const wentToNeighbour = counted.some((f) => f.neighbour !== undefined);
  const fired: FiredCategory = wentAround
    ? 'self'
    : usedTool
      ? 'tool'
      : counted.length === 0
        ? 'none'
        : expected.length
          ? 'expected'
          : (positive ? family.length : falseTriggers.length)
            ? 'sibling'
            : wentToNeighbour
              ? 'neighbour'
              : 'other';
  const out: TrialOutcome = {
    caseId: c.id,
    arm,
    n,
    status: verdict.status,
    statusDetail: verdict.detail,
    passed: null,
    firings: all,
    firedColumn,
    fired,
    readOnly: expected.length > 0 && expected.every((f) => f.via === 'read'),
    ...(expected[0]?.turn !== undefined ? { firedTurn: expected[0].turn } : {}),
    flags: behaviourFlags(t),
    parseWarnings: t.warnings.length,
    wallMs: meta.wallMs,
    attempt: meta.attempt,
    ...costOf(t),
    ...usageOf(t),
    requests: modelRequests(t),
  };

  // In the ablation arm the expected skill cannot be installed: if it loaded, or a read of its files returned them,
  // isolation failed. A read that failed (no such file, as it should be) loaded nothing.
  const failed = new Set(t.events.flatMap((e) => (e.kind === 'tool_result' && e.isError ? [e.id] : [])));
  if (arm === 'ablation' && family.some((f) => f.status === 'loaded' || (f.via === 'read' && !failed.has(f.callId)))) {
    return {
      ...out,
      status: 'isolation_error',
      statusDetail: 'a family skill loaded in the ablation arm',
      excludedBecause: 'isolation_error',
    };
  }
  // A status without evidence, or a budget stop left out, is itself the reason (never `ok`: an exclusion reason).
  if (NO_EVIDENCE.has(verdict.status) || (BUDGET_STOPS.has(verdict.status) && !opts.budgetStopsFail)) {
    return { ...out, excludedBecause: verdict.status as ExclusionReason };
  }

  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  const skillPaths = t.events.filter((e): e is SkillLoadEvent => e.kind === 'skill_load' && e.path !== undefined).map((e) => e.path!);
  const planCtx = { command: c.command, workspace: init?.cwd, skillPaths, echoPrefix: opts.conventions.readEchoPrefix };

  if (arm === 'ablation') {
    // Without the skill, only the answer itself can be judged: do the plan checks pass anyway?
    if (!positive || !c.plan) return { ...out, excludedBecause: NOTHING_TO_SCORE };
    const plan = gradePlans(extractPlans(t, [], planCtx, 0), c.plan, c.command);
    return { ...out, plan, passed: outcomeStands(verdict.status) && plan.pass };
  }

  if (!positive) return { ...out, passed: outcomeStands(verdict.status) && falseTriggers.length === 0 };

  const plan = c.plan ? gradePlans(extractPlans(t, expected, planCtx, expected[0]?.at ?? t.events.length), c.plan, c.command) : undefined;
  const exclusiveOk = !c.exclusive || family.every((f) => f.skill === c.expect);
  // In the field, the expected skill must fire before any acting call: acting first is going around it; and before
  // any MCP tool: using one first is choosing the tool over the skill.
  const firedFirst = expected.length > 0 && expected[0]!.at < Math.min(acted.at, tool.at);
  const passed = outcomeStands(verdict.status) && firedFirst && firedInTime(expected[0], c.by) && exclusiveOk && (plan?.pass ?? true);
  return { ...out, plan, passed };
}
