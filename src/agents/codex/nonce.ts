import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Puts `nonce` first in the body, right after the frontmatter, as a bare markdown comment: any read of the skill's
 * instructions shows it, a read of the frontmatter alone (name and description, already listed) does not, and the
 * model is told nothing about a test.
 */
export function withNonce(skillMd: string, nonce: string): string {
  const frontmatter = /^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(skillMd);
  const line = `<!-- ${nonce} -->\n`;
  if (!frontmatter) return `${line}${skillMd}`;
  const end = frontmatter[0].length;
  return skillMd.slice(0, end) + (frontmatter[0].endsWith('\n') ? '' : '\n') + line + skillMd.slice(end);
}

/**
 * Plants a fresh secret in every installed SKILL.md under `skillsDir`: seeing one in a command's output proves the
 * model read that file, which naming its path or listing its folder never does.
 */
export async function plantNonces(skillsDir: string): Promise<Record<string, string>> {
  const dirs = await readdir(skillsDir, { withFileTypes: true }).catch(() => []);
  const nonces: Record<string, string> = {};
  for (const d of dirs.filter((e) => e.isDirectory())) {
    const file = join(skillsDir, d.name, 'SKILL.md');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const nonce = randomBytes(8).toString('hex');
    await writeFile(file, withNonce(text, nonce));
    nonces[d.name] = nonce;
  }
  return nonces;
}
