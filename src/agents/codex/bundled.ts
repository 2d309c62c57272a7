import { posix } from 'node:path';

/**
 * The skills Codex 0.169 bundles (it writes them under `$CODEX_HOME/skills/.system` on its first run), which a field
 * trial lists beside the installed ones and a lab trial switches off (measured: docs/cli-facts.md).
 */
export const CODEX_BUNDLED_SKILLS = ['imagegen', 'openai-docs', 'skill-creator', 'skill-installer'] as const;

/** Where Codex keeps a bundled skill, in whatever home it runs with: `…/.codex/skills/.system/<name>/SKILL.md`. */
const BUNDLED_SKILL_FILE = /(?:^|\/)\.codex\/skills\/\.system\/([^/]+)\/SKILL\.md$/;

/** The bundled skill whose SKILL.md `path` is (absolute, normalised), if it is one. */
export function bundledSkillOf(path: string): string | undefined {
  const name = BUNDLED_SKILL_FILE.exec(posix.normalize(path))?.[1];
  return (CODEX_BUNDLED_SKILLS as readonly string[]).includes(name ?? '') ? name : undefined;
}
