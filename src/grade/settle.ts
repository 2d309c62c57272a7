import type { GradingConventions } from '../agents/types.js';
import type { Arm } from '../run/config-schema.js';
import { falselyFired } from '../run/expectation.js';
import { NONE, type FamilyMember, type Firing, type GradableCase } from '../run/schema.js';
import type { Transcript } from '../transcript/types.js';
import { firings } from './trigger.js';

/**
 * When a trial's graded outcome is settled: the moment after which no later event of the trial could change whether it
 * passed or where it went (`passed` and `fired` of `gradeTrial`). The harness then stops the agent, so a trigger-only
 * trial does not pay for the skill body sent back to the model, the plan it writes and the answer nothing grades.
 */

/** What of a case decides whether and when its trials settle. */
export type SettleCase = Pick<GradableCase, 'expect' | 'not' | 'exclusive' | 'plan' | 'judge' | 'conversation' | 'mcp' | 'settle'>;

/** What the grader needs to see firings as `gradeTrial` sees them. */
export interface SettleOptions {
  family: readonly FamilyMember[];
  skillsFolder: string;
  readCountsAsFiring: boolean;
  conventions: GradingConventions;
}

/**
 * Whether a case's trials in `arm` may settle early: trigger-only cases of the skill arm. Plan checks and judge items
 * grade what the model writes after the skill loaded; a follow-up's turn may come after a plain answer; an MCP stub
 * server stopped with its CLI reads as a fault. The ablation arm scores only plans.
 */
export const settles = (c: SettleCase, arm: Arm): boolean =>
  arm === 'skill' && c.settle !== false && !c.plan && !c.judge?.length && !c.conversation?.followUps && !c.mcp?.length;

/** The index of the event that answers firing `f` (its load status, or the read's result), or undefined before it. */
function answeredAt(t: Transcript, f: Firing): number | undefined {
  const answers = (e: Transcript['events'][number]) =>
    f.via === 'invoke' ? e.kind === 'skill_load' && e.callId === f.callId : e.kind === 'tool_result' && e.id === f.callId;
  const at = t.events.findIndex((e, i) => i > f.at && answers(e));
  return at < 0 ? undefined : at;
}

/**
 * The index of the event after which trial `t`'s outcome is settled, or undefined while a later event could still
 * change it (or the case never settles: `settles`). Pure. Each firing counts only once the CLI answered it (a skill's
 * load status, a read's result), an acting call once its refusal came back (the field's evidence that nothing ran).
 *
 * - A positive case settles on the expected skill's firing before any acting call (a pass, unless it is `exclusive`:
 *   then only once another member fired too, a failure), or on an acting call before any firing (it went around).
 * - A negative case settles on the firing of a member it forbids (a false trigger); until then any later call could be one.
 */
export function settledAt(t: Transcript, c: SettleCase, arm: Arm, opts: SettleOptions): number | undefined {
  if (!settles(c, arm)) return undefined;
  const counted = firings(t, [...opts.family], opts.skillsFolder, opts.conventions).filter(
    (f) => f.via === 'invoke' || opts.readCountsAsFiring,
  );
  const acted = t.events.findIndex((e) => e.kind === 'tool_call' && e.source === 'assistant' && e.intent === 'act');
  const firstAct = acted < 0 ? Infinity : acted;
  const answered = (...fs: Firing[]): number | undefined => {
    const ats = fs.map((f) => answeredAt(t, f));
    return ats.every((a) => a !== undefined) ? Math.max(...(ats as number[])) : undefined;
  };

  if (c.expect === NONE) {
    const forbidden = counted.find((f) => f.skill !== undefined && falselyFired(c, [f.skill]).length > 0);
    return forbidden && answered(forbidden);
  }
  const expected = counted.find((f) => f.skill === c.expect);
  if (expected && expected.at < firstAct) {
    if (!c.exclusive) return answered(expected);
    const sibling = counted.find((f) => f.skill !== undefined && f.skill !== c.expect);
    return sibling && answered(expected, sibling);
  }
  if (firstAct < (counted[0]?.at ?? Infinity)) {
    const call = t.events[firstAct]!;
    const result = t.events.findIndex((e, i) => i > firstAct && e.kind === 'tool_result' && call.kind === 'tool_call' && e.id === call.id);
    return result < 0 ? undefined : result;
  }
  return undefined;
}

/**
 * The family names whose skill-tool call settles a trial of `c` in `arm` by itself (what a CLI can stop on before its
 * next model request, `InvocationRequest.settle`): the expected member's for a positive case that is not `exclusive`,
 * the forbidden members' for a negative one. Each member by its folder and its frontmatter name, as the CLI resolves them.
 */
export function settlingSkills(c: SettleCase, arm: Arm, family: readonly FamilyMember[]): string[] {
  if (!settles(c, arm)) return [];
  const members =
    c.expect === NONE
      ? family.filter((m) => falselyFired(c, [m.dir]).length > 0)
      : c.exclusive
        ? []
        : family.filter((m) => m.dir === c.expect);
  return [...new Set(members.flatMap((m) => [m.dir, m.name]))];
}
