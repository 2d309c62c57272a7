import { linkSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../util/process-group.js';
import { RunFolderError, StoreWriteError } from './store.js';

/**
 * A run folder has one writer. Written by hand: lock packages judge a holder by the age of a file they keep
 * touching, while this one names its holder (pid, host) and knows at once when that process is gone.
 */
export const LOCK_FILE = 'run.lock';
const TAKEOVER = `${LOCK_FILE}.takeover`;
/** A takeover is a few system calls: one older than this was left by a process killed in the middle of it. */
const TAKEOVER_STALE_MS = 10_000;
/** Looks before giving up on a folder whose lock keeps changing hands under this process. */
const ATTEMPTS = 100;
/** For a synchronous pause (Atomics.wait on a value nothing changes). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms: number) => void Atomics.wait(PAUSE, 0, 0, ms);
/** How often a lock that names no holder is read again before the refusal says "another process". */
const UNREADABLE_LOOKS = 5;

interface Holder {
  pid: number;
  host: string;
  since: string;
  command: string;
}

export interface RunLock {
  release(): void;
}

const held = new Set<string>();
/** What link() says on a filesystem that has no hard links (FAT, some network and FUSE mounts). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP']);

/** Removes a lock file; one that cannot be removed (a folder gone read-only) is left for the next taker to judge. */
function unlock(file: string): void {
  held.delete(file);
  try {
    unlinkSync(file);
  } catch {
    /* its holder is gone once this process is: the next one takes it over */
  }
}

// A forced stop exits at once: its lock goes with it (kill -9 leaves the file; its holder is then gone).
process.once('exit', () => held.forEach(unlock));

/**
 * Makes `file` holding `text`, or returns false if it exists. The text goes to a file of this process's own first and
 * is then linked into place, so another process never reads the lock between its creation and its text.
 */
function createExclusive(file: string, text: string): boolean {
  const draft = `${file}.${process.pid}.draft`;
  try {
    writeFileSync(draft, text);
    try {
      linkSync(draft, file);
    } catch (e) {
      if (!NO_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
      writeFileSync(file, text, { flag: 'wx' }); // a filesystem without hard links: created, then written
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // A folder gone read-only or removed: the store's fault to name, not a stack trace.
    throw new StoreWriteError(file, e as Error);
  } finally {
    rmSync(draft, { force: true });
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? (h as Holder) : undefined;
  } catch {
    return undefined;
  }
}

/** The file as it is now (which one, and when written), or undefined once it is gone. */
const fileState = (file: string) => {
  try {
    const s = statSync(file);
    return { ino: s.ino, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
};
const ageMs = (file: string) => Date.now() - (fileState(file)?.mtimeMs ?? Date.now());

/**
 * Whether the lock's holder is gone for sure: a process of this host that no longer runs (or this very pid, reused
 * after a restart, for a lock this process does not hold), or a file torn mid-write long ago.
 */
function holderGone(file: string, h: Holder | undefined): boolean {
  if (!h) return ageMs(file) > TAKEOVER_STALE_MS;
  if (h.host !== hostname()) return false;
  return h.pid === process.pid ? !held.has(file) : !processAlive(h.pid);
}

/**
 * Takes the run folder `dir` for this process (`command` says what for), or refuses at once, naming who holds it.
 * A lock whose holder is gone (killed outright) is taken over; two processes taking over one stale lock together
 * are kept apart by an exclusive takeover file of their own.
 */
export function lockRunFolder(dir: string, command: string): RunLock {
  const file = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command };
  const text = JSON.stringify(me) + '\n';
  let unreadable = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusive(file, text)) {
      held.add(file);
      return { release: () => unlock(file) };
    }
    const judged = fileState(file);
    const holder = readHolder(file);
    if (!holder && !fileState(file)) continue; // released between the two looks: try again
    const gone = holderGone(file, holder);
    // Unreadable but young: most likely replaced between the two looks; a moment later it names its holder.
    if (!holder && !gone && unreadable++ < UNREADABLE_LOOKS) {
      pause(20);
      continue;
    }
    if (!gone) {
      const who = holder
        ? `skillprobe process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since})`
        : 'another skillprobe process';
      const todo =
        holder && holder.host !== hostname()
          ? `wait for it to finish; if that process is gone, delete ${file}`
          : `wait for it to finish, or stop it (Ctrl-C), then try again; if process ${holder?.pid ?? '?'} is not skillprobe, delete ${file}`;
      throw new RunFolderError(dir, `the run folder is in use by ${who}`, todo);
    }
    const takeover = join(dir, TAKEOVER);
    if (ageMs(takeover) > TAKEOVER_STALE_MS) rmSync(takeover, { force: true });
    if (!createExclusive(takeover, text)) {
      pause(50); // someone else is taking it over: look again in a moment
      continue;
    }
    try {
      // Still the very file we judged stale (not one a faster taker made meanwhile): only then is it ours to remove.
      const now = fileState(file);
      if (judged && now && now.ino === judged.ino && now.mtimeMs === judged.mtimeMs) rmSync(file, { force: true });
    } finally {
      rmSync(takeover, { force: true });
    }
  }
  throw new RunFolderError(dir, 'the run folder is being taken over by another skillprobe process', 'try again in a moment');
}
