import type { SkillListing } from '../agents/types.js';
import { finding, type Finding, type LintSkill } from './types.js';

/** Warn from this share of the budget on: the family is rarely the only set of skills a user has installed. */
export const LISTING_WARN_SHARE = 0.75;

/** Characters the family takes in the listing the model sees (`- <dir>: <description>` per skill). */
export function listingChars(skills: readonly Pick<LintSkill, 'dir' | 'description'>[], listing: SkillListing): number {
  return skills.reduce((sum, s) => sum + `- ${s.dir}: ${s.description.slice(0, listing.descriptionCap)}\n`.length, 0);
}

/** One warning, at the longest description, when the family's listing approaches the budget. */
export function listingBudgetFindings(skills: readonly LintSkill[], listing: SkillListing): Finding[] {
  const total = listingChars(skills, listing);
  if (skills.length === 0 || total < LISTING_WARN_SHARE * listing.budgetChars) return [];
  const longest = skills.reduce((a, b) => (b.description.length > a.description.length ? b : a));
  return [
    finding(
      'listing-budget',
      'warning',
      longest.at.description,
      `the family's descriptions take ${total} of the ~${listing.budgetChars} characters ${listing.cli} gives the whole skill listing; past it, skills are listed by name only`,
      `shorten the descriptions (this one, ${longest.dir}, has ${longest.description.length} characters)`,
    ),
  ];
}
