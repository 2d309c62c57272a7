import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { paragraph, REPORT_WIDTH, table, usd } from '../report/format.js';
import { readResultsSync, RunFolderError, RunStore } from '../run/store.js';
import { AGENT_RUNS_FILE, type Results, type RunManifest } from '../run/schema.js';
import { rateNotes, verdictCounts, verdictRate } from '../report/wording.js';
import { InputError } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';

export interface HistoryRow {
  runId: string;
  manifest?: RunManifest;
  results?: Results;
  /** Why the folder could not be read, or why it has no results. */
  problem?: string;
}

/** Every run folder in `transcriptsDir`, newest first; an unreadable one is a row that says why, never a crash. */
export async function readHistory(transcriptsDir: string, cwd: string): Promise<HistoryRow[]> {
  if (!existsSync(fromFolder(cwd, transcriptsDir)))
    throw new InputError({
      file: transcriptsDir,
      what: 'no such transcripts folder',
      todo: 'run the suite first, or point --transcripts at the folder that holds run folders',
    });
  // A run of several agents holds one run folder per agent: each is a row of its own, named `<run>/<agent's run>`.
  const runsIn = (dir: string, prefix = ''): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        existsSync(join(dir, d.name, 'run.json'))
          ? [prefix + d.name]
          : !prefix && existsSync(join(dir, d.name, AGENT_RUNS_FILE))
            ? runsIn(join(dir, d.name), `${d.name}/`)
            : [],
      );
  const ids = runsIn(fromFolder(cwd, transcriptsDir)).sort().reverse();
  return Promise.all(
    ids.map(async (runId): Promise<HistoryRow> => {
      const dir = join(transcriptsDir, runId);
      try {
        const { store, manifest } = await RunStore.open(dir, cwd);
        const stored = readResultsSync(store.dir);
        return stored.ok
          ? { runId, manifest, results: stored.value }
          : { runId, manifest, problem: `results.json ${stored.problem}: \`skillprobe grade ${dir}\`` };
      } catch (e) {
        if (e instanceof RunFolderError) return { runId, problem: e.message };
        throw e;
      }
    }),
  );
}

/** The run's id, and under it who ran it: the agent, its CLI version, the model, and the run's status. */
function runCell(r: HistoryRow, facts: readonly string[]): string {
  return `${r.runId}\n  ${facts.join(' · ')}`;
}

const modelOf = (m: RunManifest) => `${m.reportedModel ?? m.model}${m.simulator ? ' (SIM)' : ''}`;

/** The runs, newest first: who ran them, what came out, what they cost; a run that could not be read, why, below. Pure. */
export function renderHistory(rows: readonly HistoryRow[]): string {
  if (rows.length === 0) return 'no runs in this transcripts folder\n';
  const body = rows.map((r) => {
    const m = r.manifest;
    const res = r.results;
    return [
      runCell(r, m ? [`${m.agent.id} ${m.agent.cliVersion ?? '?'}`, modelOf(m), m.status] : ['?']),
      res ? verdictCounts(res.verdicts) : 'see below',
      res ? String(res.outcomes.length) : m ? String(m.trials.finished) : '?',
      usd(res?.run.costUsd),
    ];
  });
  const problems = rows.flatMap((r) => (r.problem && !r.results ? [paragraph(`${r.runId}: ${r.problem}`)] : []));
  const head = ['run\n  agent · model · status', 'verdicts', 'trials', 'cost'];
  const runs = table([head, ...body], ['l', 'l', 'r', 'r'], { maxWidth: REPORT_WIDTH, wrap: ['id', 'word'] });
  return [runs, ...(problems.length ? ['', ...problems] : [])].join('\n') + '\n';
}

/** One case across runs, newest first: its verdict and the rate it stands on, as each run's report shows it. Pure. */
export function renderCaseHistory(rows: readonly HistoryRow[], caseId: string): string {
  const seen = rows.filter((r) => r.results?.verdicts.some((v) => v.caseId === caseId));
  if (seen.length === 0)
    throw new InputError({
      file: '--case',
      what: `no graded run has a case "${caseId}"`,
      todo: 'check the case id (skillprobe history lists the runs)',
    });
  const body = seen.map((r) => {
    const res = r.results!;
    const v = res.verdicts.find((x) => x.caseId === caseId)!;
    const s = res.summary.cases.find((x) => x.caseId === caseId && x.arm === 'skill');
    const cost = res.outcomes
      .filter((o) => o.caseId === caseId)
      .map((o) => o.costUsd)
      .filter((c): c is number => c !== undefined);
    return [
      runCell(r, [modelOf(r.manifest!)]),
      v.verdict,
      verdictRate(v, s),
      s ? `${s.rate.successes}/${s.rate.n}` : '—',
      usd(cost.length ? cost.reduce((a, b) => a + b, 0) : undefined),
    ];
  });
  const notes = rateNotes(seen.map((r) => r.results!.verdicts.find((x) => x.caseId === caseId)!)).map((n) => paragraph(n));
  const head = ['run\n  model', 'verdict', 'rate [CI]', 'passes', 'cost'];
  const runs = table([head, ...body], ['l', 'l', 'l', 'r', 'r'], { maxWidth: REPORT_WIDTH, wrap: ['id', 'word', 'word'] });
  return [paragraph(`case ${caseId}, newest first (skill arm)`), runs, ...notes].join('\n') + '\n';
}
