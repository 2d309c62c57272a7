import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InputError, ProblemList } from './input-error.js';
import { parseYamlText, readTextFile } from './yaml-file.js';

export interface Skill {
  /** Folder name: what Claude Code lists and the first name a trigger can use. */
  dir: string;
  /** Frontmatter `name` (the Agent Skills spec makes it equal to `dir`). */
  name: string;
  description: string;
  /** Absolute path of the skill folder. */
  path: string;
  body: string;
  allowedTools?: string;
  /** The SKILL.md as shown in messages, and where its frontmatter keys were written (for lint's findings). */
  source: { file: string; at: Record<'name' | 'description' | 'allowedTools', { line: number; col: number }> };
  /** sha256 over every file of the folder, so a run records exactly what was tested. */
  hash: string;
}

const NAME_RULE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Split by hand: frontmatter packages parse with a YAML reader of their own and lose the positions that
// file:line:col messages need; `yaml` parses the block here with its positions.
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p));
    else if (entry.isFile()) out.push(p);
  }
  return out.sort();
}

export function hashFiles(root: string, files: string[]): string {
  const h = createHash('sha256');
  for (const f of files) {
    h.update(relative(root, f)).update('\0').update(readTextFile(f, 'file')).update('\0');
  }
  return h.digest('hex');
}

/** Parses one SKILL.md against the Agent Skills spec. Throws InputError with file:line:col. */
export function parseSkillFile(file: string, dir: string, text: string): Omit<Skill, 'path' | 'hash'> {
  const m = FRONTMATTER.exec(text);
  if (!m) {
    throw new InputError({
      file,
      line: 1,
      col: 1,
      what: 'SKILL.md has no YAML frontmatter',
      todo: 'start the file with `---`, then `name:` and `description:` lines, then `---`',
    });
  }
  // Frontmatter starts on line 2; pad so the YAML parser's line numbers are the file's.
  const y = parseYamlText(file, '\n' + m[1]!);
  const fm = y.doc.toJS() as unknown;
  if (typeof fm !== 'object' || fm === null || Array.isArray(fm)) {
    throw new InputError({ file, line: 2, col: 1, what: 'frontmatter is not a mapping', todo: 'write `name: …` and `description: …` lines' });
  }
  const data = fm as Record<string, unknown>;
  const problems = new ProblemList();
  const name = data.name;
  if (typeof name !== 'string' || name.trim() === '') {
    problems.add(y.problem(['name'], 'frontmatter `name` is missing or empty', `add \`name: ${dir}\``));
  } else if (name.length > 64 || !NAME_RULE.test(name)) {
    problems.add(
      y.problem(['name'], `name "${name}" breaks the Agent Skills rule`, 'use 1–64 lowercase letters, digits and single hyphens (no leading or trailing hyphen)'),
    );
  } else if (name !== dir) {
    problems.add(y.problem(['name'], `name "${name}" differs from its folder "${dir}"`, `rename the folder or set \`name: ${dir}\``));
  }
  const description = data.description;
  if (typeof description !== 'string' || description.trim() === '') {
    problems.add(y.problem(['description'], 'frontmatter `description` is missing or empty', 'describe what the skill does and when to use it'));
  } else if (description.length > 1024) {
    problems.add(y.problem(['description'], `description is ${description.length} characters`, 'shorten it to at most 1024 characters'));
  }
  const allowed = data['allowed-tools'];
  problems.throwIfAny();
  return {
    dir,
    name: name as string,
    description: (description as string).trim(),
    body: text.slice(m[0].length),
    allowedTools: typeof allowed === 'string' ? allowed : Array.isArray(allowed) ? allowed.join(' ') : undefined,
    source: { file, at: { name: y.locate(['name']), description: y.locate(['description']), allowedTools: y.locate(['allowed-tools']) } },
  };
}

/** Loads every `<skillsDir>/<dir>/SKILL.md`; all problems are reported together. */
export function loadSkills(skillsDir: string): Skill[] {
  const root = resolve(skillsDir);
  let entries: string[];
  try {
    entries = readdirSync(root).filter((e) => statSync(join(root, e)).isDirectory()).sort();
  } catch {
    throw new InputError({ file: skillsDir, what: 'skills folder not found', todo: 'create it, or set `skillsDir` in skillprobe.config.yaml or --skills' });
  }
  const problems = new ProblemList();
  const skills: Skill[] = [];
  for (const dir of entries) {
    const folder = join(root, dir);
    const names = readdirSync(folder);
    const file = join(folder, 'SKILL.md');
    if (!names.includes('SKILL.md')) {
      const near = names.find((n) => n.toLowerCase() === 'skill.md');
      problems.add({
        file: relative(process.cwd(), folder) || folder,
        what: near ? `found ${near} but Claude Code only reads SKILL.md` : 'folder has no SKILL.md',
        todo: near ? `rename it to SKILL.md` : 'add SKILL.md or move the folder out of the skills folder',
      });
      continue;
    }
    const shown = relative(process.cwd(), file) || file;
    const parsed = problems.collect(() => parseSkillFile(shown, dir, readTextFile(file, 'SKILL.md')));
    if (parsed) skills.push({ ...parsed, path: folder, hash: hashFiles(folder, filesUnder(folder)) });
  }
  problems.throwIfAny();
  if (skills.length === 0) {
    throw new InputError({ file: skillsDir, what: 'no skills found', todo: 'add at least one `<dir>/SKILL.md` under the skills folder' });
  }
  return skills;
}

/** Hash of the whole family, order-independent. */
export function familyHash(skills: Skill[]): string {
  const h = createHash('sha256');
  for (const s of [...skills].sort((a, b) => a.dir.localeCompare(b.dir))) h.update(s.dir).update(s.hash);
  return h.digest('hex');
}
