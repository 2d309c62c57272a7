import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { sha256 as contentHash, type CaseFixtures, type FixtureContent, type Fixtures } from '../load/fixtures.js';
import { InputError } from '../util/input-error.js';
import { isWithin } from '../util/paths.js';

const bytesOf = (c: FixtureContent) => ('file' in c.from ? readFile(c.from.file) : Promise.resolve(Buffer.from(c.from.text, 'utf8')));

const contentsOf = (f: Fixtures): FixtureContent[] => [...f.files, ...(f.instructions ? [f.instructions] : [])];

/**
 * Copies every distinct fixture's bytes into `into/<sha256>` once, at the start of a run, and returns the cases
 * pointing there: every trial is then copied from these bytes, so an edit while the run goes never reaches a trial.
 * A file whose bytes no longer hash as they did when the suite loaded is refused (nothing has run yet): the run would
 * otherwise record one hash and hand the trials other bytes. Without fixtures, nothing is made.
 */
export async function snapshotFixtures<C extends { fixtures?: CaseFixtures }>(cases: readonly C[], into: string): Promise<C[]> {
  await rm(into, { recursive: true, force: true });
  const distinct = new Map(cases.flatMap((c) => (c.fixtures ? contentsOf(c.fixtures) : [])).map((f) => [f.sha256, f]));
  if (!distinct.size) return [...cases];
  await mkdir(into, { recursive: true });
  for (const [sha256, f] of distinct) {
    const bytes = await bytesOf(f).catch(() => undefined);
    if (bytes === undefined || contentHash(bytes) !== sha256) {
      const which = 'file' in f.from ? f.from.file : 'an inline fixture';
      throw new InputError({
        ...f.declared,
        what: `${which} changed while the run was starting`,
        todo: 'run again once the files are saved',
      });
    }
    await writeFile(join(into, sha256), bytes);
  }
  const kept = <T extends FixtureContent>(f: T): T => ({ ...f, from: { file: join(into, f.sha256) } });
  return cases.map((c) =>
    c.fixtures
      ? {
          ...c,
          fixtures: {
            ...c.fixtures,
            files: c.fixtures.files.map(kept),
            ...(c.fixtures.instructions ? { instructions: kept(c.fixtures.instructions) } : {}),
          },
        }
      : c,
  );
}

/**
 * Writes a case's fixtures into a trial's workspace `dir` before the CLI starts, byte for byte, a script kept
 * executable: its files at their paths, its instruction file at the root under the CLI's own name.
 */
export async function furnishWorkspace(dir: string, fixtures: Fixtures | undefined, instructionFile: string): Promise<void> {
  if (!fixtures) return;
  const entries = [...fixtures.files, ...(fixtures.instructions ? [{ ...fixtures.instructions, path: instructionFile }] : [])];
  for (const f of entries) {
    const to = resolve(dir, f.path);
    // Loading refused such paths; a workspace is sealed whatever reaches this far.
    if (to === dir || !isWithin(to, dir)) throw new Error(`the fixture ${f.path} would land outside the trial's workspace ${dir}`);
    await mkdir(dirname(to), { recursive: true });
    if ('file' in f.from) await copyFile(f.from.file, to);
    else await writeFile(to, f.from.text);
    await chmod(to, f.executable ? 0o755 : 0o644);
  }
}
