import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Skill } from './skills.js';

/**
 * The family by folder name only, for when some SKILL.md does not load: enough to cross-check cases and a profile
 * (which only compare names) without reporting every case of a broken skill as unknown.
 */
export function skillFolders(root: string): Pick<Skill, 'dir' | 'name' | 'path'>[] {
  try {
    return readdirSync(root)
      .filter((d) => statSync(join(root, d)).isDirectory())
      .map((dir) => ({ dir, name: dir, path: resolve(root, dir) }));
  } catch {
    return [];
  }
}
