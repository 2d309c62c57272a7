import type { SkillListing } from '../agents/types.js';
import { DESCRIPTION_MAX_CHARS } from '../load/skills.js';
import { finding, type Finding, type LintSkill } from './types.js';

/** What a CLI shows the model of a description of `length` characters. */
const shownBy = (listing: SkillListing, length: number) =>
  `${listing.cli} ${length <= listing.descriptionCap ? 'lists all of it' : `lists about its first ${listing.descriptionCap} characters`}`;

/**
 * A warning on each description longer than the Agent Skills limit, saying what each pinned CLI shows of it: they all
 * load such a skill (measured; docs/cli-facts.md), so it runs, but skill uploads refuse it and a CLI may cut it.
 */
export function descriptionLengthFindings(skills: readonly LintSkill[], listings: readonly SkillListing[]): Finding[] {
  return skills
    .filter((s) => s.description.length > DESCRIPTION_MAX_CHARS)
    .map((s) =>
      finding(
        'description-length',
        'warning',
        s.at.description,
        `description is ${s.description.length} characters, over the Agent Skills limit of ${DESCRIPTION_MAX_CHARS}; the pinned CLIs still load the skill: ${listings.map((l) => shownBy(l, s.description.length)).join(', ')}`,
        `shorten it to at most ${DESCRIPTION_MAX_CHARS} characters, so every CLI shows all of it and skill uploads accept it`,
      ),
    );
}
