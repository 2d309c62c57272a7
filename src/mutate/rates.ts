import type { StoredChecks } from '../checks/registry.js';
import { argsPlan, canonicalPlans, commandLines, gradePlans } from '../grade/plan.js';
import { NONE as NO_SKILL } from '../run/schema.js';
import { instructions, matchingRule, planAnswer } from '../sim/policy.js';
import type { Behaviour, PlanPolicy, Profile } from '../sim/profile.js';
import { routerChances } from '../sim/router.js';

/**
 * Each case's pass chance under a family, exactly as the model simulator plays it and the grader scores it, with no
 * trial: a case its profile's rules play draws among their behaviours (a behaviour calling a skill the family no longer
 * offers answers plainly, as the simulator does), a case no rule plays goes to the description router, which reads the
 * descriptions as the CLI lists them. A case with plan checks is graded on the plans the trial would hold: the skill
 * call's args behind the case's command prefix (where the CLI's skill call carries args) and the call the simulator
 * writes from the body as the mutant left it, garbled with the profile's `plan.wrong` chance. The chance of passing a
 * case before and after a mutation is what its power is computed from.
 */

/** A case as the rates read it. */
export interface RatedCase {
  id: string;
  prompt: string;
  /** The skill expected, or `none`. */
  expect: string;
  /** A negative case forbidding only this skill. */
  not?: string;
  /** Its plan checks as the run stores them, and the expected skill's command prefix they are graded with. */
  plan?: StoredChecks;
  command?: string;
}

/** A family as offered: each skill's description as the CLI lists it, and its body as the mutant left it. */
export interface OfferedSkill {
  name: string;
  description: string;
  body: string;
}

/** What the CLI shows of a trial's skill call: whether the model's args are in it (a skill tool with arguments). */
export interface SkillCallShape {
  carriesArgs: boolean;
}

/** How the expected skill fired: through the CLI's skill call (with the behaviour's args) or by reading its file. */
interface Fired {
  skill: string;
  via: 'invoke' | 'read';
  args?: string;
}

/** Whether the grader passes a case's plan checks on the plans a trial holds when the model writes `answer`. */
function plansPass(c: RatedCase, fired: Fired, answer: string, shape: SkillCallShape): boolean {
  const called = fired.via === 'invoke' && shape.carriesArgs ? argsPlan(fired.args, c.command) : [];
  return gradePlans(canonicalPlans([...called, ...commandLines(answer)], { skillPaths: [] }), c.plan!, c.command).pass;
}

/** The chance a trial passes, given which skill it fires and how (`none` for no skill). */
function passGiven(c: RatedCase, fired: Fired, family: readonly OfferedSkill[], policy: PlanPolicy, shape: SkillCallShape): number {
  if (c.expect === NO_SKILL) return c.not !== undefined ? Number(fired.skill !== c.not) : Number(fired.skill === NO_SKILL);
  if (fired.skill !== c.expect) return 0;
  if (c.plan === undefined || Object.keys(c.plan).length === 0) return 1;
  const body = instructions({ text: family.find((s) => s.name === c.expect)?.body ?? '', argumentsFilled: false }, fired.args ?? '');
  const pass = (garbled: boolean) => Number(plansPass(c, fired, planAnswer(body, fired.args, policy, garbled), shape));
  return (1 - policy.wrong) * pass(false) + policy.wrong * pass(true);
}

/** What a rule's behaviour fires, each with its chance, when `offered` are the skills the trial lists. */
function firedBy(b: Behaviour, offered: readonly string[]): [Fired, number][] {
  const none: [Fired, number][] = [[{ skill: NO_SKILL, via: 'invoke' }, 1]];
  const args = b.args !== undefined ? { args: b.args } : {};
  if (b.skill !== undefined) return offered.includes(b.skill) ? [[{ skill: b.skill, via: 'invoke', ...args }, 1]] : none;
  if (typeof b.read === 'string') return offered.includes(b.read) ? [[{ skill: b.read, via: 'read', ...args }, 1]] : none;
  if (b.sibling !== undefined) {
    const others = offered.filter((s) => s !== b.sibling);
    return others.length ? others.map((s) => [{ skill: s, via: 'invoke', ...args }, 1 / others.length]) : none;
  }
  return none;
}

/** The case's pass chance when `family` is installed, under `profile`, through a CLI whose skill calls look like `shape`. */
export function passChance(profile: Profile, c: RatedCase, family: readonly OfferedSkill[], shape: SkillCallShape): number {
  const rule = matchingRule(profile, c.prompt, c.id);
  const policy = rule?.plan ?? profile.plan;
  if (rule === undefined && profile.router !== undefined) {
    // The router's call carries no args: the model plans from the body alone.
    const chances = routerChances(c.prompt, family, profile.router);
    return (
      chances.none * passGiven(c, { skill: NO_SKILL, via: 'invoke' }, family, policy, shape) +
      chances.skills.reduce((sum, s) => sum + s.p * passGiven(c, { skill: s.name, via: 'invoke' }, family, policy, shape), 0)
    );
  }
  const behaviours = rule?.do ?? profile.default;
  const total = behaviours.reduce((s, b) => s + b.p, 0);
  const names = family.map((s) => s.name);
  return behaviours.reduce(
    (sum, b) => sum + (b.p / total) * firedBy(b, names).reduce((s, [fired, p]) => s + p * passGiven(c, fired, family, policy, shape), 0),
    0,
  );
}
