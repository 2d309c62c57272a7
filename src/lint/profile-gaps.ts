import { matchingRule } from '../sim/policy.js';
import type { Profile } from '../sim/profile.js';
import { finding, type Finding, type LintCase } from './types.js';

/**
 * A warning on each case a rule-playing profile leaves to its default. A profile that plays cases by rule (`case:`)
 * and has no description router answers any other case with its default, whatever the prompt or the descriptions say:
 * such a case's verdict would be the profile's gap, not the skill's. A profile with a router plays those cases from the
 * descriptions, and one with no case rule is not playing the suite case by case.
 */
export function profileGapFindings(profile: Profile, profileFile: string, cases: readonly LintCase[]): Finding[] {
  if (profile.router !== undefined || !profile.rules.some((r) => r.case !== undefined)) return [];
  return cases
    .filter((c) => matchingRule(profile, c.prompt, c.id) === undefined)
    .map((c) =>
      finding(
        'profile',
        'warning',
        c.at.id,
        `the simulator profile ${profileFile} has no rule for case "${c.id}" and no router, so the simulator answers it with the profile's default, whatever its prompt or the descriptions say`,
        `add a rule for it (\`case: ${c.id}\`) to ${profileFile}, or give the profile a router (\`router: {}\`) to play such cases from the descriptions`,
      ),
    );
}
