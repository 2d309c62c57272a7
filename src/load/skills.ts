import { createHash } from 'node:crypto';
import { accessSync, constants, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { InputError, ProblemList, type InputProblem } from '../util/input-error.js';
import { fromFolder, isWithin, shownFrom } from '../util/paths.js';
import { parseYamlText, readTextFile, specialFileKind } from './yaml-file.js';

/** The skill a negative case expects (`expect: { skill: none }`), so no skill folder may take the name. */
export const NO_SKILL = 'none';

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
  /** sha256 over every file and symlink of the folder, so a run records exactly what was tested. */
  hash: string;
  /** Symlinks inside the folder (each leads to a file or folder within it): a trial gets a copy of what they name. */
  links: SkillLink[];
}

export interface SkillLink {
  /** The link, as shown in messages. */
  file: string;
  /** What it points to, as written. */
  target: string;
}

const NAME_RULE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Split by hand: frontmatter packages parse with a YAML reader of their own and lose the positions that
// file:line:col messages need; `yaml` parses the block here with its positions.
// (readTextFile has dropped a byte order mark already.)
export const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The Agent Skills spec's limit on a description's length. */
export const DESCRIPTION_MAX_CHARS = 1024;

/** Why a SKILL.md's description cannot be loaded at all: missing or empty (the CLIs skip such a skill). */
function missingDescription(description: unknown): { what: string; todo: string } | undefined {
  if (typeof description !== 'string' || description.trim() === '')
    return { what: 'frontmatter `description` is missing or empty', todo: 'describe what the skill does and when to use it' };
  return undefined;
}

/**
 * What breaks the Agent Skills spec's rules on a description (non-empty, at most 1024 characters), as what and what
 * to do: what a description skillprobe writes must keep. A longer one the user wrote still loads (every pinned CLI
 * loads it; `lint` says what each shows of it).
 */
export function descriptionSpecProblem(description: unknown): { what: string; todo: string } | undefined {
  const missing = missingDescription(description);
  if (missing || typeof description !== 'string') return missing;
  if (description.length > DESCRIPTION_MAX_CHARS)
    return { what: `description is ${description.length} characters`, todo: `shorten it to at most ${DESCRIPTION_MAX_CHARS} characters` };
  return undefined;
}

/** What `path` leads to, through a symlink if it is one; a link that leads nowhere is a problem naming link and target. */
function follow(path: string, cwd: string | undefined): { stats: Stats; link?: string } | { problem: InputProblem } {
  const link = lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  try {
    return { stats: statSync(path), link };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what =
      code === 'ENOENT'
        ? `dangling symlink: it points to ${link}, which does not exist`
        : code === 'ELOOP'
          ? `symlink loop: ${link} leads back to itself`
          : `cannot follow it to ${link} (${code})`;
    return { problem: { file: shownFrom(cwd, path), what, todo: 'fix the link, or remove it' } };
  }
}

/** What a scanned folder is, as its problems name it: a skill's, or a folder of the user's files (fixtures). */
export interface CopiedFolder {
  /** "skill folder", "fixture folder". */
  name: string;
  /** Who needs a file a link points to, in "copy the file into the <name> if <needs> it". */
  needs: string;
}

const SKILL_FOLDER: CopiedFolder = { name: 'skill folder', needs: 'the skill needs' };

/** Why a file or folder inside a copied folder cannot be read (the copy into a trial would fail), or undefined. */
function unreadableEntry(path: string, folder: boolean, kind: CopiedFolder, cwd: string | undefined): InputProblem | undefined {
  try {
    accessSync(path, folder ? constants.R_OK | constants.X_OK : constants.R_OK);
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    return {
      file: shownFrom(cwd, path),
      what: `${folder ? 'folder' : 'file'} inside a ${kind.name} cannot be read (${code})`,
      todo: 'fix its permissions (chmod), or remove it',
    };
  }
}

export interface FolderScan {
  /** The user's working folder: problems name paths from it (whole, without it). */
  cwd?: string;
  paths: string[];
  problems: InputProblem[];
  links: SkillLink[];
}

/** A link whose target is outside the copied folder would hand that file (a key, a home folder) to every trial's model. */
function leavesFolder(
  path: string,
  link: string,
  real: string,
  root: string,
  kind: CopiedFolder,
  cwd: string | undefined,
): InputProblem | undefined {
  if (isWithin(real, root)) return undefined;
  return {
    file: shownFrom(cwd, path),
    what: `symlink to ${link} leads outside the ${kind.name} (to ${real}), and a trial would hand what it names to the model`,
    todo: `copy the file into the ${kind.name} if ${kind.needs} it, or remove the link`,
  };
}

/**
 * Every file and symlink in a copied folder (a skill's, or the user's files), as the trial copy sees it (it follows
 * symlinks), and what that copy would hang, fail or leak on: broken or looping links, links out of the folder, FIFOs,
 * sockets and devices. Only stats are taken: opening a FIFO blocks. `ancestors` are the real paths of the folders
 * walked down so far (the first is the scanned folder's), so a link back up is caught, not followed.
 */
export function scanCopiedFolder(dir: string, ancestors: readonly string[], out: FolderScan, kind: CopiedFolder = SKILL_FOLDER): void {
  const root = ancestors[0]!;
  const cannotRead = unreadableEntry(dir, true, kind, out.cwd);
  if (cannotRead) {
    out.problems.push(cannotRead);
    return;
  }
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const found = follow(path, out.cwd);
    if ('problem' in found) {
      out.problems.push(found.problem);
      continue;
    }
    const { stats, link } = found;
    const via = link === undefined ? '' : ` (through a symlink to ${link})`;
    const special = specialFileKind(stats);
    if (special) {
      out.problems.push({
        file: shownFrom(out.cwd, path),
        what: `${special}${via} inside a ${kind.name}`,
        todo: 'remove it: a trial cannot copy it',
      });
      continue;
    }
    const real = link === undefined ? path : realpathSync(path);
    // A link to a folder holding the link itself would make the copy endless.
    if (link !== undefined && stats.isDirectory() && ancestors.some((a) => isWithin(a, real))) {
      out.problems.push({
        file: shownFrom(out.cwd, path),
        what: `symlink loop: it points to ${link}, a folder that holds the link itself`,
        todo: 'fix the link, or remove it',
      });
      continue;
    }
    const outside = link === undefined ? undefined : leavesFolder(path, link, real, root, kind, out.cwd);
    if (outside) {
      out.problems.push(outside);
      continue;
    }
    if (link !== undefined) out.links.push({ file: shownFrom(out.cwd, path), target: link });
    if (stats.isDirectory()) {
      if (link !== undefined) out.paths.push(path);
      scanCopiedFolder(path, [...ancestors, real], out, kind);
    } else {
      const cannotRead = unreadableEntry(path, false, kind, out.cwd);
      if (cannotRead) out.problems.push(cannotRead);
      else out.paths.push(path);
    }
  }
}

/**
 * sha256 over a skill folder's files and symlinks (`paths`, as the scan lists them): the raw bytes of each file, and
 * where each symlink points, so a link differs from a copy of what it names. Every field carries its length, so no
 * two listings run together.
 */
export function hashFiles(root: string, paths: string[]): string {
  const h = createHash('sha256');
  const fields = (...data: (string | Buffer)[]) => {
    for (const d of data) h.update(`${Buffer.byteLength(d)}:`).update(d);
  };
  for (const p of paths) {
    const rel = relative(root, p);
    if (lstatSync(p).isSymbolicLink()) fields('link', rel, readlinkSync(p));
    if (statSync(p).isFile()) fields('file', rel, readFileSync(p));
  }
  return h.digest('hex');
}

/**
 * A skill folder's hash as `loadSkills` took it, taken again now: a run compares the two to see an edit made since it
 * loaded the skill. A folder gone or unreadable hashes as undefined.
 */
export function skillFolderHash(folder: string): string | undefined {
  try {
    const scan: FolderScan = { paths: [], problems: [], links: [] };
    scanCopiedFolder(folder, [realpathSync(folder)], scan);
    return scan.problems.length ? undefined : hashFiles(folder, scan.paths);
  } catch {
    return undefined;
  }
}

/** A SKILL.md without frontmatter, said at its first line with what to write. */
export const noFrontmatter = (file: string, what: string): InputError =>
  new InputError({ file, line: 1, col: 1, what, todo: 'start the file with `---`, then `name:` and `description:` lines, then `---`' });

/** Parses one SKILL.md against the Agent Skills spec. Throws InputError with file:line:col. */
export function parseSkillFile(file: string, dir: string, text: string): Omit<Skill, 'path' | 'hash' | 'links'> {
  const m = FRONTMATTER.exec(text);
  if (!m) throw noFrontmatter(file, 'SKILL.md has no YAML frontmatter');
  // Frontmatter starts on line 2; pad so the YAML parser's line numbers are the file's.
  const y = parseYamlText(file, '\n' + m[1]!);
  const fm = y.value;
  if (typeof fm !== 'object' || fm === null || Array.isArray(fm)) {
    throw new InputError({
      file,
      line: 2,
      col: 1,
      what: 'frontmatter is not a mapping',
      todo: 'write `name: …` and `description: …` lines',
    });
  }
  const data = fm as Record<string, unknown>;
  const problems = new ProblemList();
  const name = data.name;
  if (typeof name !== 'string' || name.trim() === '') {
    problems.add(y.problem(['name'], 'frontmatter `name` is missing or empty', `add \`name: ${dir}\``));
  } else if (name.length > 64 || !NAME_RULE.test(name)) {
    problems.add(
      y.problem(
        ['name'],
        `name "${name}" breaks the Agent Skills rule`,
        'use 1–64 lowercase letters, digits and single hyphens (no leading or trailing hyphen)',
      ),
    );
  } else if (name !== dir) {
    problems.add(y.problem(['name'], `name "${name}" differs from its folder "${dir}"`, `rename the folder or set \`name: ${dir}\``));
  }
  const description = data.description;
  const badDescription = missingDescription(description);
  if (badDescription) problems.add(y.problem(['description'], badDescription.what, badDescription.todo));
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

/** How messages name a folder of skills, and the setting that points at it. */
export interface SkillsFolderWording {
  folder: string;
  setting: string;
}

const FAMILY_FOLDER: SkillsFolderWording = { folder: 'skills folder', setting: 'set `skillsDir` in skillprobe.config.yaml or --skills' };

/**
 * Loads every `<skillsDir>/<dir>/SKILL.md`; all problems are reported together. A relative `skillsDir` is taken from
 * `cwd`, the user's working folder, and problems name paths from it; without it, `skillsDir` must be absolute and
 * problems name paths whole.
 */
export function loadSkills(skillsDir: string, cwd?: string, wording: SkillsFolderWording = FAMILY_FOLDER): Skill[] {
  const root = fromFolder(cwd, skillsDir);
  const shownPath = (p: string) => shownFrom(cwd, p);
  let entries: string[];
  try {
    entries = readdirSync(root).sort();
  } catch (e) {
    const notFolder = (e as NodeJS.ErrnoException).code === 'ENOTDIR';
    throw new InputError({
      file: skillsDir,
      what: notFolder ? `a file where the ${wording.folder} belongs` : `${wording.folder} not found`,
      todo: `create it, or ${wording.setting}`,
    });
  }
  const problems = new ProblemList();
  const skills: Skill[] = [];
  for (const dir of entries) {
    const folder = join(root, dir);
    const found = follow(folder, cwd);
    if ('problem' in found) {
      problems.add(found.problem);
      continue;
    }
    if (!found.stats.isDirectory()) continue; // loose files beside the skills are not skills
    if (dir === NO_SKILL) {
      problems.add({
        file: shownPath(folder),
        what: `a skill folder named "${NO_SKILL}" clashes with \`expect: { skill: ${NO_SKILL} }\`, which marks a negative case`,
        todo: 'rename the folder and its `name`',
      });
      continue;
    }
    const scan: FolderScan = { cwd, paths: [], problems: [], links: [] };
    scanCopiedFolder(folder, [realpathSync(folder)], scan);
    if (scan.problems.length) {
      scan.problems.forEach((p) => problems.add(p));
      continue;
    }
    const names = readdirSync(folder);
    const file = join(folder, 'SKILL.md');
    if (!names.includes('SKILL.md')) {
      const near = names.find((n) => n.toLowerCase() === 'skill.md');
      problems.add({
        file: shownPath(folder),
        what: near ? `found ${near} but agent CLIs read only SKILL.md (the name is case-sensitive)` : 'folder has no SKILL.md',
        todo: near ? `rename it to SKILL.md` : `add SKILL.md or move the folder out of the ${wording.folder}`,
      });
      continue;
    }
    const parsed = problems.collect(() => parseSkillFile(shownPath(file), dir, readTextFile(file, 'SKILL.md')));
    if (parsed) skills.push({ ...parsed, path: folder, hash: hashFiles(folder, scan.paths), links: scan.links });
  }
  problems.throwIfAny();
  if (skills.length === 0) {
    throw new InputError({
      file: skillsDir,
      what: 'no skills found',
      todo: `add at least one \`<dir>/SKILL.md\` under the ${wording.folder}`,
    });
  }
  return skills;
}

/** Hash of the whole family, order-independent. */
export function familyHash(skills: Skill[]): string {
  const h = createHash('sha256');
  for (const s of [...skills].sort((a, b) => a.dir.localeCompare(b.dir))) h.update(s.dir).update(s.hash);
  return h.digest('hex');
}
