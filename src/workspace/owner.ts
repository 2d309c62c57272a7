import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Who a sealed workspace belongs to, so what a harness killed outright leaves behind can be reaped (by its watchdog
 * at once, else by the next run's start) without ever touching the workspace of a run that is still alive.
 *
 * The owner's pid is part of the folder's name (`skillprobe-<pid>-XXXXXX`), which is created in one step with the
 * folder: a harness killed before it wrote the marker still leaves a folder whose owner is known. The marker
 * (`owner.json` beside `ws/` and `home/`) adds the host and, once the agent started, its process group.
 */

export const WORKSPACE_PREFIX = 'skillprobe-';
const MARKER = 'owner.json';
const NAME = /^skillprobe-(\d+)-[^/]+$/;

export interface WorkspaceOwner {
  pid: number;
  host: string;
  /** The agent's process group, once it started. */
  group?: number;
  /** Kept for the user (`--keep-workspaces`) once its trial was stored: never reaped. */
  kept?: true;
}

export interface OwnedWorkspace {
  root: string;
  owner: WorkspaceOwner;
}

/** The name prefix of the workspaces this process creates. */
export function workspacePrefix(pid = process.pid): string {
  return `${WORKSPACE_PREFIX}${pid}-`;
}

const self = (): WorkspaceOwner => ({ pid: process.pid, host: hostname() });

async function writeOwner(root: string): Promise<void> {
  await writeFile(join(root, MARKER), JSON.stringify(self()));
}

/**
 * A new folder in `base` this process owns (`skillprobe-<pid>-<label>XXXXXX`), its marker written at once: a harness
 * that dies leaves nothing its watchdog or the next run cannot attribute. Node's own mkdtemp: a temp-folder package
 * would read TMPDIR when imported, failing every command if it is missing.
 */
export async function createOwnedFolder(base: string, label = ''): Promise<string> {
  const root = await mkdtemp(join(base, `${workspacePrefix()}${label}`));
  try {
    await writeOwner(root);
  } catch (e) {
    await rm(root, { recursive: true, force: true });
    throw e;
  }
  return root;
}

/**
 * Records the agent's process group in the workspace its working folder `dir` belongs to. Synchronous, so the
 * record exists before anything else can happen to this process; a folder that is no workspace is left alone.
 */
export function recordAgentGroup(group: number, dir: string): void {
  const marker = join(dirname(dir), MARKER);
  try {
    if (existsSync(marker)) writeFileSync(marker, JSON.stringify({ ...self(), group }));
  } catch {
    /* unrecorded, the group is still killed by this process and its watchdog; only a later sweep misses it */
  }
}

/** Hands a workspace over to the user: from now on no sweep or watchdog removes it. */
export function markKept(root: string): void {
  try {
    writeFileSync(join(root, MARKER), JSON.stringify({ ...self(), kept: true }));
  } catch {
    /* the folder is gone already */
  }
}

/**
 * The marker; else, only where the caller knows the owner just died (`byName`: its watchdog), the owner the name
 * records, for a folder cut off before its marker was written. A folder without the marker is otherwise not
 * skillprobe's to touch: anything may be named like one.
 */
function readOwner(root: string, name: string, byName: boolean): WorkspaceOwner | undefined {
  try {
    const m = JSON.parse(readFileSync(join(root, MARKER), 'utf8')) as Partial<WorkspaceOwner>;
    if (typeof m.pid === 'number' && typeof m.host === 'string') return m as WorkspaceOwner;
  } catch {
    /* missing or torn */
  }
  const pid = byName ? NAME.exec(name)?.[1] : undefined;
  return pid === undefined ? undefined : { pid: Number(pid), host: hostname() };
}

/**
 * The workspaces in `base` whose name starts with `prefix` and whose owner is recorded (`byName`: or named, see
 * readOwner).
 */
export function listWorkspaces(base: string, prefix = WORKSPACE_PREFIX, byName = false): OwnedWorkspace[] {
  let entries;
  try {
    entries = readdirSync(base, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    if (!e.isDirectory() || !e.name.startsWith(prefix)) return [];
    const root = join(base, e.name);
    const owner = readOwner(root, e.name, byName);
    return owner ? [{ root, owner }] : [];
  });
}
