import { finding, namesSkill, type Finding, type LintCase, type LintSkill } from './types.js';

/** A scaffolded case (`skillprobe init` writes TODO prompts) that was never filled in tests nothing a user would type. */
export function todoPromptFindings(cases: readonly LintCase[]): Finding[] {
  return cases
    .filter((c) => /\bTODO\b/.test(c.prompt))
    .map((c) =>
      finding('prompt', 'warning', c.at.prompt, `case "${c.id}" still has TODO in its prompt`, 'write the request as a user would type it'),
    );
}

/** The skill's name as a word of the prompt, any case: hyphens and word characters around it make another word. */
const namedIn = (prompt: string, name: string) =>
  new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'i').test(prompt);

/**
 * A case whose prompt names the skill it expects gives the answer away: the model matches the name, not the request,
 * so the case passes whatever the description says and cannot notice a broken one (`skillprobe mutate`'s survivors).
 */
export function namedSkillFindings(skills: readonly LintSkill[], cases: readonly LintCase[]): Finding[] {
  return cases.flatMap((c) => {
    const skill = skills.find((s) => namesSkill(s, c.expect));
    const name = skill && [skill.dir, skill.name].find((n) => namedIn(c.prompt, n));
    return name === undefined
      ? []
      : [
          finding(
            'prompt',
            'warning',
            c.at.prompt,
            `case "${c.id}" names the skill it expects (${name}) in its prompt: the answer is given away, so the case passes whatever the description says`,
            'write the request as a user who has never seen the skill would, without its name',
          ),
        ];
  });
}
