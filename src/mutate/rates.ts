import { NONE as NO_SKILL } from '../run/schema.js';
import { matchingRule } from '../sim/policy.js';
import type { Behaviour, Profile } from '../sim/profile.js';
import { routerChances } from '../sim/router.js';

/**
 * Each case's pass chance under a family, exactly as the model simulator plays it, with no trial: a case its profile's
 * rules play draws among their behaviours (a behaviour calling a skill the family no longer offers answers plainly, as
 * the simulator does), a case no rule plays goes to the description router, which reads the descriptions as the CLI
 * lists them. A plan check passes unless the profile garbles the plan (`plan.wrong`) or the mutant broke the body
 * the plan follows. The chance of passing a case before and after a mutation is what its power is computed from.
 */

/** A case as the rates read it. */
export interface RatedCase {
  id: string;
  prompt: string;
  /** The skill expected, or `none`. */
  expect: string;
  /** A negative case forbidding only this skill. */
  not?: string;
  /** Whether its plan checks ask for the subcommand (`verb`), and whether it has any. */
  plan: { verb: boolean; any: boolean };
}

/** A family as offered: each skill's description as the CLI lists it, and whether its body still shows a command. */
export interface OfferedSkill {
  name: string;
  description: string;
  /** The body as the mutant left it: intact, its command changed, or emptied. */
  body: 'intact' | 'wrong-command' | 'empty';
}

/** The chance a trial passes, given which skill it fires (`none` for no skill). */
function passGiven(c: RatedCase, fired: string, family: readonly OfferedSkill[], wrong: number): number {
  if (c.expect === NO_SKILL) return c.not !== undefined ? Number(fired !== c.not) : Number(fired === NO_SKILL);
  if (fired !== c.expect) return 0;
  if (!c.plan.any) return 1;
  const body = family.find((s) => s.name === c.expect)?.body ?? 'intact';
  if (body === 'empty' || (body === 'wrong-command' && c.plan.verb)) return 0;
  return c.plan.verb ? 1 - wrong : 1;
}

/** What a rule's behaviour fires, each with its chance, when `offered` are the skills the trial lists. */
function firedBy(b: Behaviour, offered: readonly string[]): [string, number][] {
  const skill = b.skill ?? (typeof b.read === 'string' ? b.read : undefined);
  if (skill !== undefined) return [[offered.includes(skill) ? skill : NO_SKILL, 1]];
  if (b.sibling !== undefined) {
    const others = offered.filter((s) => s !== b.sibling);
    return others.length ? others.map((s) => [s, 1 / others.length]) : [[NO_SKILL, 1]];
  }
  return [[NO_SKILL, 1]];
}

/** The case's pass chance when `family` is installed, under `profile`. */
export function passChance(profile: Profile, c: RatedCase, family: readonly OfferedSkill[]): number {
  const rule = matchingRule(profile, c.prompt, c.id);
  const wrong = (rule?.plan ?? profile.plan).wrong;
  if (rule === undefined && profile.router !== undefined) {
    const chances = routerChances(c.prompt, family, profile.router);
    return (
      chances.none * passGiven(c, NO_SKILL, family, wrong) +
      chances.skills.reduce((sum, s) => sum + s.p * passGiven(c, s.name, family, wrong), 0)
    );
  }
  const behaviours = rule?.do ?? profile.default;
  const total = behaviours.reduce((s, b) => s + b.p, 0);
  const names = family.map((s) => s.name);
  return behaviours.reduce(
    (sum, b) => sum + (b.p / total) * firedBy(b, names).reduce((s, [fired, p]) => s + p * passGiven(c, fired, family, wrong), 0),
    0,
  );
}
