import { existsSync, mkdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { escapePath, globSync } from 'tinyglobby';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../load/config.js';
import { InputError } from '../util/input-error.js';
import { loadSkills, type Skill } from '../load/skills.js';
import { checkImportedCases, importedCaseFields } from '../load/cases.js';
import type { ImportedSet } from '../load/import/format.js';
import { IMPORTERS, readImport } from '../load/import/registry.js';
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

/** A YAML case file holding an imported file's cases (files relative to `folder`), with the schema header editors read. */
export function caseFileText(set: ImportedSet, opts: { schema: string; from: string; folder: string }): string {
  const { cases } = set;
  const positives = cases.filter((c) => 'skill' in c.expect).length;
  const shape = IMPORTERS.find((i) => i.name === set.format)!.shape;
  const lines = [
    `# yaml-language-server: $schema=${opts.schema}`,
    `# Imported by \`skillprobe import\` from ${opts.from.replace(/[\r\n]+/g, ' ')}, ${shape}:`,
    `# ${plural(positives, 'request')} that should trigger a skill, ${plural(cases.length - positives, 'near miss', 'near misses')} one must not take (\`not:\`, where a sibling may).`,
    ...set.uncarried.map((n) => `# Not carried: ${n.what.replace(/[\r\n]+/g, ' ')}.`),
    '# Edit freely: tags, `against:` traps, plan checks, `split:`.',
  ];
  for (const c of cases) {
    const { files } = importedCaseFields(c, opts.folder);
    const expect = c.expect;
    lines.push(
      `- id: ${c.id}`,
      `  prompt: ${yamlScalar(c.prompt)}`,
      'not' in expect
        ? `  expect: { not: ${expect.not} }`
        : expect.judge
          ? ['  expect:', `    skill: ${expect.skill}`, '    judge:', ...expect.judge.map((j) => `      - ${yamlScalar(j)}`)].join('\n')
          : `  expect: { skill: ${expect.skill} }`,
      ...(c.tags.length ? [`  tags: [${c.tags.map((t) => yamlScalar(t, true)).join(', ')}]`] : []),
      ...(files ? ['  files:', ...files.map((f) => `    - ${yamlScalar(f)}`)] : []),
      ...(c.history
        ? [
            '  history:',
            ...c.history.map((t) => ('user' in t ? `    - user: ${yamlScalar(t.user)}` : `    - assistant: ${yamlScalar(t.assistant)}`)),
          ]
        : []),
      ...(c.mcp
        ? [
            '  mcp:',
            ...Object.entries(c.mcp).map(
              ([name, s]) =>
                `    ${name}: { command: ${yamlScalar(s.command, true)}, args: [${s.args.map((a) => yamlScalar(a, true)).join(', ')}] }`,
            ),
          ]
        : []),
      '',
    );
  }
  return lines.join('\n');
}

/** Writes an eval file of another tool (any format of the import registry) as a YAML case file to edit; nothing is written on any mistake. */
export function importEvalSet(file: string, opts: ImportOptions, env: ImportEnv): number {
  const inCwd = (p: string) => resolve(env.cwd, p);
  const shown = (p: string) => relative(env.cwd, p) || p;
  const defaultConfig = inCwd(DEFAULT_CONFIG_FILE);
  const configFile = opts.config !== undefined ? inCwd(opts.config) : existsSync(defaultConfig) ? defaultConfig : undefined;
  const { config } = loadConfig(configFile, { skillsDir: opts.skills }, env.cwd);
  const skills = loadSkills(config.skillsDir, env.cwd);
  const input = inCwd(file);
  const shownInput = shown(input);
  let text: string;
  try {
    text = readTextFile(input, 'eval file', { utf8: 'strict' });
  } catch (e) {
    // Named as the user gave it, not by its absolute path.
    throw e instanceof InputError ? new InputError(e.problems.map((p) => ({ ...p, file: shownInput }))) : e;
  }
  const skill = opts.skill !== undefined ? namedSkill(opts.skill, skills, config.skillsDir) : undefined;
  // The skill the file's place names is the one mistake --skill mends: offered.
  const set: ImportedSet = readImport(text, {
    file: shownInput,
    path: input,
    skills,
    ...(skill !== undefined ? { skill } : {}),
    noSkillTodo: `pass --skill with one of ${skills.map((s) => s.dir).join(', ')}`,
  });
  const written = set.cases.map((c) => ('skill' in c.expect ? c.expect.skill : c.expect.not));
  const named = [...new Set(written)].join(', ');

  const out = inCwd(opts.out ?? join('cases', `${written[0]}.yaml`));
  // Every problem loading the written file would find, found now and named in the file imported.
  checkImportedCases(set, dirname(out), skills, config.decision);
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
  const yaml = caseFileText(set, { schema, from: shownInput, folder: dirname(out) });
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

  const warn = (at: ImportedSet['repeats'][number]['at'], what: string) => {
    const { line, col } = set.src.locate(at);
    env.err.write(`warning: ${shownInput}:${line}:${col}: ${what}\n`);
  };
  for (const r of set.repeats) warn(r.at, `${r.what}: dropped, so the request counts once`);
  for (const n of set.uncarried) warn(n.at, `${n.what}: not carried into the cases (noted in ${shown(out)})`);
  const { cases, repeats } = set;
  const positives = cases.filter((c) => 'skill' in c.expect).length;
  const dropped = repeats.length ? `; ${plural(repeats.length, 'repeated entry', 'repeated entries')} dropped` : '';
  const lines = [
    `wrote ${shown(out)}: ${plural(cases.length, 'case')} for ${named} from ${shownInput} (${positives} should trigger, ${plural(cases.length - positives, 'near miss', 'near misses')}${dropped})`,
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
  lines.push(
    '',
    'next: edit the cases (tags, `against:` traps, plan checks), then',
    '  skillprobe lint',
    `  skillprobe tune ${written[0]}`,
  );
  env.out.write(lines.join('\n') + '\n');
  return EXIT.pass;
}
