import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import pMap from 'p-map';
import { InvalidArgumentError } from 'commander';
import { adapterFor } from '../agents/registry.js';
import { readStoredTranscript } from './stored-grades.js';
import type { FinishedRun } from './pipeline.js';
import { agentMatrix } from '../verdict/agent-matrix.js';
import { describeRunDir, fromFolder, shownFrom, unwritableFolder, wrongEntry } from '../util/paths.js';
import { InputError, ProblemList } from '../util/input-error.js';
import { isReporterName, REPORTER_NAMES, REPORTERS, type ReporterName } from '../report/registry.js';
import type { AgentNotes, ContextComparisons, ContextsReportInput, MissingAgent, Reporter, ReportInput } from '../report/reporter.js';
import { EXIT } from '../run/exit-codes.js';
import type { Comparison } from '../verdict/comparison.js';
import { worstExitCode } from '../verdict/verdict.js';
import type { Context } from '../run/config-schema.js';
import type { TuneRecord } from '../run/tune-schema.js';
import type { TuneReportInput } from '../report/tune/view.js';
import { rewriteDescription } from '../load/rewrite-description.js';
import { contextDifference } from '../verdict/context-difference.js';
import { trialKey, type RunManifest, type TrialOutcome } from '../run/schema.js';
import type { RunStore } from '../run/store.js';
import type { Transcript } from '../transcript/types.js';
import { writeFileWhole } from '../util/atomic-file.js';

/** `--reporter none`: stdout stays empty (the files alone); the human lines go to stderr. */
export const NO_STDOUT = 'none';

/**
 * One `--reporter NAME[=FILE]`: a reporter and where its text goes (stdout when no file is named), or `none`, which
 * claims stdout and prints nothing there.
 */
export type ReporterChoice = { name: ReporterName; file?: string } | { name: typeof NO_STDOUT; file?: undefined };

/** The world reports are written to, passed in so a command never reaches for process globals itself. */
export interface ReportIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Where relative paths are read from, and the folder paths in reports are shown relative to. */
  cwd: string;
}

/** Parses one `--reporter` value for commander, collecting repeats. */
export function reporterFlag(v: string, prev: ReporterChoice[] = []): ReporterChoice[] {
  const eq = v.indexOf('=');
  const [name, file] = eq < 0 ? [v.trim(), undefined] : [v.slice(0, eq).trim(), v.slice(eq + 1).trim()];
  if (name === NO_STDOUT) {
    if (file !== undefined) {
      throw new InvalidArgumentError(
        `--reporter ${NO_STDOUT} leaves stdout empty and writes nothing: it takes no file; write --reporter ${NO_STDOUT}`,
      );
    }
    return [...prev, { name }];
  }
  if (!isReporterName(name)) {
    const names = `${REPORTER_NAMES.join(', ')}, or ${NO_STDOUT}`;
    throw new InvalidArgumentError(`--reporter: "${name}" is not a reporter; choose one of ${names} (NAME or NAME=FILE)`);
  }
  if (file === '')
    throw new InvalidArgumentError(
      `--reporter ${name}= names no file; give one (--reporter ${name}=FILE), or write --reporter ${name} for stdout`,
    );
  return [...prev, { name, ...(file !== undefined ? { file } : {}) }];
}

/** Reporters whose output fits a GitHub step summary. */
const STEP_SUMMARY_REPORTERS: ReadonlySet<string> = new Set(['markdown']);

/** The markdown reporter with no file goes to a GitHub step summary when the job has one. */
const destination = (c: ReporterChoice, env: NodeJS.ProcessEnv): { file?: string; append: boolean } =>
  c.file !== undefined
    ? { file: c.file, append: false }
    : STEP_SUMMARY_REPORTERS.has(c.name) && env.GITHUB_STEP_SUMMARY
      ? { file: env.GITHUB_STEP_SUMMARY, append: true }
      : { append: false };

/**
 * The reporters a command will use (`--json` is `--reporter json`), checked before anything runs: at most one takes
 * stdout, and every file can be written. A file adds to the terminal report: unless a reporter (or `none`) takes
 * stdout, the terminal report prints there, first. A mistake here is the user's (exit 2).
 */
export function chooseReporters(
  flags: { reporter?: ReporterChoice[]; json?: boolean },
  io: Pick<ReportIo, 'env' | 'cwd'>,
): ReporterChoice[] {
  const { env, cwd } = io;
  const chosen: ReporterChoice[] = [...(flags.reporter ?? []), ...(flags.json ? [{ name: 'json' as const }] : [])];
  const problems = new ProblemList();
  const toStdout = chosen.filter((c) => destination(c, env).file === undefined);
  const choices: ReporterChoice[] = toStdout.length ? chosen : [{ name: 'terminal' }, ...chosen];
  const empty = toStdout.find((c) => c.name === NO_STDOUT);
  if (empty && toStdout.length > 1) {
    const others = toStdout
      .filter((c) => c !== empty)
      .map((c) => c.name)
      .join(' and ');
    const todo = 'drop one of them, or give the reporter a file: --reporter NAME=FILE';
    problems.add({ file: '--reporter', what: `${NO_STDOUT} keeps stdout empty, and ${others} would print there`, todo });
  } else if (toStdout.length > 1) {
    problems.add({
      file: '--reporter',
      what: `${toStdout.map((c) => c.name).join(' and ')} would both print to stdout`,
      todo: 'give all but one a file: --reporter NAME=FILE',
    });
  }
  const files = new Map<string, string>();
  for (const c of choices) {
    const { file } = destination(c, env);
    if (file === undefined) continue;
    const path = fromFolder(cwd, file);
    const same = files.get(path);
    if (same)
      problems.add({ file: '--reporter', what: `${same} and ${c.name} would both write ${file}`, todo: 'give each reporter its own file' });
    files.set(path, c.name);
    const why = existsSync(path) ? wrongEntry(file, 'file', cwd) : unwritableFolder(dirname(file), { mustExist: false, cwd });
    if (why) problems.add({ file: `--reporter ${c.name}=${file}`, what: why, todo: 'name a file in a folder you can write to' });
  }
  problems.throwIfAny();
  return choices;
}

/**
 * Human lines (where the run folder is, how to resume, which files were written) go to stdout only beside the
 * terminal report: a document printed there, or `none`, keeps stdout to itself.
 */
export function humanStream(choices: readonly ReporterChoice[], io: ReportIo): NodeJS.WritableStream {
  const printed = choices.filter((c) => destination(c, io.env).file === undefined);
  return printed.every((c) => c.name === 'terminal') ? io.stdout : io.stderr;
}

/** The reporters that render something (`none` renders nothing). */
const rendering = (choices: readonly ReporterChoice[]) =>
  choices.filter((c): c is Extract<ReporterChoice, { name: ReporterName }> => c.name !== NO_STDOUT);

export const needsTranscripts = (choices: readonly ReporterChoice[]) =>
  rendering(choices).some((c) => REPORTERS[c.name]({ colour: false }).needsTranscripts);

/**
 * The canonical transcripts of a run's graded trials, for the reporters that show them. A trial whose file cannot
 * be read any more is simply left out of the drill-down: its outcome still stands.
 */
export async function readTranscripts(
  store: RunStore,
  manifest: RunManifest,
  outcomes: readonly TrialOutcome[],
): Promise<Map<string, Transcript>> {
  const read = await pMap(
    outcomes,
    async (o) => {
      const t = await readStoredTranscript(store, manifest, o);
      return t.ok ? ([trialKey(o), t.transcript] as const) : undefined;
    },
    { concurrency: 32 },
  );
  return new Map(read.filter((x) => x !== undefined));
}

/**
 * Renders and writes every chosen report. One reporter failing (a full disk, a bug) never costs the others their
 * output: each failure is named on stderr and the caller learns that one failed.
 */
export async function writeReports(
  choices: readonly ReporterChoice[],
  render: (r: Reporter) => string,
  io: ReportIo,
): Promise<{ failed: string[] }> {
  const failed: string[] = [];
  const human = humanStream(choices, io);
  for (const c of rendering(choices)) {
    const { file, append } = destination(c, io.env);
    const reporter = REPORTERS[c.name]({ colour: file === undefined && io.stdout.isTTY === true && !io.env.NO_COLOR });
    try {
      const text = render(reporter);
      if (file === undefined) io.stdout.write(text);
      else {
        const path = fromFolder(io.cwd, file);
        mkdirSync(dirname(path), { recursive: true });
        if (append) appendFileSync(path, text);
        else await writeFileWhole(path, text);
        human.write(`${append ? 'appended to' : 'wrote'} ${file} (${c.name})\n`);
      }
    } catch (e) {
      failed.push(c.name);
      io.stderr.write(
        `skillprobe: the ${c.name} report could not be ${file === undefined ? 'printed' : `written to ${file}`}: ${(e as Error).message}\n`,
      );
    }
  }
  return { failed };
}

/** Refuses, before anything runs, a chosen reporter that has no report of this kind (`renderTune`, `renderRejudge`). */
export function refuseReportersWithout(
  choices: readonly ReporterChoice[],
  render: 'renderTune' | 'renderMutate' | 'renderRejudge' | 'renderContexts' | 'renderContextComparisons',
  what: string,
): void {
  const able = REPORTER_NAMES.filter((name) => REPORTERS[name]({ colour: false })[render]);
  for (const c of choices) {
    if (c.name !== NO_STDOUT && !REPORTERS[c.name]({ colour: false })[render])
      throw new InputError({
        file: '--reporter',
        what: `the ${c.name} reporter has no ${what} report`,
        todo: `use ${able.length > 1 ? `${able.slice(0, -1).join(', ')} or ` : ''}${able.at(-1)}`,
      });
  }
}

/** What reports say of the agent that ran: its adapter's, by the id run.json records. */
export function agentNotes(manifest: Pick<RunManifest, 'agent'>): AgentNotes {
  const adapter = adapterFor(manifest.agent.id, 'run.json');
  return { refusalFixes: adapter.refusalFixes ?? {}, readEchoPrefix: adapter.grading.readEchoPrefix };
}

/**
 * Every report of one run, with what they need of its agent, and with the transcripts loaded first when a chosen
 * reporter shows them.
 */
export async function reportRun(
  choices: readonly ReporterChoice[],
  run: Omit<ReportInput, 'agentNotes' | 'transcripts'>,
  store: RunStore,
  io: ReportIo,
): Promise<{ failed: string[] }> {
  const transcripts = needsTranscripts(choices) ? await readTranscripts(store, run.manifest, run.results.outcomes) : undefined;
  const input: ReportInput = { ...run, agentNotes: agentNotes(run.manifest), ...(transcripts ? { transcripts } : {}) };
  return writeReports(choices, (r) => r.render(input), io);
}

/** One of several runs reported together, as its own report's input. */
const reportInputOf = (r: FinishedRun, io: ReportIo): ReportInput => ({
  manifest: r.manifest,
  results: r.results,
  runDir: describeRunDir(r.store, io.cwd),
  agentNotes: agentNotes(r.manifest),
});

/** The report of a folder of several runs (agents.json): each run's folder, and those planned with nothing to report. */
type ReportSeveral = (
  dir: string,
  runs: readonly FinishedRun[],
  missing: MissingAgent[],
  reporters: readonly ReporterChoice[],
  io: ReportIo,
) => Promise<{ failed: string[] }>;

/** The context a run of `--context lab,field` ran in: its config's (each case's own was set aside for it). */
const contextOfRun = (r: FinishedRun): Context => r.manifest.config.context ?? 'lab';

/** One report of one agent's runs in the lab and in the field: each context's report, and each case's difference. */
export const reportContexts: ReportSeveral = (dir, runs, missing, reporters, io) => {
  const ran = runs.map((r) => ({ run: r, context: contextOfRun(r) }));
  const lab = ran.find((r) => r.context === 'lab')?.run.results;
  const field = ran.find((r) => r.context === 'field')?.run.results;
  const confidence = (lab ?? field)?.summary.confidence ?? 0.95;
  const input: ContextsReportInput = {
    runDir: describeRunDir({ dir }, io.cwd),
    runs: ran.map(({ run, context }) => ({ ...reportInputOf(run, io), context })),
    rows: lab && field ? contextDifference(lab, field, confidence) : [],
    confidence,
    missing,
  };
  return writeReports(reporters, (r) => r.renderContexts!(input), io);
};

/** One report of several agents' runs: each agent's report, the agents × cases matrix, and the agents missing. */
export const reportAgents: ReportSeveral = (dir, runs, missing, reporters, io) => {
  const input = {
    runDir: describeRunDir({ dir }, io.cwd),
    runs: runs.map((r) => reportInputOf(r, io)),
    matrix: agentMatrix(runs.map((r) => r.results)),
    missing,
  };
  return writeReports(reporters, (r) => r.renderAgents(input), io);
};

/** The description's change as a unified diff of SKILL.md, or '' when the original stays (or the file is gone). */
async function resultDiff(r: TuneRecord, cwd: string): Promise<string> {
  if (r.result === undefined || r.result === r.original || !existsSync(r.skillFile)) return '';
  const now = await readFile(r.skillFile, 'utf8');
  const old = r.written ? rewriteDescription(now, r.skillFile, r.original) : now;
  const tuned = r.written ? now : rewriteDescription(now, r.skillFile, r.result);
  const shown = shownFrom(cwd, r.skillFile);
  return createTwoFilesPatch(shown, shown, old, tuned, 'original', r.written ? 'written' : 'tuned (pass --write to write it)', {
    headerOptions: FILE_HEADERS_ONLY,
  });
}

/**
 * Comparisons context by context in every chosen reporter, what each lacks named on stderr; the exit code is the worst
 * of theirs, and a context one side has no run for is missing data (at least exit 4).
 */
export async function reportContextComparisons(
  input: ContextComparisons,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const { failed } = await writeReports(reporters, (r) => r.renderContextComparisons!(input), io);
  for (const { context, comparison } of input.comparisons)
    for (const m of comparison.missingData) io.stderr.write(`missing data in ${context}: ${m}\n`);
  for (const m of input.missing) io.stderr.write(`missing data: context ${m.context} not compared, ${m.why}\n`);
  const incomplete = input.missing.length > 0 || input.comparisons.some((c) => c.comparison.missingData.length);
  if (incomplete) io.stderr.write('the comparison is incomplete: finish the runs (`skillprobe run --resume DIR`), then compare again\n');
  const exitCodes = input.comparisons.map((c) => c.comparison.exitCode);
  return { exitCode: worstExitCode([EXIT.pass, ...exitCodes, ...(input.missing.length ? [EXIT.error] : [])]), failed };
}

/** A comparison in every chosen reporter, its missing data named on stderr; its exit code. */
export async function reportComparison(
  comparison: Comparison,
  reporters: readonly ReporterChoice[],
  io: ReportIo,
): Promise<{ exitCode: number; failed: string[] }> {
  const { failed } = await writeReports(reporters, (r) => r.renderComparison(comparison), io);
  for (const m of comparison.missingData) io.stderr.write(`missing data: ${m}\n`);
  return { exitCode: comparison.exitCode, failed };
}

/** What a tune's reports are rendered from: its record, its folder as the user named it, the description's diff. */
export const tuneReportInput = async (dir: string, record: TuneRecord, cwd: string): Promise<TuneReportInput> => ({
  record,
  dir: describeRunDir({ dir }, cwd),
  diff: await resultDiff(record, cwd),
});
