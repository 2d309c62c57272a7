import { randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { access, copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
// Temp name, fsync, rename: a reader never sees half a file, and a crash never leaves one under the real name.
import type { z } from 'zod';
import type { Arm } from './config-schema.js';
import {
  AGENT_RUNS_FILE,
  agentRunsSchema,
  RUN_FORMAT_VERSION,
  resultsHeadSchema,
  resultsSchema,
  runManifestSchema,
  trialMetaSchema,
  type AgentRuns,
  type DamagedTrial,
  type Results,
  type ResultsHead,
  type RunManifest,
  type TrialMeta,
  type TrialRef,
} from './schema.js';
import { writeAllSync, writeFileWhole, writeFileWholeSync } from '../util/atomic-file.js';
import { fileLines } from '../util/file-lines.js';
import { fromFolder } from '../util/paths.js';
import { processAlive } from '../util/process-group.js';

/**
 * The run folder: durable artifacts that can be regraded and re-reported without rerunning anything.
 *   run.json                               manifest
 *   trials/<case>/<arm>/<n>.jsonl          agent stdout, byte for byte (streamed to <n>.jsonl.part while it runs)
 *   trials/<case>/<arm>/<n>.meta.json      process facts; written last, so a trial is stored when both exist
 *   trials/<case>/<arm>/<n>.a<k>.*         an earlier attempt of the same trial (infra error, retried)
 *   trials/<case>/<arm>/<n>.s<k>.jsonl     a transcript set aside by a resume: its meta.json was never written
 *   results.json                           graded outcomes + statistics (regenerable)
 * A run of several agents (`run --agent a,b`) is a folder holding one such run folder per agent:
 *   agents.json                            each agent's run folder, binary, version, model, status
 *   <run-id>-<agent>/                      that agent's run folder, as above
 */

/** A run folder that cannot be read: one line, naming the file, for the user. */
export class RunFolderError extends Error {
  constructor(
    readonly file: string,
    readonly what: string,
    readonly todo: string,
  ) {
    super(`${file}: ${what} — ${todo}`);
    this.name = 'RunFolderError';
  }
}

/** Writing the run folder failed (disk full, a folder gone read-only or removed): the run cannot go on storing. */
export class StoreWriteError extends Error {
  constructor(
    readonly file: string,
    override readonly cause: Error,
  ) {
    super(`cannot write ${file}: ${cause.message}`);
    this.name = 'StoreWriteError';
  }
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The process that writes a run, so a reader can tell a live run from one whose writer died. */
export function currentOwner(): NonNullable<RunManifest['owner']> {
  return { pid: process.pid, host: hostname() };
}

/** A `running` run whose writer is gone from this machine was interrupted, whatever its run.json still says. */
export function effectiveStatus(m: RunManifest, alive: (pid: number) => boolean = processAlive): RunManifest['status'] {
  if (m.status !== 'running' || !m.owner || m.owner.host !== hostname()) return m.status;
  return alive(m.owner.pid) ? 'running' : 'interrupted';
}

function zodProblem(e: z.ZodError): string {
  const i = e.issues[0]!;
  const at = i.path.length ? `at ${i.path.join('.')}: ` : '';
  return `${at}${i.message}${e.issues.length > 1 ? ` (and ${e.issues.length - 1} more)` : ''}`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'missing' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? String(e)})`;
}

/** Validates one JSON file's text; a newer format version is refused by name, never guessed at. Pure. */
export function parseValidated<S extends z.ZodTypeAny>(text: string, schema: S): Parsed<z.output<S>> {
  if (text.trim() === '') return { ok: false, problem: 'empty (a write was cut off)' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `not valid JSON (${(e as Error).message}): truncated or corrupt` };
  }
  const v = (json as { version?: unknown } | null)?.version;
  if (typeof v === 'number' && v > RUN_FORMAT_VERSION) {
    return { ok: false, problem: `written in run-folder format ${v}, newer than this skillprobe reads (${RUN_FORMAT_VERSION})` };
  }
  const r = schema.safeParse(json);
  return r.success ? { ok: true, value: r.data } : { ok: false, problem: `does not match the run-folder format: ${zodProblem(r.error)}` };
}

async function readValidated<S extends z.ZodTypeAny>(file: string, schema: S): Promise<Parsed<z.output<S>>> {
  try {
    return parseValidated(await readFile(file, 'utf8'), schema);
  } catch (e) {
    return { ok: false, problem: readProblem(e) };
  }
}

function readValidatedSync<S extends z.ZodTypeAny>(file: string, schema: S): Parsed<z.output<S>> {
  try {
    return parseValidated(readFileSync(file, 'utf8'), schema);
  } catch (e) {
    return { ok: false, problem: readProblem(e) };
  }
}

/** A run folder's stored results, read synchronously for loaders that run before anything async (`--last-failed`). */
export const readResultsSync = (runDir: string): Parsed<Results> => readValidatedSync(join(runDir, 'results.json'), resultsSchema);

/** results.json as a list of runs reads it (resultsHeadSchema). */
export const readResultsHeadSync = (runDir: string): Parsed<ResultsHead> =>
  readValidatedSync(join(runDir, 'results.json'), resultsHeadSchema);

/** A folder's record of a run of several agents, read synchronously (missing: not such a run). */
export const readAgentRunsSync = (dir: string): Parsed<AgentRuns> => readValidatedSync(join(dir, AGENT_RUNS_FILE), agentRunsSchema);

/** A run folder's manifest, read synchronously for the loaders' checks before anything async (`--resume`). */
export const readManifestSync = (runDir: string): Parsed<RunManifest> => readValidatedSync(join(runDir, 'run.json'), runManifestSchema);

/** A stored trial's files; the transcript is streamed to `partial` and renamed when the trial is stored. */
export interface TrialFiles {
  transcript: string;
  partial: string;
  meta: string;
}

/** A transcript whose trial never finished (its process killed before the meta was written): left over, not damage. */
export const ORPHAN_TRANSCRIPT = 'transcript without its meta.json';
/** The run folder's copy of the skills as every trial got them (made at the start of the run and of each resume). */
export const SKILLS_SNAPSHOT = 'skills';
/** The run folder's copy of the user's files (fixtures) as every trial got them, one file per distinct content (its sha256). */
export const FIXTURES_SNAPSHOT = 'fixtures';
/** The run folder's copy of the neighbours (`neighbours:`) as every trial got them, made with the skills' copy. */
export const NEIGHBOURS_SNAPSHOT = 'neighbours';
const TRIAL_FILE = /^(\d+)(\.[as]\d+)?\.(jsonl|meta\.json)$/;
// A transcript still streaming, or an atomic write's temp file (`<name>.<hash>`): an interrupted run leaves them.
const IN_FLIGHT = /^\d+(\.[as]\d+)?\.(jsonl|meta\.json)\.[^.]+$/;

/** Writes a run of several agents' record into its folder (made if missing). */
export async function writeAgentRuns(dir: string, runs: AgentRuns): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileWhole(join(dir, AGENT_RUNS_FILE), JSON.stringify({ ...runs, version: RUN_FORMAT_VERSION }, null, 2) + '\n');
}

/** A folder's record of a run of several agents, or why there is none (missing: not such a run). */
export async function readAgentRuns(dir: string): Promise<Parsed<AgentRuns>> {
  return readValidated(join(dir, AGENT_RUNS_FILE), agentRunsSchema);
}

/** Why an atomic write failed when its temp file could not be made: a folder gone read-only, or a full disk. */
const NO_NEW_FILE = new Set(['EACCES', 'EPERM', 'ENOSPC']);

/**
 * The fallback when an atomic write cannot make its temp file (a folder gone read-only, a full disk): the file that
 * is already there rewritten in place, which needs no new entry; on a full disk only when the blocks it holds take
 * the new text, so a short write can never leave it torn. So a run stopped by such a fault can still say `failed`.
 * Returns whether it worked.
 */
function overwriteInPlace(file: string, text: string, cause: unknown): boolean {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === undefined || !NO_NEW_FILE.has(code)) return false;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r+');
    const bytes = Buffer.from(text);
    if (code === 'ENOSPC' && fstatSync(fd).blocks * 512 < bytes.length) return false;
    writeAllSync(fd, bytes, file);
    ftruncateSync(fd, bytes.length);
    fsyncSync(fd);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class RunStore {
  private constructor(readonly dir: string) {}

  /** A new run folder; never reuses one. */
  static async create(transcriptsDir: string, runId: string): Promise<RunStore> {
    await mkdir(transcriptsDir, { recursive: true });
    const dir = join(transcriptsDir, runId);
    await mkdir(dir);
    await mkdir(join(dir, 'trials'));
    return new RunStore(dir);
  }

  /**
   * An existing run folder with its validated manifest (its status corrected when its writer is gone): `dir`, named as
   * given; a relative one is taken from `cwd`, the user's working folder.
   */
  static async open(dir: string, cwd?: string): Promise<{ store: RunStore; manifest: RunManifest }> {
    const file = join(dir, 'run.json');
    const at = fromFolder(cwd, dir);
    const kind = await stat(at).then(
      (s) => (s.isDirectory() ? 'folder' : 'file'),
      () => 'missing',
    );
    const pass = 'pass a folder under transcripts/, e.g. transcripts/<run-id>';
    if (kind !== 'folder') throw new RunFolderError(dir, kind === 'file' ? 'a file, not a run folder' : 'no such run folder', pass);
    const r = await readValidated(join(at, 'run.json'), runManifestSchema);
    if (!r.ok) {
      if (r.problem === 'missing') throw severalRuns(dir, at) ?? new RunFolderError(dir, 'not a run folder (no run.json)', pass);
      const todo = r.problem.includes('newer than')
        ? 'read it with the skillprobe version that wrote it, or a newer one'
        : 'restore run.json (the transcripts under trials/ are intact, but cannot be graded without it), or run the suite again';
      throw new RunFolderError(file, `run.json ${r.problem}`, todo);
    }
    return { store: new RunStore(at), manifest: { ...r.value, status: effectiveStatus(r.value) } };
  }

  async writeManifest(m: RunManifest): Promise<void> {
    await this.writeJson('run.json', { ...m, version: RUN_FORMAT_VERSION });
  }

  /** For a process about to exit (a forced stop), which cannot wait for an asynchronous write. */
  writeManifestSync(m: RunManifest): void {
    const file = join(this.dir, 'run.json');
    const text = JSON.stringify({ ...m, version: RUN_FORMAT_VERSION }, null, 2) + '\n';
    try {
      writeFileWholeSync(file, text);
    } catch (e) {
      if (!overwriteInPlace(file, text, e)) throw e;
    }
  }

  async writeResults(r: Results): Promise<void> {
    await this.writeJson('results.json', { ...r, version: RUN_FORMAT_VERSION });
  }

  /** The stored results, or why they cannot be used (missing, damaged, another format). */
  async readResults(): Promise<Parsed<Results>> {
    return readValidated(join(this.dir, 'results.json'), resultsSchema);
  }

  private async writeJson(name: string, value: unknown): Promise<void> {
    const file = join(this.dir, name);
    const text = JSON.stringify(value, null, 2) + '\n';
    try {
      await writeFileWhole(file, text);
    } catch (e) {
      if (!overwriteInPlace(file, text, e)) throw new StoreWriteError(file, e as Error);
    }
  }

  trialFiles(t: TrialRef, attempt?: number): TrialFiles {
    const base = join(this.dir, 'trials', t.caseId, t.arm, `${t.n}${attempt === undefined ? '' : `.a${attempt}`}`);
    return { transcript: `${base}.jsonl`, partial: `${base}.jsonl.part`, meta: `${base}.meta.json` };
  }

  /**
   * Removes what an interrupted run left half-written (transcripts still streaming, atomic writes' temp files), so
   * a resume starts those trials clean; returns how many. Stored trials are never touched.
   */
  async removeLeftovers(): Promise<number> {
    const root = join(this.dir, 'trials');
    const found = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])).filter(
      (e) => !e.isDirectory() && IN_FLIGHT.test(e.name),
    );
    // `path` is the name Node before 20.12 gives the entry's folder.
    await Promise.all(found.map((e) => rm(join(e.parentPath ?? e.path, e.name), { force: true })));
    return found.length;
  }

  /**
   * Transcripts stored without their meta.json (a run killed between the two writes) renamed to a set-aside name of
   * their trial's (`<n>.s<k>.jsonl`, apart from the retried attempts' `<n>.a<k>`), kept for the record, so that
   * running the trial again overwrites nothing. Returns where each went, relative to the folder.
   */
  async setAsideOrphanTranscripts(): Promise<string[]> {
    const { damaged } = await this.listTrials();
    const moved: string[] = [];
    for (const d of damaged.filter((x) => x.problem === ORPHAN_TRANSCRIPT)) {
      const from = join(this.dir, d.path);
      const taken = new Set(await readdir(dirname(from)));
      const n = basename(from, '.jsonl');
      let k = 1;
      while (taken.has(`${n}.s${k}.jsonl`)) k++;
      const to = join(dirname(from), `${n}.s${k}.jsonl`);
      await rename(from, to);
      moved.push(relative(this.dir, to));
    }
    return moved;
  }

  /**
   * Copies another run folder's stored trials (committed files only, never half-written ones) into this one, for
   * `merge`; refuses to overwrite a trial this folder already holds. Returns how many files it copied.
   */
  async copyTrialsFrom(other: RunStore): Promise<number> {
    const root = join(other.dir, 'trials');
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    // A link would copy whatever it names (a file anywhere on the machine) into the merged run as a transcript.
    const link = entries.find((e) => e.isSymbolicLink());
    if (link) {
      const where = relative(other.dir, join(link.parentPath ?? link.path, link.name));
      throw new RunFolderError(
        join(other.dir, where),
        "a symlink inside a shard's trials, which merge does not follow",
        'replace it with the file a run wrote, or remove it, then merge again',
      );
    }
    const files = entries.filter((e) => e.isFile() && TRIAL_FILE.test(e.name));
    for (const e of files) {
      const from = join(e.parentPath ?? e.path, e.name);
      const to = join(this.dir, 'trials', relative(root, from));
      await mkdir(dirname(to), { recursive: true });
      await copyFile(from, to, fsConstants.COPYFILE_EXCL);
    }
    return files.length;
  }

  /** Makes the folder a trial's transcript is streamed into. */
  async prepareTrial(t: TrialRef): Promise<TrialFiles> {
    const files = this.trialFiles(t);
    // A run folder removed mid-run is not made again piece by piece: the run stops, saying so. Each level is made on
    // its own, below the run folder, so a removal racing this call cannot be undone by a recursive mkdir either.
    const levels = ['trials', t.caseId, t.arm].map((_, i, parts) => join(this.dir, ...parts.slice(0, i + 1)));
    for (const folder of levels) {
      await mkdir(folder).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'EEXIST') return;
        throw e.code === 'ENOENT' && !existsSync(this.dir)
          ? new StoreWriteError(this.dir, new Error('the run folder is gone (removed while the run was going)'))
          : new StoreWriteError(folder, e);
      });
    }
    return files;
  }

  /**
   * Stores a finished trial whose transcript was streamed to `partial`: the transcript under its name, then the
   * meta, which marks the trial complete. `attempt` files an earlier, retried attempt beside the trial.
   */
  async commitTrial(t: TrialRef, meta: TrialMeta, attempt?: number): Promise<void> {
    const streamed = this.trialFiles(t).partial;
    const files = this.trialFiles(t, attempt);
    try {
      await rename(streamed, files.transcript);
      await writeFileWhole(files.meta, JSON.stringify({ ...meta, version: RUN_FORMAT_VERSION }, null, 2) + '\n');
    } catch (e) {
      // Disk full, folder gone read-only: named in one line, and the run stops (runner/run-suite.ts).
      throw new StoreWriteError(files.transcript, e as Error);
    }
  }

  /**
   * Every stored final trial, and every damaged one (a transcript without its meta or the reverse, a folder
   * where a file belongs, a stray entry): listed, never a reason to stop reading the rest.
   */
  async listTrials(): Promise<{ trials: TrialRef[]; damaged: DamagedTrial[] }> {
    const trials: TrialRef[] = [];
    const damaged: DamagedTrial[] = [];
    const root = join(this.dir, 'trials');
    const rel = (p: string) => relative(this.dir, p);
    const entries = async (d: string) => readdir(d, { withFileTypes: true }).catch(() => []);
    for (const c of await entries(root)) {
      const caseDir = join(root, c.name);
      if (!c.isDirectory()) {
        damaged.push({ path: rel(caseDir), problem: 'stray file where a case folder belongs' });
        continue;
      }
      for (const a of await entries(caseDir)) {
        const armDir = join(caseDir, a.name);
        if (!a.isDirectory() || (a.name !== 'skill' && a.name !== 'ablation')) {
          damaged.push({ path: rel(armDir), problem: 'stray entry where an arm folder (skill, ablation) belongs' });
          continue;
        }
        const seen = new Map<number, Set<string>>();
        const unreadable = new Set<number>();
        for (const f of await entries(armDir)) {
          if (IN_FLIGHT.test(f.name)) continue;
          const m = TRIAL_FILE.exec(f.name);
          if (!m) {
            damaged.push({ path: rel(join(armDir, f.name)), problem: 'stray entry, not a trial file' });
            continue;
          }
          if (m[2]) continue; // an earlier attempt: kept for the record, not a trial
          const n = Number(m[1]);
          if (!f.isFile()) {
            damaged.push({ path: rel(join(armDir, f.name)), problem: 'a folder where a trial file belongs' });
            unreadable.add(n);
            continue;
          }
          seen.set(n, (seen.get(n) ?? new Set()).add(m[3]!));
        }
        for (const [n, kinds] of seen) {
          if (unreadable.has(n)) continue;
          if (kinds.size === 2) trials.push({ caseId: c.name, arm: a.name as Arm, n });
          else {
            const have = [...kinds][0]!;
            damaged.push({
              path: rel(join(armDir, `${n}.${have}`)),
              problem: have === 'jsonl' ? ORPHAN_TRANSCRIPT : 'meta.json without its transcript',
            });
          }
        }
      }
    }
    trials.sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n);
    return { trials, damaged };
  }

  /**
   * One stored trial, validated: its transcript's lines (read as they are pulled: a transcript of any size is never
   * one string) and its process facts, or why it cannot be read.
   */
  async readTrial(t: TrialRef): Promise<{ ok: true; lines: Iterable<string>; meta: TrialMeta } | { ok: false; damaged: DamagedTrial }> {
    const files = this.trialFiles(t);
    const meta = await readValidated(files.meta, trialMetaSchema);
    if (!meta.ok) return { ok: false, damaged: { path: relative(this.dir, files.meta), problem: meta.problem } };
    try {
      // Opened here, so a transcript that cannot be read is named now, not half-way through its grading.
      await access(files.transcript, fsConstants.R_OK);
      return { ok: true, lines: fileLines(files.transcript), meta: meta.value };
    } catch (e) {
      return {
        ok: false,
        damaged: {
          path: relative(this.dir, files.transcript),
          problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
        },
      };
    }
  }
}

/** A folder of several runs (agents.json: one per agent, or one per context) named where one run is read. */
function severalRuns(dir: string, at: string): RunFolderError | undefined {
  const record = readAgentRunsSync(at);
  if (!record.ok || record.value.agents.length === 0) return undefined;
  const { agents, by = 'agent' } = record.value;
  return new RunFolderError(
    dir,
    `holds ${agents.length} runs, one per ${by} (${agents.map((a) => a.id).join(', ')}), not one run`,
    `name one of them (${join(dir, agents[0]!.dir)}); \`skillprobe report ${dir}\` reports them together`,
  );
}
