/** Where skills' SKILL.md files are, as the CLIs' listings and the model's calls name them. */

export const isSkillFile = (path: string): boolean => /(^|\/)SKILL\.md$/.test(path);

/** The skill a SKILL.md path belongs to: the listed skill with that file, else the folder that holds it. */
export function skillOfFile(path: string, skillFiles: ReadonlyMap<string, string>): string | undefined {
  for (const [name, file] of skillFiles) if (file === path) return name;
  return /([^/]+)\/SKILL\.md$/.exec(path)?.[1];
}

/** A skill's SKILL.md as listed; else in `.agents/skills`, the workspace folder both Codex and Gemini read. */
export const skillFileOf = (name: string, skillFiles: ReadonlyMap<string, string>): string =>
  skillFiles.get(name) ?? `.agents/skills/${name}/SKILL.md`;
