import { dirname } from 'node:path';
import type { Config } from '../run/config-schema.js';
import type { ProblemList } from '../util/input-error.js';
import { fromFolder, unwritableFolder, wrongEntry } from '../util/paths.js';
import { loadCases, type CaseSuite, type SuiteMcp } from './cases.js';
import { loadMcpServers } from './mcp.js';
import { readFixtureFiles, readInstructions, type FixtureSeal, type SuiteFixtures } from './fixtures.js';
import type { LoadedConfig } from './config.js';
import { skillFolders } from './family.js';
import { loadNeighbours } from './neighbours.js';
import { loadSkills, type Skill } from './skills.js';
import type { FamilyMember } from './import/format.js';

/**
 * The checkers of a suite's own files, one per input, each adding what is wrong with it to `problems` and returning
 * what it could load: the runner's checkers (agent, credentials, judge) and `loadSuite` compose them, so every problem
 * is found in one pass and one mistake never hides the next.
 */

/** Where the value of `key` in use was set (its flag, or its line in the config file), else the key itself. */
export const placeOf = (loaded: LoadedConfig, key: keyof Config) => loaded.where([key]) ?? { file: key };

/** The family's skills as far as they load; `family`, the names the cases are checked against, even when a SKILL.md does not. */
export function checkSkills(loaded: LoadedConfig, problems: ProblemList): { skills?: Skill[]; family: FamilyMember[] } {
  const { config, fellBack } = loaded;
  // A skills folder the user named is checked here, to name their flag or line; the default is loadSkills' to report.
  const notFolder = loaded.where(['skillsDir']) && wrongEntry(config.skillsDir, 'folder', loaded.cwd);
  if (notFolder)
    problems.add({ ...placeOf(loaded, 'skillsDir'), what: notFolder, todo: 'point it at the folder that holds <skill>/SKILL.md' });
  const readable = !notFolder && !fellBack.has('skillsDir');
  const skills = readable ? problems.collect(() => loadSkills(config.skillsDir, loaded.cwd)) : undefined;
  // A SKILL.md that does not load still names its skill: the cases are checked against the folder names.
  return { ...(skills ? { skills } : {}), family: skills ?? (readable ? skillFolders(fromFolder(loaded.cwd, config.skillsDir)) : []) };
}

/**
 * The neighbours the config names (`neighbours:`), each a valid skill named apart from the family; none when it names
 * no folder. A folder that is not there is named at the user's line.
 */
export function checkNeighbours(loaded: LoadedConfig, family: readonly FamilyMember[], problems: ProblemList): Skill[] {
  const { config, fellBack } = loaded;
  if (config.neighbours === undefined || fellBack.has('neighbours')) return [];
  const notFolder = wrongEntry(config.neighbours, 'folder', loaded.cwd);
  if (notFolder) {
    problems.add({
      ...placeOf(loaded, 'neighbours'),
      what: `neighbours: ${notFolder}`,
      todo: 'point it at the folder that holds your other skills (<skill>/SKILL.md each), or remove `neighbours`',
    });
    return [];
  }
  return problems.collect(() => loadNeighbours(config.neighbours!, family, loaded.cwd)) ?? [];
}

/**
 * The suite's own fixtures (`workspace`, `instructions`, relative to the config file), and where a case's may come
 * from: inside the project, the working folder or the config file's; none may break the seal (`sealProblem`).
 */
export function checkSuiteFixtures(loaded: LoadedConfig, seal: FixtureSeal, problems: ProblemList): SuiteFixtures {
  const { config } = loaded;
  const base = fromFolder(loaded.cwd, loaded.file === undefined ? '.' : dirname(loaded.file));
  const roots = [loaded.cwd, base];
  const place = (key: 'workspace' | 'instructions') => ({
    base,
    roots,
    cwd: loaded.cwd,
    seal,
    locate: (entry?: string) => loaded.where(entry === undefined ? [key] : [key, entry]) ?? placeOf(loaded, key),
  });
  const instructions =
    config.instructions === undefined ? undefined : readInstructions(config.instructions, place('instructions'), problems);
  return {
    suite: {
      files: config.workspace === undefined ? [] : readFixtureFiles(config.workspace, place('workspace'), problems),
      ...(instructions ? { instructions } : {}),
    },
    roots,
    cwd: loaded.cwd,
    seal,
  };
}

/**
 * Every case file, checked against the family (nothing to check against without one), each case's fixtures read and
 * its own neighbours loaded apart from the suite's `neighbours`.
 */
export function checkCases(
  loaded: LoadedConfig,
  family: readonly FamilyMember[],
  fixtures: SuiteFixtures,
  problems: ProblemList,
  neighbours: readonly Skill[] = [],
  mcp?: SuiteMcp,
): CaseSuite | undefined {
  const { config, fellBack } = loaded;
  if (!family.length || fellBack.has('cases')) return undefined;
  return problems.collect(() => loadCases(config.cases, family, config.decision, fixtures, neighbours, loaded.cwd, config.maxTurns, mcp));
}

/** With `run`: the transcripts folder each run creates its folder in must be writable. True when it is not. */
export function checkTranscriptsFolder(loaded: LoadedConfig, run: boolean, problems: ProblemList): boolean {
  const { config, fellBack } = loaded;
  const unwritable =
    run && !fellBack.has('transcriptsDir') ? unwritableFolder(config.transcriptsDir, { mustExist: false, cwd: loaded.cwd }) : undefined;
  if (unwritable)
    problems.add({
      ...placeOf(loaded, 'transcriptsDir'),
      what: unwritable,
      todo: 'point it at a folder you can write to (each run creates its folder there)',
    });
  return unwritable !== undefined;
}

/**
 * The config's MCP servers (`mcp:`, paths relative to the config file), each checked; a real server's bare command is
 * looked up on `searchPath` (the caller's PATH).
 */
export function checkMcp(loaded: LoadedConfig, searchPath: string | undefined, problems: ProblemList): SuiteMcp {
  const { config } = loaded;
  if (config.mcp === undefined) return { servers: [], searchPath };
  const base = fromFolder(loaded.cwd, loaded.file === undefined ? '.' : dirname(loaded.file));
  const locate = (at: readonly (string | number)[]) => loaded.where(['mcp', ...at]) ?? placeOf(loaded, 'mcp');
  return { servers: loadMcpServers(config.mcp, { base, cwd: loaded.cwd, searchPath, locate }, problems), searchPath };
}
