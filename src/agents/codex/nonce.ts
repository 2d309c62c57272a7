import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The comment line planted in each copied SKILL.md: the model sees it only by reading the file. */
const NONCE_LABEL = 'skillprobe-read-check';

/** Puts `nonce` on the line after the frontmatter's opening fence, so any read from the top of the file shows it. */
export function withNonce(skillMd: string, nonce: string): string {
  const open = /^(\uFEFF?---[ \t]*\r?\n)/.exec(skillMd);
  const line = `# ${NONCE_LABEL}: ${nonce}\n`;
  return open ? open[1] + line + skillMd.slice(open[1]!.length) : `${line}${skillMd}`;
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
