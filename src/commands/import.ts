import { existsSync, mkdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { escapePath, globSync } from 'tinyglobby';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../load/config.js';
import { InputError } from '../util/input-error.js';
import { loadSkills, type Skill } from '../load/skills.js';
import { readTriggerEvals, repeatText, triggerEvalCases, triggerEvalSkill, type ImportedCase } from '../load/trigger-evals.js';
import { checkEvalSetCases } from '../load/cases.js';
import { readTextFile } from '../load/yaml-file.js';
import { yamlScalar } from '../load/yaml-scalar.js';
import { EXIT } from '../run/exit-codes.js';
import { schemaFileName, SCHEMAS_DIR } from '../schema/schema-files.js';
import { nearestName, plural } from '../util/text.js';

export interface ImportOptions {
  config?: string;
  skills?: string;
  /** The skill the eval set is for (else the folder holding it, or its file name, says). */
  skill?: string;
  /** The case file to write (default: cases/<skill>.yaml). */
  out?: string;
  force?: boolean;
}

export interface ImportEnv {
  cwd: string;
  out: { write(text: string): unknown };
  /** Where warnings go: what the import changed from the eval set, each naming its entry. */
  err: { write(text: string): unknown };
}

/** The skill `--skill` names, by folder or frontmatter name; an unknown one names the skills there are. */
function namedSkill(name: string, skills: readonly Skill[], skillsDir: string): string {
  const found = skills.find((s) => s.dir === name || s.name === name);
  if (found) return found.dir;
  const names = skills.map((s) => s.dir);
  const meant = nearestName(name, names);
  throw new InputError({
    file: '--skill',
    what: `no skill "${name}" in ${skillsDir}`,
    todo: `${meant ? `did you mean ${meant}? ` : ''}the skills are ${names.join(', ')}`,
  });
}

/** The skill the eval set's place says, or a mistake that offers --skill. */
function skillOf(file: string, skills: readonly Skill[], path: string): string {
  try {
    return triggerEvalSkill(file, skills, path);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError({ ...e.problems[0]!, todo: `pass --skill with one of ${skills.map((s) => s.dir).join(', ')}` });
  }
}

/** A YAML case file holding `cases`, with the schema header editors read, and where they came from. */
export function caseFileText(cases: readonly ImportedCase[], opts: { schema: string; from: string; skill: string }): string {
  const positives = cases.filter((c) => c.tags.length === 0).length;
  const lines = [
    `# yaml-language-server: $schema=${opts.schema}`,
    `# Imported by \`skillprobe import\` from ${opts.from.replace(/[\r\n]+/g, ' ')}, a skill-creator trigger eval set for ${opts.skill}:`,
    `# ${plural(positives, 'request')} that should trigger it, ${plural(cases.length - positives, 'near miss', 'near misses')} it must not take (\`not:\`, where a sibling may).`,
    '# Edit freely: tags, `against:` traps, plan checks, `split:`.',
  ];
  for (const c of cases) {
    lines.push(
      `- id: ${c.id}`,
      `  prompt: ${yamlScalar(c.prompt)}`,
      `  expect: { ${'skill' in c.expect ? `skill: ${c.expect.skill}` : `not: ${c.expect.not}`} }`,
      ...(c.tags.length ? [`  tags: [${c.tags.join(', ')}]`] : []),
      '',
    );
  }
  return lines.join('\n');
}

/** Writes a skill-creator trigger eval set (JSON) as a YAML case file to edit; nothing is written on any mistake. */
export function importEvalSet(file: string, opts: ImportOptions, env: ImportEnv): number {
  const inCwd = (p: string) => resolve(env.cwd, p);
  const shown = (p: string) => relative(env.cwd, p) || p;
  const defaultConfig = inCwd(DEFAULT_CONFIG_FILE);
  const configFile = opts.config !== undefined ? inCwd(opts.config) : existsSync(defaultConfig) ? defaultConfig : undefined;
  const { config } = loadConfig(configFile, { skillsDir: opts.skills }, env.cwd);
  const skills = loadSkills(config.skillsDir, env.cwd);
  const input = inCwd(file);
  let text: string;
  try {
    text = readTextFile(input, 'trigger eval set', { utf8: 'strict' });
  } catch (e) {
    // Named as the user gave it, not by its absolute path.
    throw e instanceof InputError ? new InputError(e.problems.map((p) => ({ ...p, file: shown(input) }))) : e;
  }
  const skill = opts.skill !== undefined ? namedSkill(opts.skill, skills, config.skillsDir) : skillOf(shown(input), skills, input);
  const { entries, repeats, y } = readTriggerEvals(shown(input), text);
  // A repeat is dropped, not refused: the written cases are the set's requests, each once, and the warning says which.
  const repeated = new Set(repeats.map((r) => r.entry));
  const cases = triggerEvalCases(
    entries.filter((e) => !repeated.has(e)),
    skill,
  );
  // Every problem loading the written file would find, found now and named in the eval set.
  checkEvalSetCases(cases, y, skill, skills, config.decision);

  const out = inCwd(opts.out ?? join('cases', `${skill}.yaml`));
  if (existsSync(out) && statSync(out).isDirectory())
    throw new InputError({ file: shown(out), what: 'a folder where the case file belongs', todo: 'give --out the path of a file' });
  if (existsSync(out) && !opts.force)
    throw new InputError({ file: shown(out), what: 'already exists', todo: 'pass --force to overwrite it, or --out another path' });
  // One missing folder is made (cases/ in a new project); a deeper missing path is more likely a typo than a wish.
  const folder = dirname(out);
  const makeFolder = !existsSync(folder);
  if (makeFolder && !existsSync(dirname(folder)))
    throw new InputError({
      file: shown(out),
      what: `neither its folder ${shown(folder)} nor that folder's parent ${shown(dirname(folder))} exists`,
      todo: 'create the folder first, or pass --out a path in a folder that exists',
    });
  const schema = relative(dirname(out), join(realpathSync(SCHEMAS_DIR), schemaFileName('cases')));
  const yaml = caseFileText(cases, { schema, from: shown(input), skill });
  try {
    if (makeFolder) mkdirSync(folder);
    writeFileSync(out, yaml, { flag: opts.force ? 'w' : 'wx' });
  } catch (e) {
    if (makeFolder) rmSync(folder, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new InputError({
      file: shown(out),
      what: `cannot write it (${code})`,
      todo: 'check the folder and its permissions, or pass --out',
    });
  }

  for (const r of repeats) {
    const { line, col } = y.locate([r.entry.entry]);
    env.err.write(`warning: ${shown(input)}:${line}:${col}: ${repeatText(r, y)}: dropped, so the request counts once\n`);
  }
  const positives = cases.filter((c) => 'skill' in c.expect).length;
  const dropped = repeats.length ? `; ${plural(repeats.length, 'repeated entry', 'repeated entries')} dropped` : '';
  const lines = [
    `wrote ${shown(out)}: ${plural(cases.length, 'case')} for ${skill} from ${shown(input)} (${positives} should trigger, ${plural(cases.length - positives, 'near miss', 'near misses')}${dropped})`,
    ...(makeFolder ? [`note: made the folder ${shown(folder)}`] : []),
  ];
  // The cases load from the config's `cases`: say so when they will not, or when the eval set itself would load beside them.
  const patterns = (Array.isArray(config.cases) ? config.cases : [config.cases]).map((g) =>
    isAbsolute(g) ? g : join(escapePath(env.cwd), g),
  );
  const matched = new Set(globSync(patterns, { onlyFiles: true, expandDirectories: false, absolute: true }).map((f) => resolve(f)));
  if (!matched.has(out))
    lines.push(`note: the config's \`cases\` (${[config.cases].flat().join(', ')}) does not take ${shown(out)}: add it`);
  if (matched.has(input)) lines.push(`note: ${shown(input)} is a case file too: remove it, or the same cases load twice (duplicate ids)`);
  lines.push('', 'next: edit the cases (tags, `against:` traps, plan checks), then', '  skillprobe lint', `  skillprobe tune ${skill}`);
  env.out.write(lines.join('\n') + '\n');
  return EXIT.pass;
}
