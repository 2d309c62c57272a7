import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../util/input-error.js';
import { skillFolderHash, type Skill } from '../load/skills.js';
import { copySkill } from './sealed.js';

/** A skill whose folder no longer hashes as it did when the run loaded it: its new hash, or undefined when it is gone. */
export interface ChangedSkill {
  dir: string;
  hash: string | undefined;
}

/** The skills whose folders changed since they were loaded (`Skill.hash`), in the order given. Reads the folders. */
export function changedSkills(skills: readonly Skill[]): ChangedSkill[] {
  return skills.flatMap((s) => {
    const hash = skillFolderHash(s.path);
    return hash === s.hash ? [] : [{ dir: s.dir, hash }];
  });
}

/**
 * Copies the skills, as a trial gets them, into `into/<dir>` (made afresh) once at the start of a run, and returns them
 * pointing there: every trial is then copied from these bytes, so an edit of a SKILL.md while the run goes never
 * reaches a later trial. A skill that changed between loading and the copy is refused (nothing has run yet): the run
 * would otherwise record one hash and test other bytes.
 */
export async function snapshotSkills(skills: readonly Skill[], into: string): Promise<Skill[]> {
  await rm(into, { recursive: true, force: true });
  const copies = await Promise.all(
    skills.map(async (s) => {
      const path = join(into, s.dir);
      await copySkill(s, path);
      return { ...s, path };
    }),
  );
  const changed = changedSkills(skills);
  if (changed.length) {
    throw new InputError({
      file: skills.find((s) => s.dir === changed[0]!.dir)!.source.file,
      what: `changed while the run was starting (${changed.map((c) => c.dir).join(', ')})`,
      todo: 'run again once the skills are saved',
    });
  }
  return copies;
}
