import { finding, type Finding, type LintCase } from './types.js';

/** A scaffolded case (`skillprobe init` writes TODO prompts) that was never filled in tests nothing a user would type. */
export function todoPromptFindings(cases: readonly LintCase[]): Finding[] {
  return cases
    .filter((c) => /\bTODO\b/.test(c.prompt))
    .map((c) =>
      finding('prompt', 'warning', c.at.prompt, `case "${c.id}" still has TODO in its prompt`, 'write the request as a user would type it'),
    );
}
