import { NO_SKILL } from '../load/skills.js';
import { plural } from '../util/text.js';
import { seededUniform } from '../util/random.js';

/**
 * How `tune` splits the cases: the proposer sees only the tune split's failures, candidates are ranked on the select
 * split, and only the holdout split, never looked at before, decides whether the winner beats the original. The
 * split is seeded (the same seed and cases give the same split), stratified by role × trap so each split gets its
 * share of plain positives, traps and negatives, and honours the cases a user pinned to a split.
 */
export type SplitName = 'tune' | 'select' | 'holdout';
export const SPLIT_NAMES: readonly SplitName[] = ['tune', 'select', 'holdout'];

/** What a case expects, seen from the tuned skill: itself, another family member, or that it stays quiet. */
export type CaseRole = 'self' | 'sibling' | 'none';

export interface SplitCase {
  id: string;
  expects: string;
  /** The member a "not this skill" case forbids. */
  not?: string;
  /** Built to be mistaken for a sibling: it has `against`, or the tag trap or near-miss. */
  trap: boolean;
  pinned?: SplitName;
}

/** Each split's share of every stratum, in tenths (whole numbers, so ties of remainders are exact). */
export const SPLIT_SHARES: Readonly<Record<SplitName, number>> = { tune: 4, select: 3, holdout: 3 };
const TENTHS = 10;

/** What each split needs to say anything: positives (role self) and negatives (sibling or none). */
export const SPLIT_NEEDS = { positives: 2, negatives: 1 } as const;

/**
 * A negative case is `none` for the skill it forbids: no skill may fire, or "not this skill" naming it. One that
 * forbids only a sibling leaves the tuned skill free, so it is that sibling's case (`sibling`).
 */
export function caseRole(expects: string, skill: string, not?: string): CaseRole {
  if (expects === skill) return 'self';
  return expects === NO_SKILL && (not === undefined || not === skill) ? 'none' : 'sibling';
}

type Counts = Record<SplitName, number>;
const zero = (): Counts => ({ tune: 0, select: 0, holdout: 0 });

/**
 * How many of a stratum's n cases go to each split: the shares' quotas by largest remainder (ties in `order`), then
 * the pinned cases where pinned and the rest filling the splits furthest below their quota (ties in `order`).
 */
export function stratumCounts(n: number, pinned: Readonly<Counts>, order: readonly SplitName[] = SPLIT_NAMES): Counts {
  const target = zero();
  for (const x of SPLIT_NAMES) target[x] = Math.floor((n * SPLIT_SHARES[x]) / TENTHS);
  const left = n - SPLIT_NAMES.reduce((a, x) => a + target[x], 0);
  const remainder = (x: SplitName) => (n * SPLIT_SHARES[x]) % TENTHS;
  const byRemainder = [...SPLIT_NAMES].sort((a, b) => remainder(b) - remainder(a) || order.indexOf(a) - order.indexOf(b));
  for (const x of byRemainder.slice(0, left)) target[x]++;
  const counts = { ...pinned };
  let free = n - SPLIT_NAMES.reduce((a, s) => a + pinned[s], 0);
  for (; free > 0; free--) {
    const next = [...order].sort((a, b) => target[b] - counts[b] - (target[a] - counts[a]) || order.indexOf(a) - order.indexOf(b))[0]!;
    counts[next]++;
  }
  return counts;
}

const stratumKey = (c: SplitCase, skill: string) => `${caseRole(c.expects, skill, c.not)}/${c.trap ? 'trap' : 'plain'}`;

/** The splits in a seeded order: which split wins a tie of remainders, so a stratum of one or two cases spreads. */
function seededOrder(seed: number, key: string): SplitName[] {
  return [...SPLIT_NAMES].sort((a, b) => seededUniform(seed, 'split-order', key, a) - seededUniform(seed, 'split-order', key, b));
}

export function splitCases(cases: readonly SplitCase[], skill: string, seed: number): Record<SplitName, string[]> {
  const strata = new Map<string, SplitCase[]>();
  for (const c of cases) strata.set(stratumKey(c, skill), [...(strata.get(stratumKey(c, skill)) ?? []), c]);
  const where = new Map<string, SplitName>();
  for (const [key, members] of strata) {
    const pinned = zero();
    for (const c of members) if (c.pinned) pinned[c.pinned]++;
    const counts = stratumCounts(members.length, pinned, seededOrder(seed, key));
    const free = members
      .filter((c) => !c.pinned)
      .map((c) => ({ c, u: seededUniform(seed, 'split', c.id) }))
      .sort((a, b) => a.u - b.u || (a.c.id < b.c.id ? -1 : 1));
    let at = 0;
    for (const s of SPLIT_NAMES) for (let k = counts[s] - pinned[s]; k > 0; k--) where.set(free[at++]!.c.id, s);
    for (const c of members) if (c.pinned) where.set(c.id, c.pinned);
  }
  const split: Record<SplitName, string[]> = { tune: [], select: [], holdout: [] };
  for (const c of cases) split[where.get(c.id)!].push(c.id);
  return split;
}

/**
 * The fewest plain, unpinned cases to add to a stratum so the default shares give split s at least `need` of them,
 * whatever the seed decides on ties.
 */
function toAdd(stratum: readonly SplitCase[], s: SplitName, need: number): number {
  if (need <= 0) return 0;
  const pinned = zero();
  for (const c of stratum) if (c.pinned) pinned[c.pinned]++;
  const worst = [...SPLIT_NAMES.filter((x) => x !== s), s];
  let k = 1;
  while (stratumCounts(stratum.length + k, pinned, worst)[s] < need) k++;
  return k;
}

/** One message per split that lacks the positives or negatives it needs, naming what to add. */
export function splitProblems(split: Record<SplitName, string[]>, cases: readonly SplitCase[], skill: string): string[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const plain = (role: CaseRole) => cases.filter((c) => !c.trap && caseRole(c.expects, skill, c.not) === role);
  const problems: string[] = [];
  for (const s of SPLIT_NAMES) {
    const roles = split[s].map((id) => byId.get(id)).filter((c) => c !== undefined);
    const count = (r: (role: CaseRole) => boolean, trapsOnly = false) =>
      roles.filter((c) => r(caseRole(c.expects, skill, c.not)) && (!trapsOnly || c.trap)).length;
    const positives = count((r) => r === 'self');
    if (positives < SPLIT_NEEDS.positives) {
      // Adding plain positives: the split keeps its positive traps and gets its share of the enlarged plain stratum.
      const k = toAdd(plain('self'), s, SPLIT_NEEDS.positives - count((r) => r === 'self', true));
      problems.push(
        `the ${s} split has ${plural(positives, 'case')} expecting ${skill}: add ${k} more positive ${k === 1 ? 'case' : 'cases'} (or pin some with split: ${s})`,
      );
    }
    const negatives = count((r) => r !== 'self');
    if (negatives < SPLIT_NEEDS.negatives) {
      const k = toAdd(plain('none'), s, SPLIT_NEEDS.negatives - count((r) => r === 'none', true) - count((r) => r === 'sibling'));
      problems.push(
        `the ${s} split has no case expecting another skill or none: add ${k} more negative ${k === 1 ? 'case' : 'cases'} (expecting a sibling or ${NO_SKILL}; or pin some with split: ${s})`,
      );
    }
  }
  return problems;
}
