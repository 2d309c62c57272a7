import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RunStore } from '../src/run/store.js';
import type { TuneRecord } from '../src/run/tune-schema.js';
import { writeTuneRecord } from '../src/run/tune-store.js';
import { writeFileWhole, writeFileWholeSync } from '../src/util/atomic-file.js';

/**
 * A disk whose write(2) takes at most `perWrite` bytes a call and `room` bytes in all (a short write, no error), then
 * fails with ENOSPC, as a nearly full one does. Patched on the fs module for this process (write-file-atomic and our
 * code alike call it), undone after each test. Returns how many writes were asked for.
 */
const realWrite = fs.write;
const realWriteSync = fs.writeSync;
function patchDisk(o: { room?: number; perWrite?: number }): { calls: number } {
  let room = o.room ?? Infinity;
  const seen = { calls: 0 };
  const take = (length: number) => {
    seen.calls++;
    const n = Math.min(length, room, o.perWrite ?? Infinity);
    room -= n;
    return n;
  };
  const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  fs.writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    const n = take(length);
    if (n === 0) throw noSpace();
    return realWriteSync(fd, buffer, offset, n, position);
  }) as typeof fs.writeSync;
  fs.write = ((
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    done: (e: Error | null, n?: number) => void,
  ) => {
    const n = take(length);
    if (n === 0) return process.nextTick(() => done(noSpace()));
    realWrite(fd, buffer, offset, n, position, done);
  }) as typeof fs.write;
  syncBuiltinESMExports();
  return seen;
}
afterEach(() => {
  fs.write = realWrite;
  fs.writeSync = realWriteSync;
  syncBuiltinESMExports();
});

const root = mkdtempSync(join(tmpdir(), 'sp-atomic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => {
  const dir = join(root, String(++folders));
  fs.mkdirSync(dir);
  return dir;
};

/** A JSON value of about 6 KB, as run.json is. */
const big = { note: 'x'.repeat(6000) };
const previous = '{"previous":true}\n';
/** A run.json `RunStore.open` accepts. */
const manifestText = readFileSync(new URL('./fixtures/report/demo/run.json', import.meta.url), 'utf8');

describe('a write the disk cuts short fails loudly and leaves the previous file', () => {
  const writers: [string, string, (dir: string) => Promise<void> | void][] = [
    ['run.json (RunStore.writeManifest)', 'run.json', (dir) => RunStore.open(dir).then(({ store }) => store.writeManifest(big as never))],
    [
      'run.json on a forced stop (writeManifestSync)',
      'run.json',
      (dir) => RunStore.open(dir).then(({ store }) => store.writeManifestSync(big as never)),
    ],
    [
      'results.json (RunStore.writeResults)',
      'results.json',
      (dir) => RunStore.open(dir).then(({ store }) => store.writeResults(big as never)),
    ],
    ['tune.json (writeTuneRecord)', 'tune.json', (dir) => writeTuneRecord(dir, big as unknown as TuneRecord)],
    ['any file (writeFileWhole)', 'report.xml', (dir) => writeFileWhole(join(dir, 'report.xml'), JSON.stringify(big))],
    ['any file (writeFileWholeSync)', 'report.xml', (dir) => writeFileWholeSync(join(dir, 'report.xml'), JSON.stringify(big))],
  ];

  it.each(writers)('%s', async (_, name, writeIt) => {
    const dir = folder();
    writeFileSync(join(dir, 'run.json'), manifestText);
    if (name !== 'run.json') writeFileSync(join(dir, name), previous);
    const before = readFileSync(join(dir, name), 'utf8');
    await RunStore.open(dir); // reads happen before the disk fills
    patchDisk({ room: 4096 });
    await expect(Promise.resolve().then(() => writeIt(dir))).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(join(dir, name), 'utf8')).toBe(before);
    // No temp file left beside it.
    expect(readdirSync(dir).sort()).toEqual([...new Set(['run.json', name])].sort());
  });

  it('a meta.json cut short fails the trial and leaves no meta (the trial reads as not stored)', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'run.json'), manifestText);
    const { store } = await RunStore.open(dir);
    const ref = { caseId: 'c', arm: 'skill' as const, n: 1 };
    const files = await store.prepareTrial(ref);
    writeFileSync(files.partial, '{}\n');
    patchDisk({ room: 4096 });
    await expect(store.commitTrial(ref, big as never)).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(join(dir, 'trials', 'c', 'skill'))).toEqual(['1.jsonl']);
  });

  it('a write that fits is whole, in as many writes as the disk takes', async () => {
    const dir = folder();
    const file = join(dir, 'f.json');
    writeFileSync(file, previous);
    const text = JSON.stringify(big);
    const disk = patchDisk({ perWrite: 1000 });
    await writeFileWhole(file, text);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(disk.calls).toBe(Math.ceil(Buffer.byteLength(text) / 1000));
  });
});
