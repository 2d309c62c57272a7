import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  fsync,
  fsyncSync,
  open,
  openSync,
  rename,
  renameSync,
  stat,
  statSync,
  unlink,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';

/**
 * Writes a file whole or not at all: the text goes to a temp file beside it (`<file>.<hex>`), every byte of it is
 * written and synced, then the temp file is renamed over the file. Any failure removes the temp file, leaves the
 * previous file as it was, and is thrown.
 *
 * Why not write-file-atomic: it issues one write(2) and ignores how many bytes it took. On a nearly full disk a write
 * takes what fits (a 6 KB JSON file took 4,096 bytes) without an error, and the cut temp file replaced the good one.
 * Here a write that takes fewer bytes is continued, and one that takes none is a full disk (ENOSPC).
 */
export async function writeFileWhole(file: string, text: string | Uint8Array): Promise<void> {
  const previous = queues.get(file) ?? Promise.resolve();
  // Writes to one file land in the order they were asked for, as they would if each were synchronous.
  const mine = previous.then(() => writeNow(file, text));
  const settled = mine.catch(() => undefined);
  queues.set(file, settled);
  void settled.then(() => queues.get(file) === settled && queues.delete(file));
  return mine;
}

/** `writeFileWhole` for a process about to exit, which cannot wait for an asynchronous write. */
export function writeFileWholeSync(file: string, text: string | Uint8Array): void {
  const bytes = Buffer.from(text);
  const tmp = tempName(file);
  const mode = statSync(file, { throwIfNoEntry: false })?.mode;
  let fd: number | undefined = openSync(tmp, 'wx', mode);
  inFlight.add(tmp);
  try {
    writeAllSync(fd, bytes, tmp);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    removeQuietlySync(tmp);
    throw e;
  } finally {
    inFlight.delete(tmp);
  }
}

/** Writes every byte of `bytes` at the start of the open file `fd` (`path` names it in an error). */
export function writeAllSync(fd: number, bytes: Uint8Array, path: string): void {
  for (let at = 0; at < bytes.length;) at += progressed(writeSync(fd, bytes, at, bytes.length - at, at), path);
}

const queues = new Map<string, Promise<unknown>>();
/** Temp files being written: removed if the process exits mid-write. */
const inFlight = new Set<string>();
process.on('exit', () => inFlight.forEach(removeQuietlySync));

const tempName = (file: string) => `${file}.${randomBytes(6).toString('hex')}`;

/** A write that took no byte of a non-empty request: the device has no room, though write(2) said nothing. */
function progressed(bytesWritten: number, tmp: string): number {
  if (bytesWritten > 0) return bytesWritten;
  throw Object.assign(new Error(`ENOSPC: no space left on device, write '${tmp}'`), { code: 'ENOSPC', syscall: 'write', path: tmp });
}

function removeQuietlySync(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    /* already gone */
  }
}

const call = <T>(f: (done: (e: NodeJS.ErrnoException | null, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((e, value) => (e ? reject(e) : resolve(value))));

async function writeNow(file: string, text: string | Uint8Array): Promise<void> {
  const bytes = Buffer.from(text);
  const tmp = tempName(file);
  const mode = await call<number | undefined>((done) => stat(file, (e, s) => done(null, e ? undefined : s.mode)));
  let fd: number | undefined = await call<number>((done) => open(tmp, 'wx', mode, done));
  inFlight.add(tmp);
  try {
    for (let at = 0; at < bytes.length;) {
      const n = await call<number>((done) => write(fd!, bytes, at, bytes.length - at, at, done));
      at += progressed(n, tmp);
    }
    await call<void>((done) => fsync(fd!, (e) => done(e, undefined)));
    const closing = fd;
    fd = undefined;
    await call<void>((done) => close(closing, (e) => done(e, undefined)));
    await call<void>((done) => rename(tmp, file, (e) => done(e, undefined)));
  } catch (e) {
    if (fd !== undefined) await call<void>((done) => close(fd!, () => done(null, undefined)));
    await call<void>((done) => unlink(tmp, () => done(null, undefined)));
    throw e;
  } finally {
    inFlight.delete(tmp);
  }
}
