/** Whether a path holds `<folder>/` as whole path segments (at its start, or after a `/`), either slash. */
export function holdsFolder(path: string, folder: string): boolean {
  const p = path.replace(/\\/g, '/');
  const at = p.indexOf(`${folder}/`);
  return at === 0 || (at > 0 && p[at - 1] === '/');
}

/** Whether a read path points into any installed skill's folder (`…/<skillsFolder>/…`). */
export const readsSkillsFolder = (path: string, skillsFolder: string): boolean => holdsFolder(path, skillsFolder);
