import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256 } from '../load/fixtures.js';

/** Every entry under a folder, by relative path: a file's content hash, a link's target, or a folder mark. */
export type TreeState = ReadonlyMap<string, string>;

/** The state of `dir`'s whole tree, read from disk: what a field trial's workspace is compared against after it. */
export async function treeState(dir: string): Promise<TreeState> {
  const state = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    // `path` before Node 20.12 named what `parentPath` names since.
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.slice(dir.length + 1);
    if (entry.isSymbolicLink()) state.set(rel, `link ${await readlink(path)}`);
    else if (entry.isDirectory()) state.set(rel, 'dir');
    else state.set(rel, sha256(await readFile(path)));
  }
  return state;
}

/** The paths added, removed or changed between two states of one tree, sorted. Pure. */
export function treeChanges(before: TreeState, after: TreeState): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}
