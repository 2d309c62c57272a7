import type { SkillListing } from '../agents/types.js';
import { finding, type Finding, type LintSkill, type Position } from './types.js';

/** Warn from this share of the budget on: the family is rarely the only set of skills a user has installed. */
export const LISTING_WARN_SHARE = 0.75;

type ListedSkill = Pick<LintSkill, 'dir' | 'description'>;

/** One skill's line in the listing the model sees: `- <dir>: <description>`, the description cut at the CLI's cap. */
const listingEntry = (s: ListedSkill, listing: SkillListing) => `- ${s.dir}: ${s.description.slice(0, listing.descriptionCap)}\n`;

/** Characters the family takes in the listing the model sees (`- <dir>: <description>` per skill). */
export function listingChars(skills: readonly ListedSkill[], listing: SkillListing): number {
  return skills.reduce((sum, s) => sum + listingEntry(s, listing).length, 0);
}

/**
 * The skills a CLI would list by name only: it lists skills in name order with their descriptions until the budget is
 * spent, and every skill after that by name alone (as measured on Claude Code: of 80 numbered skills, the first 16 kept
 * their descriptions).
 */
export function cutFromListing(skills: readonly ListedSkill[], listing: SkillListing): string[] {
  const ordered = [...skills].sort((a, b) => a.dir.localeCompare(b.dir));
  let used = 0;
  const firstCut = ordered.findIndex((s) => (used += listingEntry(s, listing).length) > listing.budgetChars);
  return firstCut === -1 ? [] : ordered.slice(firstCut).map((s) => s.dir);
}

/**
 * Findings on the listing budget: one warning, at the longest description, when the family's listing (with the
 * user's other skills, `neighbours`) approaches the budget; and one per family skill the CLI would list by name only
 * once the neighbours are listed too.
 */
export function listingBudgetFindings(
  skills: readonly LintSkill[],
  listing: SkillListing,
  neighbours: readonly ListedSkill[] = [],
): Finding[] {
  const total = listingChars([...skills, ...neighbours], listing);
  if (skills.length === 0 || total < LISTING_WARN_SHARE * listing.budgetChars) return [];
  const longest = skills.reduce((a, b) => (b.description.length > a.description.length ? b : a));
  const whose = neighbours.length ? `family's and its ${neighbours.length} neighbours'` : "family's";
  const cut = new Set(cutFromListing([...skills, ...neighbours], listing));
  return [
    finding(
      'listing-budget',
      'warning',
      longest.at.description,
      `the ${whose} descriptions take ${total} of the ~${listing.budgetChars} characters ${listing.cli} gives the whole skill listing; past it, skills are listed by name only`,
      `shorten the descriptions (this one, ${longest.dir}, has ${longest.description.length} characters)`,
    ),
    ...(neighbours.length ? skills.filter((s) => cut.has(s.dir)) : []).map((s) =>
      finding(
        'listing-budget',
        'warning',
        s.at.description,
        `with the ${neighbours.length} neighbours listed too, ${listing.cli} would list ${s.dir} by name only: the model would not see this description`,
        "shorten the descriptions that come before it in name order (the family's and the neighbours'), or measure with fewer neighbours",
      ),
    ),
  ];
}

/**
 * Per case with its own neighbours (`neighbours:` in a case): each family skill the CLI would list by name only in
 * that case's trials, where the suite's listing (the family and the suite's neighbours) still shows its description.
 * At the case's id: the case's neighbours cut it, whatever the family does elsewhere.
 */
export function caseListingFindings(
  skills: readonly LintSkill[],
  listing: SkillListing,
  suiteNeighbours: readonly ListedSkill[],
  cases: readonly { id: string; at: Position; neighbours: readonly ListedSkill[] }[],
): Finding[] {
  const cutBySuite = new Set(cutFromListing([...skills, ...suiteNeighbours], listing));
  return cases.flatMap((c) => {
    if (!c.neighbours.length) return [];
    const cut = new Set(cutFromListing([...skills, ...suiteNeighbours, ...c.neighbours], listing));
    return skills
      .filter((s) => cut.has(s.dir) && !cutBySuite.has(s.dir))
      .map((s) =>
        finding(
          'listing-budget',
          'warning',
          c.at,
          `case "${c.id}": with its ${c.neighbours.length} own neighbours listed too, ${listing.cli} would list ${s.dir} by name only in its trials: the model would not see that description there`,
          'shorten the descriptions that come before it in name order, or give the case fewer neighbours',
        ),
      );
  });
}
