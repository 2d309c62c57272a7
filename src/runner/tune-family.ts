import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentAdapter, SkillListing } from '../agents/types.js';
import { InputError } from '../util/input-error.js';
import { descriptionProblems, rewriteBodyBytes, rewriteDescriptionBytes } from '../load/rewrite-description.js';
import { mutatedFamily } from '../mutate/mutants.js';
import type { MutableSkill, SkillEdit } from '../mutate/operator.js';
import { loadSkills, type Skill } from '../load/skills.js';
import { listingChars } from '../lint/listing.js';

export const skillFile = (s: Pick<Skill, 'path'>) => join(s.path, 'SKILL.md');

/**
 * The family with each skill's edit applied (a new description, a new body, or the skill left out), as real folders
 * under `into` (a trial copies skills from disk, and the run records their hashes): every other byte of every skill is
 * the original's. Written under a temporary name and renamed, so a kill leaves either the whole family or none; a
 * family already there (a resumed tune or mutate) is read back. Its problems name paths from `cwd`, the user's
 * working folder.
 */
export async function editedFamily(
  family: readonly Skill[],
  edits: Readonly<Record<string, SkillEdit>>,
  into: string,
  cwd: string,
): Promise<Skill[]> {
  if (!existsSync(into)) {
    const partial = `${into}.partial`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    for (const s of family) {
      const edit = edits[s.dir];
      if (edit === 'removed') continue;
      await cp(s.path, join(partial, s.dir), { recursive: true, verbatimSymlinks: true });
      const file = join(partial, s.dir, 'SKILL.md');
      let bytes: Buffer = await readFile(file);
      if (edit?.description !== undefined) bytes = rewriteDescriptionBytes(bytes, skillFile(s), edit.description);
      if (edit?.body !== undefined) bytes = rewriteBodyBytes(bytes, skillFile(s), edit.body);
      await writeFile(file, bytes);
    }
    await rename(partial, into);
  }
  return loadSkills(into, cwd);
}

/**
 * Why a candidate family may not be spent on, in words: the spec's rules as the loader checks them (name, 1,024
 * characters, frontmatter), and a listing past the CLI's budget (its skills would be listed by name only), counted
 * with the user's other skills the trials list beside it (`neighbours`).
 */
export async function familyProblem(
  family: readonly Skill[],
  edits: Readonly<Record<string, SkillEdit>>,
  into: string,
  cwd: string,
  adapter: AgentAdapter,
  neighbours: readonly Skill[] = [],
): Promise<{ skills: Skill[] } | { problem: string }> {
  let skills: Skill[];
  try {
    skills = await editedFamily(family, edits, into, cwd);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { problem: e.problems.map((p) => p.what).join('; ') };
  }
  const listing = listingProblem(skills, neighbours, adapter.skillListing);
  return listing === undefined ? { skills } : { problem: listing };
}

/** A skill as the listing shows it. */
type Listed = Pick<Skill, 'dir' | 'description'>;

/** A listing past the CLI's budget (its skills would be listed by name only), counted with the user's other skills. */
function listingProblem(skills: readonly Listed[], neighbours: readonly Listed[], listing: SkillListing): string | undefined {
  const chars = listingChars([...skills, ...neighbours], listing);
  const whose = neighbours.length ? `the family's listing with its ${neighbours.length} neighbours` : "the family's listing";
  return chars > listing.budgetChars
    ? `${whose} would take ${chars} of the ${listing.budgetChars} characters ${listing.cli} gives it`
    : undefined;
}

/**
 * Why the family `edits` would leave could not be shipped, found before anything is written: a description the Agent
 * Skills spec or a skill upload refuses (empty, past 1,024 characters, angle brackets; the loader lets a long one the
 * user wrote load, a description skillprobe writes must keep the limit), no skill left, or a listing past the CLI's
 * budget. A mutate checks each mutant with it as it plans, so one refused is neither priced nor run. Pure.
 */
export function editsProblem(
  family: readonly MutableSkill[],
  edits: Readonly<Record<string, SkillEdit>>,
  listing: SkillListing,
  neighbours: readonly Listed[] = [],
): string | undefined {
  const described = Object.entries(edits).flatMap(([dir, edit]) =>
    edit !== 'removed' && edit.description !== undefined ? descriptionProblems(edit.description).map((p) => `${dir}: ${p.what}`) : [],
  );
  if (described.length) return described.join('; ');
  const left = mutatedFamily(family, edits);
  if (!left.length) return 'no skill of the family would be left';
  return listingProblem(left, neighbours, listing);
}

/** A tune's candidate: the family with the tuned skill's description replaced, checked as `familyProblem` checks it. */
export const candidateProblem = (
  family: readonly Skill[],
  tuned: Skill,
  description: string,
  into: string,
  cwd: string,
  adapter: AgentAdapter,
  neighbours: readonly Skill[] = [],
) => familyProblem(family, { [tuned.dir]: { description } }, into, cwd, adapter, neighbours);
