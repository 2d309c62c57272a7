import { existsSync, readFileSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pMap from 'p-map';
import { htmlReporter } from '../report/html.js';
import { trialDetails } from '../report/html/trials.js';
import {
  casePage,
  framedPage,
  href,
  problemPage,
  runShellPage,
  runsPage,
  trialPage,
  VIEW_CSP,
  VIEW_SCRIPT,
  VIEW_SCRIPT_PATH,
  type TrialLabels,
} from '../report/html/view-pages.js';
import type { RunSummary } from '../report/runs.js';
import { filterRuns } from '../report/runs.js';
import { ARMS, type Arm } from '../run/config-schema.js';
import { trialKey, type Results, type RunManifest, type TrialRef } from '../run/schema.js';
import { RunFolderError, type RunStore } from '../run/store.js';
import { readTuneRecord } from '../run/tune-store.js';
import { readMutateRecord } from '../run/mutate-store.js';
import { agentNotes, readTranscripts, tuneReportInput } from '../runner/reports.js';
import { readStoredTranscript } from '../runner/stored-grades.js';
import { loadResults } from '../runner/stored-results.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { compareRuns } from '../verdict/compare.js';
import { InputError } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';
import { writeFileWhole } from '../util/atomic-file.js';
import { listRunFolders, READ_AT_ONCE, readRunSummary } from '../runner/history.js';
import { labelAgreement, labelsFile, labelsOfRun, readLabels, writeLabels, type Label } from '../runner/labels.js';
import type { Transcript } from '../transcript/types.js';

/**
 * `skillprobe view`: the transcripts folder served on loopback, read through the run store and the reporters. It
 * writes one file only, the labels (LABELS_FILE) beside the run folders; the run folders it only reads.
 */

export interface ViewOptions {
  transcriptsDir: string;
  cwd: string;
  /** Who labels, unless the form says otherwise (the user's login name). */
  labeller: string;
  /** The port served: the one Host and Origin a request may name (DNS rebinding, cross-site posts). */
  port: () => number;
  now?: () => Date;
  /**
   * Read every run's summary soon after the first page, so a filter or a case's trend finds them read; until this
   * signal aborts (the server stopped).
   */
  warm?: AbortSignal;
}

/** How long after the first page the warming begins: the browser's next asks (its frame, a link) come first. */
const WARM_AFTER_MS = 1000;

/** Runs listed per page: the newest are read first, so a folder of thousands lists at once. */
export const RUNS_PER_PAGE = 50;
/** A trial's timeline is shown this many events at a time, its raw stream this many bytes. */
export const EVENTS_PER_PAGE = 400;
export const RAW_PAGE_BYTES = 256 * 1024;

/** A file's change stamp: its size and time, or that it is missing. */
const fileStamp = (file: string) =>
  stat(file).then(
    (s) => `${s.size}:${s.mtimeMs}`,
    () => '-',
  );

/** The summaries kept beside the run folders between two starts of the view, each with the stamp it was read at. */
export const VIEW_INDEX_FILE = '.skillprobe-view-index.json';
const VIEW_INDEX_VERSION = 2;

/**
 * Each run's summary kept while its run.json and results.json are unchanged: a page lists the newest runs reading
 * only theirs, a filter reads each run once, and the next start reads them from VIEW_INDEX_FILE.
 */
class RunIndex {
  private readonly summaries = new Map<string, { stamp: string; summary: RunSummary }>();
  private changed = false;

  constructor(
    private readonly transcriptsDir: string,
    private readonly cwd: string,
  ) {
    try {
      const kept = JSON.parse(readFileSync(this.indexFile(), 'utf8')) as {
        version?: number;
        runs?: Record<string, { stamp: string; summary: RunSummary }>;
      };
      if (kept.version === VIEW_INDEX_VERSION) for (const [id, entry] of Object.entries(kept.runs ?? {})) this.summaries.set(id, entry);
    } catch {
      // None yet, or not ours to read: every summary is read from its run folder.
    }
  }

  private indexFile(): string {
    return fromFolder(this.cwd, join(this.transcriptsDir, VIEW_INDEX_FILE));
  }

  ids(): string[] {
    return listRunFolders(this.transcriptsDir, this.cwd);
  }

  /**
   * The run folder as the user would name it, or undefined for an id the folder does not hold (refusing `..` and the
   * like): a listed run, or a run a listed tune or mutate names in its record (`<tune>/<its run's folder>`).
   */
  async dirOf(id: string): Promise<string | undefined> {
    const ids = this.ids();
    if (ids.includes(id)) return join(this.transcriptsDir, id);
    for (const holder of ids.filter((h) => id.startsWith(`${h}/`))) {
      const { record } = await this.summary(holder);
      if (record?.runs.some((r) => `${holder}/${r.dir}` === id)) return join(this.transcriptsDir, id);
    }
    return undefined;
  }

  async summary(id: string): Promise<RunSummary> {
    const at = fromFolder(this.cwd, join(this.transcriptsDir, id));
    const stamp = (await Promise.all(['run.json', 'results.json', 'tune.json'].map((f) => fileStamp(join(at, f))))).join(' ');
    const kept = this.summaries.get(id);
    if (kept?.stamp === stamp) return kept.summary;
    const summary = await readRunSummary(this.transcriptsDir, id, this.cwd);
    this.summaries.set(id, { stamp, summary });
    this.changed = true;
    return summary;
  }

  all(ids: readonly string[], signal?: AbortSignal): Promise<RunSummary[]> {
    return pMap(ids, (id) => this.summary(id), { concurrency: READ_AT_ONCE, ...(signal ? { signal } : {}) });
  }

  /** Keeps the summaries read for the next start; a folder that cannot be written keeps none, and loses nothing else. */
  async save(): Promise<void> {
    if (!this.changed) return;
    this.changed = false;
    const runs = Object.fromEntries([...this.summaries].filter(([id]) => existsSync(join(fromFolder(this.cwd, this.transcriptsDir), id))));
    await writeFileWhole(this.indexFile(), JSON.stringify({ version: VIEW_INDEX_VERSION, runs })).catch(() => undefined);
  }
}

/** A stored run read once per change: its results (graded in memory while it has none) and its stamp. */
interface LoadedRun {
  stamp: string;
  store: RunStore;
  manifest: RunManifest;
  results: Results;
  /** Its html report, once asked for. */
  report?: string;
}

/** What changes as a run goes: its stored trials (each meta.json is written last) and its run.json and results.json. */
async function runStamp(dir: string): Promise<string> {
  const entries = await readdir(join(dir, 'trials'), { recursive: true }).catch(() => []);
  const stored = entries.filter((e) => e.endsWith('.meta.json')).length;
  return `${stored} ${await fileStamp(join(dir, 'run.json'))} ${await fileStamp(join(dir, 'results.json'))}`;
}

const asArm = (v: string | undefined): Arm | undefined => ARMS.find((a) => a === v);

const positiveInt = (v: string | undefined): number | undefined => (v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : undefined);

/** A request the view refuses: its status and one line saying why. */
class Refused extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 422,
    message: string,
  ) {
    super(message);
  }
}

/** What the view's pages share: its options, the run index and the runs read so far. */
interface ViewState {
  o: ViewOptions;
  index: RunIndex;
  /** A listed run's folder; a 404 for an id the list does not hold. */
  runDir(id: string | undefined): Promise<string>;
  /** A run's manifest and results, read again only once its folder has changed. */
  loadRun(id: string): Promise<LoadedRun>;
}

function viewState(o: ViewOptions): ViewState {
  const index = new RunIndex(o.transcriptsDir, o.cwd);
  const loaded = new Map<string, LoadedRun>();
  const runDir = async (id: string | undefined): Promise<string> => {
    const dir = id === undefined ? undefined : await index.dirOf(id);
    if (!dir) throw new Refused(404, `no run ${JSON.stringify(id ?? '')} in ${o.transcriptsDir}: pick one from the list`);
    return dir;
  };
  async function loadRun(id: string): Promise<LoadedRun> {
    const dir = await runDir(id);
    const stamp = await runStamp(fromFolder(o.cwd, dir));
    const kept = loaded.get(id);
    if (kept?.stamp === stamp) return kept;
    const read = { stamp, ...(await loadResults(dir, o.cwd)) };
    loaded.set(id, read);
    return read;
  }
  return { o, index, runDir, loadRun };
}

/** Reads every run's summary once, started by the first page served, so that a cold start's first page never waits behind it. */
function warmer(index: RunIndex, stopped: AbortSignal | undefined): () => void {
  let warming = false;
  return () => {
    if (warming || !stopped || stopped.aborted) return;
    warming = true;
    // Nothing it meets stops the view (the folder gone meanwhile, a run unreadable): a page that needs it says so.
    const timer = setTimeout(() => {
      Promise.resolve()
        .then(() => index.all(index.ids(), stopped))
        .then(() => (stopped.aborted ? undefined : index.save()))
        .catch(() => undefined);
    }, WARM_AFTER_MS);
    stopped.addEventListener('abort', () => clearTimeout(timer), { once: true });
  };
}

/** The trial a query names, if the run holds it: its case, arm and number are taken from the store's own listing. */
async function trialOf(run: LoadedRun, q: Record<string, string | undefined>): Promise<TrialRef> {
  const arm = asArm(q.arm);
  const n = positiveInt(q.n);
  const { trials } = await run.store.listTrials();
  const ref = trials.find((t) => t.caseId === q.case && t.arm === arm && t.n === n);
  if (!ref) throw new Refused(404, `the run holds no trial ${q.case ?? '?'} · ${q.arm ?? '?'} · #${q.n ?? '?'}`);
  return ref;
}

export function viewApp(o: ViewOptions): Hono {
  const v = viewState(o);
  const app = new Hono();
  app.onError((e, c) => {
    if (e instanceof Refused) return c.html(problemPage('Refused', e.message), e.status);
    if (e instanceof RunFolderError || e instanceof InputError) return c.html(problemPage('Cannot be read', e.message), 422);
    return c.html(problemPage('Failed', `the view could not show this page: ${e.message}`), 500);
  });
  guardRequests(app, o.port, warmer(v.index, o.warm));
  // A browser asks for it by itself; the pages have none.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get(VIEW_SCRIPT_PATH, (c) => c.body(VIEW_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  runRoutes(app, v);
  recordRoutes(app, v);
  caseAndCompareRoutes(app, v);
  trialRoutes(app, v);
  return app;
}

/** A page of another site may not reach this server by a name it resolves to 127.0.0.1, nor post to it. */
function guardRequests(app: Hono, port: () => number, afterPage: () => void): void {
  const allowedHosts = () => [`127.0.0.1:${port()}`, `localhost:${port()}`];
  app.use('*', async (c, next) => {
    const host = c.req.header('host');
    if (!host || !allowedHosts().includes(host)) return c.text(`refused: Host ${host ?? '(none)'} is not this server's`, 403);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (!origin || !allowedHosts().some((h) => origin === `http://${h}`))
        return c.text(`refused: a ${c.req.method} from ${origin ?? 'no origin'}, not from this server's pages`, 403);
    }
    await next();
    // Who may frame a page is said only in a header (a <meta> policy cannot say it).
    c.header('Content-Security-Policy', `${VIEW_CSP}; frame-ancestors 'self'`);
    c.header('X-Content-Type-Options', 'nosniff');
    // `no-referrer` would make a browser post its forms from origin `null`, which the check above refuses.
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
    afterPage();
  });
}

/** The list of runs, a run's page, its change stamp (polled while it runs) and its report. */
function runRoutes(app: Hono, { o, index, runDir, loadRun }: ViewState): void {
  app.get('/', async (c) => {
    const query = c.req.query('q')?.trim() ?? '';
    const ids = index.ids();
    // Without a filter only the page shown is read; a filter reads every run (once: the index keeps them).
    const matching = query ? filterRuns(await index.all(ids), query).map((r) => r.runId) : ids;
    const pages = Math.max(1, Math.ceil(matching.length / RUNS_PER_PAGE));
    const page = Math.min(pages, positiveInt(c.req.query('page')) || 1);
    const rows = await index.all(matching.slice((page - 1) * RUNS_PER_PAGE, page * RUNS_PER_PAGE));
    await index.save();
    return c.html(runsPage({ rows, query, page, pages, matching: matching.length }));
  });

  app.get('/run', async (c) => {
    const id = c.req.query('id')!;
    await runDir(id);
    const summary = await index.summary(id);
    if (summary.problem && !summary.run) throw new Refused(422, `${id}: ${summary.problem}`);
    const run = await loadRun(id);
    const running = run.manifest.status === 'running';
    return c.html(
      runShellPage({
        runId: id,
        title: `${id} · ${run.manifest.agent.id} · ${run.manifest.reportedModel ?? run.manifest.model} · ${run.manifest.status}`,
        report: href('/run/report', { id }),
        ...(running ? { live: { stampUrl: href('/run/stamp', { id }), stamp: run.stamp } } : {}),
        cases: run.manifest.cases.defs.map((d) => d.id),
        trials: run.results.outcomes.map((t) => ({
          caseId: t.caseId,
          arm: t.arm,
          n: t.n,
          word: t.passed === null ? `not scored (${t.status})` : t.passed ? 'pass' : 'fail',
          judged: t.judge !== undefined,
        })),
      }),
    );
  });

  app.get('/run/stamp', async (c) => c.text(await runStamp(fromFolder(o.cwd, await runDir(c.req.query('id'))))));

  app.get('/run/report', async (c) => {
    const id = c.req.query('id')!;
    const run = await loadRun(id);
    // Rendered once per change of the run: a page polled while it runs does not parse every transcript each time.
    run.report ??= htmlReporter.render({
      manifest: run.manifest,
      results: run.results,
      runDir: await runDir(id),
      agentNotes: agentNotes(run.manifest),
      transcripts: await readTranscripts(run.store, run.manifest, run.results.outcomes),
    });
    return c.html(run.report);
  });
}

/** A tune's or a mutate's folder: its id in the list and its summary, which names its runs. */
async function recordOf(
  { index, runDir }: ViewState,
  id: string | undefined,
  kind: 'tune' | 'mutate',
): Promise<{ id: string; dir: string; summary: RunSummary }> {
  const dir = await runDir(id);
  const summary = await index.summary(id!);
  if (!summary.run?.kinds.includes(kind)) throw new Refused(404, `${id} is no ${kind} folder: pick one from the list`);
  return { id: id!, dir, summary };
}

/** The unmutated run a mutate compared its mutants with, as an id of this view: its own `original`, or a listed run `--base` named. */
async function mutateBase({ o, index }: ViewState, id: string): Promise<string | undefined> {
  const record = await readMutateRecord(join(o.transcriptsDir, id), o.cwd);
  if (!record.base.given) return `${id}/${record.base.dir}`;
  const named = relative(fromFolder(o.cwd, o.transcriptsDir), fromFolder(o.cwd, record.base.dir));
  return index.ids().includes(named) ? named : undefined;
}

/** A tune's and a mutate's pages: a frame naming their runs, and their reports. */
function recordRoutes(app: Hono, v: ViewState): void {
  const { o } = v;
  app.get('/tune', async (c) => {
    const { id, summary } = await recordOf(v, c.req.query('id'), 'tune');
    return c.html(framedPage(`tune ${id}`, href('/tune/report', { id }), { id, runs: summary.record?.runs ?? [] }));
  });

  app.get('/tune/report', async (c) => {
    const { dir } = await recordOf(v, c.req.query('id'), 'tune');
    return c.html(htmlReporter.renderTune!(await tuneReportInput(dir, await readTuneRecord(dir, o.cwd), o.cwd)));
  });

  app.get('/mutate', async (c) => {
    const { id, summary } = await recordOf(v, c.req.query('id'), 'mutate');
    const runs = summary.record?.runs ?? [];
    const base = await mutateBase(v, id);
    return c.html(framedPage(`mutate ${id}`, href('/mutate/report', { id }), { id, runs, ...(base ? { base } : {}) }));
  });

  app.get('/mutate/report', async (c) => {
    const { dir } = await recordOf(v, c.req.query('id'), 'mutate');
    return c.html(htmlReporter.renderMutate!({ record: await readMutateRecord(dir, o.cwd), dir }));
  });
}

/** A case's trend across the runs, and two runs compared. */
function caseAndCompareRoutes(app: Hono, { index, runDir, loadRun }: ViewState): void {
  app.get('/case', async (c) => {
    const caseId = c.req.query('id') ?? '';
    const rows = await index.all(index.ids());
    await index.save();
    return c.html(casePage(caseId, rows));
  });

  app.get('/compare', async (c) => {
    const [base, candidate] = [c.req.query('base'), c.req.query('candidate')];
    if (!base || !candidate) throw new Refused(400, 'pick two runs in the list: a base and a candidate');
    await runDir(base);
    await runDir(candidate);
    return c.html(framedPage(`${base} → ${candidate}`, href('/compare/report', { base, candidate })));
  });

  app.get('/compare/report', async (c) => {
    const [base, candidate] = [c.req.query('base')!, c.req.query('candidate')!];
    const [b, k] = await Promise.all([loadRun(base), loadRun(candidate)]);
    const comparison = compareRuns({ dir: await runDir(base), ...b }, { dir: await runDir(candidate), ...k }, COMPARE_DEFAULTS);
    return c.html(htmlReporter.renderComparison(comparison));
  });
}

/** The labels file as stored, or why it cannot be read (a page shows that; a post refuses). */
function storedLabels(o: ViewOptions): { labels: Label[]; problem?: string } {
  try {
    return { labels: readLabels(labelsFile(o.transcriptsDir), o.cwd) };
  } catch (e) {
    if (e instanceof InputError) return { labels: [], problem: e.message };
    throw e;
  }
}

/** A judged trial's items beside the labels given to them, and how far the labels agree with the judge. */
function trialLabels(o: ViewOptions, run: LoadedRun, t: Results['outcomes'][number]): TrialLabels {
  const { labels, problem } = storedLabels(o);
  const mine = labelsOfRun(labels, run.manifest.runId);
  const given = (item: string) => mine.find((l) => l.case === t.caseId && l.arm === t.arm && l.n === t.n && l.item === item);
  return {
    run: run.manifest.runId,
    items: t.judge!.items.map((i) => {
      const l = given(i.item);
      return { item: i.item, verdict: i.verdict, ...(l ? { label: l.label, ...(l.note ? { note: l.note } : {}) } : {}) };
    }),
    by: o.labeller,
    agreement: labelAgreement(mine, run.results.outcomes, run.manifest.config.grading.confidence),
    file: labelsFile(o.transcriptsDir),
    ...(problem ? { problem } : {}),
  };
}

/** A trial's page (its timeline a page at a time, its raw stream, its labels) and the labels posted from it. */
function trialRoutes(app: Hono, { o, runDir, loadRun }: ViewState): void {
  let parsed: { key: string; transcript: Transcript } | undefined;
  app.get('/trial', async (c) => {
    const q = c.req.query();
    const run = await loadRun(q.id!);
    const ref = await trialOf(run, q);
    const outcome = run.results.outcomes.find((t) => trialKey(t) === trialKey(ref));
    if (!outcome) {
      const damaged = run.results.damaged.find((d) => d.path.includes(`${ref.caseId}/${ref.arm}/${ref.n}.`));
      throw new Refused(
        404,
        `trial ${trialKey(ref)} is stored but not graded: ${damaged ? `${damaged.path}: ${damaged.problem}` : 'see the run'}`,
      );
    }
    const key = `${q.id}\u0000${run.stamp}\u0000${trialKey(ref)}`;
    if (parsed?.key !== key) {
      const read = await readStoredTranscript(run.store, run.manifest, ref);
      if (!read.ok) throw new Refused(422, `${read.damaged.path}: ${read.damaged.problem}`);
      parsed = { key, transcript: read.transcript };
    }
    const total = parsed.transcript.events.length;
    const from = Math.min(positiveInt(q.from) ?? 0, Math.max(0, total - 1));
    const to = Math.min(total, from + EVENTS_PER_PAGE);
    const shown = { ...parsed.transcript, events: parsed.transcript.events.slice(from, to) };
    const input = {
      manifest: run.manifest,
      results: run.results,
      runDir: await runDir(q.id),
      agentNotes: agentNotes(run.manifest),
      transcripts: new Map([[trialKey(ref), shown]]),
    };
    const c0 = run.manifest.cases.defs.find((d) => d.id === ref.caseId);
    const raw = await rawPage(join(run.store.dir, 'trials', ref.caseId, ref.arm, `${ref.n}.jsonl`), positiveInt(q.offset) ?? 0);
    const labels = outcome.judge ? trialLabels(o, run, outcome) : undefined;
    return c.html(
      trialPage({
        runId: q.id!,
        title: `${ref.caseId} · ${ref.arm} · trial ${ref.n}`,
        evidence: trialDetails(outcome, c0, input, true),
        events: { from, to, total, pageSize: EVENTS_PER_PAGE },
        raw,
        ...(labels ? { labels } : {}),
        query: { id: q.id!, case: ref.caseId, arm: ref.arm, n: ref.n },
      }),
    );
  });

  const now = o.now ?? (() => new Date());
  app.post('/labels', async (c) => {
    const form = await c.req.parseBody();
    const field = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : undefined);
    const q = { id: field('id'), case: field('case'), arm: field('arm'), n: field('n') };
    const run = await loadRun(q.id ?? '');
    const ref = await trialOf(run, q);
    const outcome = run.results.outcomes.find((t) => trialKey(t) === trialKey(ref));
    if (!outcome?.judge) throw new Refused(422, `trial ${trialKey(ref)} was not judged: it has nothing to label`);
    const { problem } = storedLabels(o);
    if (problem) throw new Refused(422, `${problem} (the labels file is left as it is)`);
    const by = field('by')?.trim() || o.labeller;
    const at = now().toISOString();
    const given = outcome.judge.items.flatMap((i, k): Label[] => {
      const label = field(`label${k}`);
      if (label !== 'yes' && label !== 'no') return [];
      const note = field(`note${k}`)?.trim();
      return [
        { run: run.manifest.runId, case: ref.caseId, arm: ref.arm, n: ref.n, item: i.item, label, ...(note ? { note } : {}), by, at },
      ];
    });
    if (given.length) await writeLabels(o.transcriptsDir, o.cwd, given);
    return c.redirect(href('/trial', { id: q.id, case: ref.caseId, arm: ref.arm, n: ref.n }), 303);
  });
}

/** One page of a raw transcript from byte `offset`, ending at a line's end where one falls inside it. */
async function rawPage(file: string, offset: number): Promise<{ text: string; offset: number; end: number; size: number }> {
  const f = await open(file, 'r');
  try {
    const { size } = await f.stat();
    const start = Math.min(offset, size);
    const buf = Buffer.alloc(Math.min(RAW_PAGE_BYTES, size - start));
    const { bytesRead } = await f.read(buf, 0, buf.length, start);
    let used = bytesRead;
    if (start + used < size) {
      const lineEnd = buf.lastIndexOf(0x0a, used - 1);
      if (lineEnd >= 0) used = lineEnd + 1;
    }
    return { text: buf.subarray(0, used).toString('utf8'), offset: start, end: start + used, size };
  } finally {
    await f.close();
  }
}

/** A view server on 127.0.0.1 only; `port` 0 takes a free one. */
export function startView(o: Omit<ViewOptions, 'port'>, port: number): Promise<{ url: string; stop: () => Promise<void> }> {
  let bound = port;
  const stopped = new AbortController();
  const app = viewApp({ ...o, port: () => bound, warm: stopped.signal });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
      bound = info.port;
      resolve({
        url: `http://127.0.0.1:${bound}/`,
        stop: () => {
          stopped.abort();
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
    server.once('error', reject);
  });
}
