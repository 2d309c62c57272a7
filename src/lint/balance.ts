import { NO_SKILL } from '../load/cases.js';
import { confusablePairs } from './overlap.js';
import { finding, namesSkill, type Finding, type LintCase, type LintSkill } from './types.js';

/**
 * A suite that can tell a skill apart from its siblings and from silence: a positive case per skill, a trap each
 * way for every pair whose descriptions share vocabulary, and at least one negative case.
 */
export function balanceFindings(skills: readonly LintSkill[], cases: readonly LintCase[]): Finding[] {
  const out: Finding[] = [];
  for (const s of skills) {
    if (!cases.some((c) => namesSkill(s, c.expect))) {
      out.push(
        finding(
          'balance',
          'warning',
          s.at.name,
          `no case expects ${s.dir}`,
          `add a positive case: a prompt that should fire it, with \`expect: { skill: ${s.dir} }\``,
        ),
      );
    }
  }
  const traps = (a: LintSkill, b: LintSkill) => cases.some((c) => namesSkill(a, c.expect) && c.against.some((o) => namesSkill(b, o)));
  for (const p of confusablePairs(skills)) {
    for (const [a, b] of [
      [skills[p.a]!, skills[p.b]!],
      [skills[p.b]!, skills[p.a]!],
    ] as const) {
      if (traps(a, b)) continue;
      out.push(
        finding(
          'balance',
          'warning',
          a.at.name,
          `no trap case expects ${a.dir} against its sibling ${b.dir} (their descriptions share ${p.shared.slice(0, 3).join(', ')})`,
          `add a case whose prompt uses ${b.dir}'s words but needs ${a.dir}, with \`expect: { skill: ${a.dir} }\` and \`against: ${b.dir}\``,
        ),
      );
    }
  }
  for (const c of cases) {
    if (c.tags.includes('trap') && c.against.length === 0) {
      out.push(
        finding(
          'balance',
          'warning',
          c.at.id,
          `case "${c.id}" is tagged trap but names no sibling it could be mistaken for`,
          'add `against: <sibling>`, so lint can see which pair it covers',
        ),
      );
    }
  }
  const first = cases[0];
  if (first && !cases.some((c) => c.expect === NO_SKILL)) {
    out.push(
      finding(
        'balance',
        'warning',
        { file: first.at.id.file, line: 1, col: 1 },
        'the suite has no negative case, so a skill that fires on everything would pass',
        `add a case a user might type near the family's topic that no skill should answer, with \`expect: { skill: ${NO_SKILL} }\``,
      ),
    );
  }
  return out;
}
