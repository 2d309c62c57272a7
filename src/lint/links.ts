import type { Finding, LintSkill } from './types.js';

/**
 * A warning per symlink inside a skill folder: a trial gets a copy of the file it names, as a published skill that
 * is installed by copying may not (a link out of the folder is refused when the skills load).
 */
export function symlinkFindings(skills: readonly LintSkill[]): Finding[] {
  return skills.flatMap((s) =>
    s.links.map((l): Finding => ({
      severity: 'warning',
      check: 'symlink',
      file: l.file,
      what: `symlink to ${l.target}: each trial gets a copy of the file it names, not the link`,
      todo: 'keep it if that is meant; put the file itself there if the skill is installed elsewhere by copying',
    })),
  );
}
