import { existsSync } from 'node:fs';
import { cp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentAdapter } from '../agents/types.js';
import { InputError } from '../util/input-error.js';
import { rewriteDescriptionBytes } from '../load/rewrite-description.js';
import { loadSkills, type Skill } from '../load/skills.js';
import { listingChars } from '../lint/listing.js';

export const skillFile = (s: Pick<Skill, 'path'>) => join(s.path, 'SKILL.md');

/**
 * The family with one skill's description replaced, as real folders under `into` (a trial copies skills from disk, and
 * the run records their hashes): every other byte of every skill is the original's. Written under a temporary name and
 * renamed, so a kill leaves either the whole family or none; a family already there (a resumed tune) is read back.
 * Its problems name paths from `cwd`, the user's working folder.
 */
export async function candidateFamily(
  family: readonly Skill[],
  tuned: Skill,
  description: string,
  into: string,
  cwd: string,
): Promise<Skill[]> {
  if (!existsSync(into)) {
    const partial = `${into}.partial`;
    await rm(partial, { recursive: true, force: true });
    for (const s of family) await cp(s.path, join(partial, s.dir), { recursive: true, verbatimSymlinks: true });
    const file = join(partial, tuned.dir, 'SKILL.md');
    await writeFile(file, rewriteDescriptionBytes(await readFile(file), skillFile(tuned), description));
    await rename(partial, into);
  }
  return loadSkills(into, cwd);
}

/**
 * Why a candidate family may not be spent on, in words: the spec's rules as the loader checks them (name, 1,024
 * characters, frontmatter), and a listing past the CLI's budget (its skills would be listed by name only), counted
 * with the user's other skills the trials list beside it (`neighbours`).
 */
export async function candidateProblem(
  family: readonly Skill[],
  tuned: Skill,
  description: string,
  into: string,
  cwd: string,
  adapter: AgentAdapter,
  neighbours: readonly Skill[] = [],
): Promise<{ skills: Skill[] } | { problem: string }> {
  let skills: Skill[];
  try {
    skills = await candidateFamily(family, tuned, description, into, cwd);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { problem: e.problems.map((p) => p.what).join('; ') };
  }
  const chars = listingChars([...skills, ...neighbours], adapter.skillListing);
  const whose = neighbours.length ? `the family's listing with its ${neighbours.length} neighbours` : "the family's listing";
  if (chars > adapter.skillListing.budgetChars)
    return {
      problem: `${whose} would take ${chars} of the ${adapter.skillListing.budgetChars} characters ${adapter.skillListing.cli} gives it`,
    };
  return { skills };
}
