import { join } from 'node:path';
import { valueHash } from '../util/json.js';
import { ProblemList, type InputProblem } from '../util/input-error.js';
import type { FamilyMember } from '../run/schema.js';
import { wrongEntry } from '../util/paths.js';
import { familyHash, loadSkills, type Skill, type SkillsFolderWording } from './skills.js';

/**
 * The user's other skills (`neighbours:`): installed beside the family in every trial of both arms, offered to the
 * model, never under test. Each is loaded and checked as a family skill is.
 */

const NEIGHBOURS_FOLDER: SkillsFolderWording = {
  folder: 'neighbours folder',
  setting: 'set `neighbours` in skillprobe.config.yaml to the folder of your other skills',
};

const CASE_NEIGHBOURS_FOLDER: SkillsFolderWording = {
  folder: "case's neighbours folder",
  setting: "fix the case's `neighbours` (a folder relative to its case file)",
};

/** The names already taken: the family's; loading a case's own, the suite's neighbours and other cases' folders' too. */
interface Taken {
  family: readonly FamilyMember[];
  suite?: readonly Skill[];
  others?: readonly Skill[];
}

/**
 * Loads every `<dir>/<skill>/SKILL.md` of a neighbours folder; all problems together, each at its file and line. A
 * neighbour may not take a family skill's name, nor (a case's own) a suite neighbour's: the CLI would list two skills by
 * one name, and a firing of it could not be told apart from the other's.
 */
function loadNeighbourFolder(dir: string, taken: Taken, wording: SkillsFolderWording, cwd?: string): Skill[] {
  const neighbours = loadSkills(dir, cwd, wording);
  const problems = new ProblemList();
  for (const n of neighbours) {
    const at = { file: n.source.file, ...n.source.at.name };
    const twin = taken.family.find((f) => f.dir === n.dir || f.name === n.name);
    if (twin) {
      problems.add({
        ...at,
        what: `neighbour "${n.name}" has the name of the family's skill ${twin.dir}, and its firings could not be told from the family's`,
        todo: 'rename the neighbour (its folder and `name`), or leave it out: a skill under test is never its own neighbour',
      });
      continue;
    }
    const suiteTwin = taken.suite?.find((f) => f.dir === n.dir || f.name === n.name);
    if (suiteTwin)
      problems.add({
        ...at,
        what: `neighbour "${n.name}" has the name of the suite's neighbour ${suiteTwin.dir} (config \`neighbours\`), which every case's trials list already`,
        todo: "rename one of them, or leave it out of the case's folder: a case's neighbours add to the suite's",
      });
    // One name, one skill across the suite: its `neighbour:<dir>` column and the run folder's copy name one skill.
    const otherTwin = !suiteTwin && taken.others?.find((f) => f.dir === n.dir || f.name === n.name);
    if (otherTwin)
      problems.add({
        ...at,
        what: `neighbour "${n.name}" has the name of ${otherTwin.source.file}, another case's neighbour, and one name must mean one skill across the suite`,
        todo: 'name the two skills apart, or have both cases name one folder',
      });
  }
  problems.throwIfAny();
  return neighbours;
}

/** The suite's neighbours (config `neighbours:`), each a valid skill named apart from the family. */
export const loadNeighbours = (dir: string, family: readonly FamilyMember[], cwd?: string): Skill[] =>
  loadNeighbourFolder(dir, { family }, NEIGHBOURS_FOLDER, cwd);

/**
 * A case's own neighbours (`neighbours:` in a case, a folder relative to its case file): listed in that case's trials
 * beside the suite's, never instead of them, since a user's other skills do not leave when one prompt brings more.
 * Each folder is loaded once however many cases name it (`loaded`, by resolved path); its problems are added to
 * `problems` once. `base`: the case file's folder; `declared`: the case's `neighbours` line, and the folder as written
 * there.
 */
export function caseNeighbours(
  base: string,
  declared: Pick<InputProblem, 'file' | 'line' | 'col'> & { given: string },
  taken: Required<Omit<Taken, 'others'>>,
  loaded: Map<string, Skill[] | undefined>,
  problems: ProblemList,
  cwd?: string,
): Skill[] | undefined {
  const { given, ...at } = declared;
  const path = join(base, given);
  if (loaded.has(path)) return loaded.get(path);
  const notFolder = wrongEntry(given, 'folder', base);
  const skills = notFolder
    ? void problems.add({
        ...at,
        what: `neighbours: ${notFolder}`,
        todo: "point it at a folder of skills (<skill>/SKILL.md each), relative to the case file, or remove the case's `neighbours`",
      })
    : problems.collect(() =>
        loadNeighbourFolder(path, { ...taken, others: [...loaded.values()].flatMap((k) => k ?? []) }, CASE_NEIGHBOURS_FOLDER, cwd),
      );
  loaded.set(path, skills);
  return skills;
}

/** Every case's own neighbours, each skill once (a name is one skill across the suite; cases may share a folder). */
export function caseNeighbourSkills(cases: readonly { neighbourSkills?: Skill[] }[]): Skill[] {
  return [...new Map(cases.flatMap((c) => c.neighbourSkills ?? []).map((k) => [k.dir, k])).values()];
}

/**
 * The hash of the suite's cases' own neighbours: each case that has any (by id) with its skills' hash; undefined for a
 * suite whose cases have none. Over the whole suite, as the fixtures' (a shard or a selection keeps it).
 */
export function caseNeighboursHash(cases: readonly { id: string; neighbourSkills?: Skill[] }[]): string | undefined {
  const own = cases.filter((c) => c.neighbourSkills?.length).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return own.length ? valueHash(own.map((c) => [c.id, familyHash(c.neighbourSkills!)])) : undefined;
}
