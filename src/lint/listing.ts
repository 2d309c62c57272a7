import { finding, type Finding, type LintSkill } from './types.js';

/** Claude Code cuts each description in the skill listing after this many characters (then `…`). */
export const LISTING_DESCRIPTION_CAP = 1536;
/** The listing gets about 1% of the context window, ~8,000 characters on a 200k-token model; past it skills lose their descriptions. */
export const LISTING_BUDGET_CHARS = 8000;
/** Warn from this share of the budget on: the family is rarely the only set of skills a user has installed. */
export const LISTING_WARN_SHARE = 0.75;

/** Characters the family takes in the listing the model sees (`- <dir>: <description>` per skill). */
export function listingChars(skills: readonly Pick<LintSkill, 'dir' | 'description'>[]): number {
  return skills.reduce((sum, s) => sum + `- ${s.dir}: ${s.description.slice(0, LISTING_DESCRIPTION_CAP)}\n`.length, 0);
}

/** One warning, at the longest description, when the family's listing approaches the budget. */
export function listingBudgetFindings(skills: readonly LintSkill[]): Finding[] {
  const total = listingChars(skills);
  if (skills.length === 0 || total < LISTING_WARN_SHARE * LISTING_BUDGET_CHARS) return [];
  const longest = skills.reduce((a, b) => (b.description.length > a.description.length ? b : a));
  return [
    finding(
      'listing-budget',
      'warning',
      longest.at.description,
      `the family's descriptions take ${total} of the ~${LISTING_BUDGET_CHARS} characters Claude Code gives the whole skill listing; past it, skills are listed by name only`,
      `shorten the descriptions (this one, ${longest.dir}, has ${longest.description.length} characters)`,
    ),
  ];
}
