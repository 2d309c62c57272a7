import { ProblemList } from '../util/input-error.js';
import type { FamilyMember } from '../run/schema.js';
import { loadSkills, type Skill, type SkillsFolderWording } from './skills.js';

/**
 * The user's other skills (`neighbours:`): installed beside the family in every trial of both arms, offered to the
 * model, never under test. Each is loaded and checked as a family skill is.
 */

const NEIGHBOURS_FOLDER: SkillsFolderWording = {
  folder: 'neighbours folder',
  setting: 'set `neighbours` in skillprobe.config.yaml to the folder of your other skills',
};

/**
 * Loads every `<dir>/<skill>/SKILL.md` of the neighbours folder; all problems together, each at its file and line. A
 * neighbour may not take a family skill's name: the CLI would list two skills by one name, and a firing of it could
 * not be told apart from the family's.
 */
export function loadNeighbours(dir: string, family: readonly FamilyMember[], cwd?: string): Skill[] {
  const neighbours = loadSkills(dir, cwd, NEIGHBOURS_FOLDER);
  const problems = new ProblemList();
  for (const n of neighbours) {
    const twin = family.find((f) => f.dir === n.dir || f.name === n.name);
    if (!twin) continue;
    problems.add({
      file: n.source.file,
      ...n.source.at.name,
      what: `neighbour "${n.name}" has the name of the family's skill ${twin.dir}, and its firings could not be told from the family's`,
      todo: 'rename the neighbour (its folder and `name`), or leave it out: a skill under test is never its own neighbour',
    });
  }
  problems.throwIfAny();
  return neighbours;
}
