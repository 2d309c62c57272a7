import { existsSync, mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { scaffold, type ScaffoldPaths } from '../init/scaffold.js';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { DEFAULT_CONFIG_FILE } from '../load/config.js';
import { configSchema } from '../run/config-schema.js';
import { fromFolder } from '../util/paths.js';
import { InputError } from '../util/input-error.js';
import { loadSkills } from '../load/skills.js';
import { schemaFileName, SCHEMAS_DIR } from '../schema/schema-files.js';
import { DEFAULT_PROFILE_FILE } from '../sim/profile.js';

/** Where authors keep skills, in the order `init` looks: the default agent's own folder, every other agent's, then a plain `skills/`. */
const SKILL_FOLDERS = [...new Set([configSchema.parse({}).agent, ...AGENT_IDS].map((id) => adapterFor(id).skillsFolder)), 'skills'];
const CASES_FILE = 'cases/skillprobe.yaml';
/** The config names every case file, so the author can add files beside the scaffolded one. */
const CASES_GLOB = 'cases/*.yaml';

export interface InitEnv {
  out: { write(text: string): unknown };
  /** The user's working folder: a relative `dir` is taken from it, and loading problems name paths from it. */
  cwd: string;
}

/** A folder holding at least one `<skill>/SKILL.md`. */
const holdsSkills = (folder: string) =>
  existsSync(folder) && statSync(folder).isDirectory() && readdirSync(folder).some((d) => existsSync(join(folder, d, 'SKILL.md')));

function skillsFolderIn(dir: string): string {
  const found = SKILL_FOLDERS.find((f) => holdsSkills(join(dir, f)));
  if (!found) {
    throw new InputError({
      file: dir,
      what: `no skills here (looked for ${SKILL_FOLDERS.map((f) => `${f}/*/SKILL.md`).join(', ')})`,
      todo: 'run init in the folder that holds your skills, or pass --dir',
    });
  }
  return found;
}

/** Writes a config, a starter suite and a simulator profile for the skills in `dir`; never overwrites a file. */
export function initProject(dir: string, env: InitEnv): void {
  const at = fromFolder(env.cwd, dir);
  if (!existsSync(at) || !statSync(at).isDirectory())
    throw new InputError({
      file: dir,
      what: existsSync(at) ? 'a file, not a folder' : 'folder not found',
      todo: 'pass the project folder with --dir',
    });
  const root = realpathSync(at);
  const skillsDir = skillsFolderIn(root);
  const skills = loadSkills(join(root, skillsDir), env.cwd);
  const schemaFrom = (file: string, name: string) =>
    relative(dirname(join(root, file)), join(realpathSync(SCHEMAS_DIR), schemaFileName(name)));
  const paths: ScaffoldPaths = {
    skillsDir,
    cases: CASES_GLOB,
    schema: {
      config: schemaFrom(DEFAULT_CONFIG_FILE, 'config'),
      cases: schemaFrom(CASES_FILE, 'cases'),
      profile: schemaFrom(DEFAULT_PROFILE_FILE, 'profile'),
    },
  };
  const texts = scaffold(skills, paths);
  const files: [string, string][] = [
    [DEFAULT_CONFIG_FILE, texts.config],
    [CASES_FILE, texts.cases],
    [DEFAULT_PROFILE_FILE, texts.profile],
  ];
  const lines = [`found ${skills.length} skill${skills.length === 1 ? '' : 's'} in ${skillsDir}: ${skills.map((s) => s.dir).join(', ')}`];
  for (const [file, text] of files) {
    const path = join(root, file);
    if (existsSync(path)) {
      lines.push(`kept existing ${file} (init never overwrites a file)`);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { flag: 'wx' });
    lines.push(`wrote ${file}`);
  }
  lines.push(
    '',
    `next: replace the TODO prompts in ${CASES_FILE}, then`,
    '  skillprobe lint',
    `  skillprobe run --sim ${DEFAULT_PROFILE_FILE}   # the suite's wiring, against the model SIMULATOR`,
  );
  env.out.write(lines.join('\n') + '\n');
}
