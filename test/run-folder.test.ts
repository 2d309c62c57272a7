import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_FORMAT_VERSION, type Results } from '../src/run/schema.js';
import { LOCK_FILE, lockRunFolder } from '../src/run/lock.js';
import { effectiveStatus, readResultsSync } from '../src/run/store.js';
import { explainOutcome } from '../src/report/explain.js';
import { cleanup, runInProcess } from './helpers.js';
import { fakeRun, handMadeManifest } from './run-fixtures.js';

/** Every file under `dir` with its size and mtime: proof that a command wrote nothing. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        out.push(`${relative(dir, p)} ${s.size} ${s.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

const json = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
const edit = (dir: string, name: string, f: (j: Record<string, unknown>) => void) => {
  const j = json(dir, name);
  f(j);
  writeFileSync(join(dir, name), JSON.stringify(j));
};
const trial = (dir: string, rel: string) => join(dir, 'trials', rel);

interface Damage {
  name: string;
  damage: (dir: string) => void;
  /** Exit code of `grade` and `report`. */
  exit: number;
  /** What stderr must say (a one-line message naming the file). */
  says?: RegExp;
  /** Trials still graded (the intact ones): 6 in the undamaged run. */
  graded?: number;
  /** Damaged trial files listed. */
  damaged?: number;
}

const UNREADABLE_MANIFEST: Damage[] = [
  {
    name: 'run.json cut off mid-write',
    damage: (d) => writeFileSync(join(d, 'run.json'), readFileSync(join(d, 'run.json'), 'utf8').slice(0, 200)),
    exit: 2,
    says: /run\.json: run\.json not valid JSON/,
  },
  { name: 'run.json empty', damage: (d) => writeFileSync(join(d, 'run.json'), ''), exit: 2, says: /run\.json: run\.json empty/ },
  {
    name: 'run.json `{}`',
    damage: (d) => writeFileSync(join(d, 'run.json'), '{}'),
    exit: 2,
    says: /run\.json: run\.json does not match the run-folder format/,
  },
  {
    name: 'run.json a JSON array',
    damage: (d) => writeFileSync(join(d, 'run.json'), '[]'),
    exit: 2,
    says: /does not match the run-folder format/,
  },
  {
    name: 'run.json `null`',
    damage: (d) => writeFileSync(join(d, 'run.json'), 'null'),
    exit: 2,
    says: /does not match the run-folder format/,
  },
  {
    name: 'a decision mode the code does not know',
    damage: (d) => edit(d, 'run.json', (j) => void ((j.config as { decision: { mode: string } }).decision.mode = 'bayes')),
    exit: 2,
    says: /at config\.decision\.mode: Invalid enum value/,
  },
  {
    name: 'a stored design with a stage missing',
    damage: (d) =>
      edit(
        d,
        'run.json',
        (j) =>
          void ((j.cases as { defs: Record<string, unknown>[] }).defs[0]!.design = {
            kind: 'optimal',
            maxTrials: 3,
            acceptFrom: [1, 2, 3],
            rejectUpTo: [-1, -1, -1],
          }),
      ),
    exit: 2,
    says: /design: the boundaries must list 4 stages/,
  },
  {
    name: 'a stored design that would PASS and FAIL the same outcome',
    damage: (d) =>
      edit(
        d,
        'run.json',
        (j) =>
          void ((j.cases as { defs: Record<string, unknown>[] }).defs[0]!.design = {
            kind: 'optimal',
            maxTrials: 2,
            acceptFrom: [1, 1, 1],
            rejectUpTo: [-1, -1, 1],
          }),
      ),
    exit: 2,
    says: /design: stage 2 would both PASS and FAIL/,
  },
  {
    name: 'a run status the code does not know',
    damage: (d) => edit(d, 'run.json', (j) => void (j.status = 'paused')),
    exit: 2,
    says: /at status:/,
  },
  {
    name: 'written by a newer format',
    damage: (d) => edit(d, 'run.json', (j) => void (j.version = RUN_FORMAT_VERSION + 1)),
    exit: 2,
    says: /newer than this skillprobe reads/,
  },
  {
    name: 'run.json a folder',
    damage: (d) => (rmSync(join(d, 'run.json')), mkdirSync(join(d, 'run.json'))),
    exit: 2,
    says: /run\.json is a folder/,
  },
  { name: 'run.json missing', damage: (d) => rmSync(join(d, 'run.json')), exit: 2, says: /not a run folder \(no run\.json\)/ },
  {
    name: 'an unknown agent in run.json',
    damage: (d) => edit(d, 'run.json', (j) => void ((j.agent as { id: string }).id = 'robot')),
    exit: 2,
    says: /run\.json: .*robot/,
  },
];

// INCONCLUSIVE everywhere (exit 3) when intact; missing data makes it at least ERROR (4).
const DAMAGED_TRIALS: Damage[] = [
  {
    name: 'a meta.json missing',
    damage: (d) => rmSync(trial(d, 'pos/skill/2.meta.json')),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /pos\/skill\/2\.jsonl: transcript without its meta\.json/,
  },
  {
    name: 'a meta.json corrupt',
    damage: (d) => writeFileSync(trial(d, 'pos/skill/2.meta.json'), '{"exitCode": 0, "sig'),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /2\.meta\.json: not valid JSON/,
  },
  {
    name: 'a meta.json empty',
    damage: (d) => writeFileSync(trial(d, 'pos/skill/2.meta.json'), ''),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /2\.meta\.json: empty/,
  },
  {
    name: 'a meta.json of the wrong shape',
    damage: (d) => writeFileSync(trial(d, 'neg/skill/1.meta.json'), '{"exitCode": "zero"}'),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /1\.meta\.json: does not match the run-folder format/,
  },
  {
    name: 'a transcript missing',
    damage: (d) => rmSync(trial(d, 'neg/skill/2.jsonl')),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /2\.meta\.json: meta\.json without its transcript/,
  },
  {
    name: 'a transcript that is a folder',
    damage: (d) => (rmSync(trial(d, 'neg/skill/2.jsonl')), mkdirSync(trial(d, 'neg/skill/2.jsonl'))),
    exit: 4,
    graded: 5,
    damaged: 1,
    says: /2\.jsonl: a folder where a trial file belongs/,
  },
  {
    name: 'a stray file under trials/',
    damage: (d) => writeFileSync(trial(d, 'notes.txt'), 'hi'),
    exit: 4,
    graded: 6,
    damaged: 1,
    says: /trials\/notes\.txt: stray file/,
  },
  {
    name: 'a stray folder in an arm folder',
    damage: (d) => mkdirSync(trial(d, 'pos/skill/old')),
    exit: 4,
    graded: 6,
    damaged: 1,
    says: /pos\/skill\/old: stray entry/,
  },
  {
    name: 'an arm folder the run does not know',
    damage: (d) => mkdirSync(trial(d, 'pos/control')),
    exit: 4,
    graded: 6,
    damaged: 1,
    says: /pos\/control: stray entry where an arm folder/,
  },
  {
    name: 'a case folder run.json does not list',
    damage: (d) => (
      mkdirSync(trial(d, 'ghost/skill'), { recursive: true }),
      writeFileSync(trial(d, 'ghost/skill/1.jsonl'), '{}\n'),
      writeFileSync(trial(d, 'ghost/skill/1.meta.json'), readFileSync(trial(d, 'pos/skill/1.meta.json')))
    ),
    exit: 4,
    graded: 6,
    damaged: 1,
    says: /case "ghost", which run\.json does not list/,
  },
  {
    name: 'run.json edited to name another agent than the one that wrote the trials',
    damage: (d) => {
      for (const f of readdirSync(join(d, 'trials'), { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.meta.json')))
        edit(join(d, 'trials'), f, (j) => void (j.agent = 'claude-code'));
      edit(d, 'run.json', (j) => void ((j.agent as { id: string }).id = 'codex'));
    },
    exit: 4,
    graded: 0,
    damaged: 6,
    says: /1\.meta\.json: written by the claude-code agent, but run\.json names codex: not read with another CLI's parser/,
  },
  {
    name: 'two damaged trials at once',
    damage: (d) => (rmSync(trial(d, 'pos/skill/1.meta.json')), rmSync(trial(d, 'neg/skill/1.jsonl'))),
    exit: 4,
    graded: 4,
    damaged: 2,
    says: /2 damaged trial files left out/,
  },
];

// Intact enough to grade in full: no damaged trials, the verdicts' exit code.
const TOLERATED: Damage[] = [
  {
    name: 'a transcript cut mid-line',
    damage: (d) => writeFileSync(trial(d, 'pos/skill/3.jsonl'), readFileSync(trial(d, 'pos/skill/3.jsonl'), 'utf8').slice(0, -40)),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  { name: 'an empty transcript', damage: (d) => writeFileSync(trial(d, 'pos/skill/3.jsonl'), ''), exit: 3, graded: 6, damaged: 0 },
  {
    name: 'a transcript of binary junk',
    damage: (d) => writeFileSync(trial(d, 'pos/skill/3.jsonl'), Buffer.from([0, 255, 254, 10, 123, 10])),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  {
    name: 'an unfinished trial (.part) left by a kill',
    damage: (d) => writeFileSync(trial(d, 'pos/skill/4.jsonl.part'), '{"type":"system"'),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  {
    name: "an atomic write's temp file left by a kill",
    damage: (d) => writeFileSync(trial(d, 'pos/skill/4.meta.json.3021551873'), '{'),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  {
    name: 'an earlier attempt beside a trial',
    damage: (d) => (writeFileSync(trial(d, 'neg/skill/3.a1.jsonl'), ''), writeFileSync(trial(d, 'neg/skill/3.a1.meta.json'), '{}')),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  {
    name: 'run.json of format 0 (no version, no owner)',
    damage: (d) => edit(d, 'run.json', (j) => (delete j.version, delete j.owner)),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
  {
    name: 'results.json cut off',
    damage: (d) => writeFileSync(join(d, 'results.json'), '{"runId": "r1", "outc'),
    exit: 3,
    graded: 6,
    damaged: 0,
    says: /no current results\.json .*not valid JSON/,
  },
  {
    name: 'results.json `{}`',
    damage: (d) => writeFileSync(join(d, 'results.json'), '{}'),
    exit: 3,
    graded: 6,
    damaged: 0,
    says: /no current results\.json .*does not match/,
  },
  {
    name: 'results.json empty',
    damage: (d) => writeFileSync(join(d, 'results.json'), ''),
    exit: 3,
    graded: 6,
    damaged: 0,
    says: /no current results\.json .*empty/,
  },
  {
    name: 'results.json of a newer format',
    damage: (d) => writeFileSync(join(d, 'results.json'), JSON.stringify({ version: RUN_FORMAT_VERSION + 1 })),
    exit: 3,
    graded: 6,
    damaged: 0,
    says: /no current results\.json .*newer than/,
  },
  {
    name: 'a trailing blank line appended to a transcript',
    damage: (d) => appendFileSync(trial(d, 'pos/skill/1.jsonl'), '\n\n'),
    exit: 3,
    graded: 6,
    damaged: 0,
  },
];

describe('damaged run folders: a one-line message, the intact trials graded, never a crash', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-runfolder-'));
  afterAll(() => cleanup(root));
  let n = 0;
  const damaged = async (d: Damage) => {
    const dir = await fakeRun(join(root, String(++n)));
    d.damage(dir);
    return dir;
  };

  it('covers every kind the contract names, and more', () => {
    expect(UNREADABLE_MANIFEST.length + DAMAGED_TRIALS.length + TOLERATED.length).toBeGreaterThanOrEqual(30);
  });

  it.each([...UNREADABLE_MANIFEST, ...DAMAGED_TRIALS, ...TOLERATED])(
    'report: $name',
    async (d) => {
      const dir = await damaged(d);
      const before = snapshot(dir);
      const r = await runInProcess(['report', dir, '--json'], { cwd: root });
      expect(r.exitCode).toBe(d.exit);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/);
      expect(r.stderr).not.toMatch(/internal error/);
      if (d.says) expect(r.stderr).toMatch(d.says);
      if (d.exit === 2) expect(r.stderr.trim().split('\n')).toHaveLength(1);
      else {
        const results = JSON.parse(r.stdout) as Results;
        expect(results.outcomes).toHaveLength(d.graded!);
        expect(results.damaged).toHaveLength(d.damaged!);
      }
      // report writes nothing, ever.
      expect(snapshot(dir)).toEqual(before);
    },
    60_000,
  );

  it.each([...DAMAGED_TRIALS, ...TOLERATED])(
    'grade: $name',
    async (d) => {
      const dir = await damaged(d);
      const r = await runInProcess(['grade', dir], { cwd: root });
      expect(r.exitCode).toBe(d.exit);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/);
      const results = json(dir, 'results.json') as unknown as Results;
      expect(results.version).toBe(RUN_FORMAT_VERSION);
      expect(results.outcomes).toHaveLength(d.graded!);
      expect(results.damaged).toHaveLength(d.damaged!);
    },
    60_000,
  );

  it('grade refuses a folder it cannot read without writing into it', async () => {
    const d = UNREADABLE_MANIFEST[0]!;
    const dir = await damaged(d);
    const before = snapshot(dir);
    const r = await runInProcess(['grade', dir], { cwd: root });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(d.says!);
    expect(snapshot(dir)).toEqual(before);
  }, 60_000);

  it('report reads a stored results.json as stored, and names the version it was written in', async () => {
    const dir = await fakeRun(join(root, 'stored'));
    expect((await runInProcess(['grade', dir], { cwd: root })).exitCode).toBe(3);
    const stored = json(dir, 'results.json');
    expect(stored.version).toBe(RUN_FORMAT_VERSION);
    expect(json(dir, 'run.json').version).toBe(RUN_FORMAT_VERSION);
    const r = await runInProcess(['report', dir, '--json'], { cwd: root });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(stored);
  }, 60_000);
});

describe('a results.json of format 2, as that skillprobe wrote it, still reads', () => {
  const FORMAT_2 = join(import.meta.dirname, 'fixtures/run-format-2');
  const reasons = (outcomes: readonly { excludedBecause?: string }[]) => [...new Set(outcomes.map((o) => o.excludedBecause))].sort();

  it('a reason stored as a sentence reads as its code, and is worded as before', () => {
    const stored = JSON.parse(readFileSync(join(FORMAT_2, 'results.json'), 'utf8')) as Results;
    expect(stored.version).toBe(2);
    expect(reasons(stored.outcomes)).toEqual(['infra_error', 'nothing to score without the skill', undefined]);
    const read = readResultsSync(FORMAT_2);
    if (!read.ok) throw new Error(read.problem);
    expect(reasons(read.value.outcomes)).toEqual(['infra_error', 'nothing_to_score', undefined]);
    const unscored = read.value.outcomes.find((o) => o.excludedBecause === 'nothing_to_score')!;
    expect(explainOutcome(unscored, { expect: 'atl-jira', exclusive: false })).toBe('not scored: nothing to score without the skill');
  });
});

describe('a run whose writer is gone reads as interrupted', () => {
  const m = handMadeManifest([], 0, { status: 'running', owner: { pid: 4242, host: hostname() } });
  it.each([
    ['running, owner gone, this machine', { status: 'running' as const }, false, 'interrupted'],
    ['running, owner alive', { status: 'running' as const }, true, 'running'],
    ['completed, owner gone', { status: 'completed' as const }, false, 'completed'],
  ])('%s', (_name, over, alive, expected) => {
    expect(effectiveStatus({ ...m, ...over }, () => alive)).toBe(expected);
  });
  it('another machine: its process table is not ours to read', () => {
    expect(effectiveStatus({ ...m, owner: { pid: 4242, host: `${hostname()}-elsewhere` } }, () => false)).toBe('running');
  });
  it('format 0 (no owner): as stored', () => {
    expect(effectiveStatus({ ...m, owner: undefined }, () => false)).toBe('running');
  });
});

describe('a run folder has one writer (run.lock)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-lock-'));
  afterAll(() => cleanup(root));
  const folder = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    return dir;
  };
  const lockFile = (dir: string) => join(dir, LOCK_FILE);

  it('a second writer is refused at once, naming the holder; released, the folder can be taken again', () => {
    const dir = folder('live');
    const lock = lockRunFolder(dir, 'run --resume');
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), command: 'run --resume' });
    expect(() => lockRunFolder(dir, 'grade')).toThrow(
      new RegExp(`in use by skillprobe process ${process.pid} on .*\\(run --resume, since `),
    );
    lock.release();
    expect(existsSync(lockFile(dir))).toBe(false);
    lockRunFolder(dir, 'grade').release();
  });

  it.each([
    [
      'its holder is gone (killed outright)',
      (dir: string) => writeFileSync(lockFile(dir), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), since: 'x', command: 'run' })),
    ],
    [
      'it names this very pid, left by an earlier process (a restart reused it), not held here',
      (dir: string) => writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, host: hostname(), since: 'x', command: 'run' })),
    ],
    [
      'it was torn mid-write long ago',
      (dir: string) => {
        writeFileSync(lockFile(dir), '{"pid": 12');
        utimesSync(lockFile(dir), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      },
    ],
  ])('a lock is taken over when %s', (_, make) => {
    const dir = folder(`stale-${make.length}-${Math.random()}`);
    make(dir);
    const lock = lockRunFolder(dir, 'run');
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('a lock just made and not yet written is not taken over, and a folder that cannot take one is a storage error', () => {
    const dir = folder('fresh');
    writeFileSync(lockFile(dir), '');
    expect(() => lockRunFolder(dir, 'run')).toThrow(/in use by another skillprobe process/);
    expect(() => lockRunFolder(join(root, 'no-such-folder'), 'grade')).toThrow(/cannot write .*no-such-folder\/run\.lock: ENOENT/);
  });

  it('two processes taking one folder at once: every refusal names its holder (a lock is never seen before its text)', async () => {
    const dir = folder('race');
    const ready = join(root, 'race-ready');
    // Another process takes and releases the folder as fast as it can, through the built lock (as a second skillprobe would).
    const taker = execa(process.execPath, [
      '--input-type=module',
      '-e',
      `import { lockRunFolder } from ${JSON.stringify(pathToFileURL(resolve('dist/run/lock.js')).href)};
       import { writeFileSync } from 'node:fs';
       writeFileSync(${JSON.stringify(ready)}, '');
       const end = Date.now() + 3000;
       while (Date.now() < end) { try { lockRunFolder(${JSON.stringify(dir)}, 'run --resume').release(); } catch {} }`,
    ]);
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 10));
    const refusals: string[] = [];
    const end = Date.now() + 2000;
    while (Date.now() < end) {
      try {
        lockRunFolder(dir, 'grade').release();
      } catch (e) {
        refusals.push((e as Error).message);
      }
    }
    await taker;
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.filter((m) => !/in use by skillprobe process \d+ on .*\(run --resume, since /.test(m))).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('a holder on another machine is never taken over: the message says how to clear it', () => {
    const dir = folder('remote');
    writeFileSync(lockFile(dir), JSON.stringify({ pid: 1, host: 'elsewhere', since: 'x', command: 'run' }));
    expect(() => lockRunFolder(dir, 'run')).toThrow(
      /in use by skillprobe process 1 on elsewhere .*if that process is gone, delete .*run\.lock/,
    );
  });
});
