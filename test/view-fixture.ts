import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunStore, writeAgentRuns } from '../src/run/store.js';
import { MUTATE_FILE, mutateRecordSchema } from '../src/run/mutate-schema.js';
import { TUNE_FILE } from '../src/run/tune-schema.js';
import { ClaudeStream } from './claude-stream.js';
import { judgedRunFolder } from './judged-run-fixture.js';
import { TUNE_RECORD } from './tune-fixture.js';
import { storeSyntheticRun, storeTrial, syntheticRun, trialMeta } from './run-fixtures.js';

/** Text a transcript may hold that must reach a page as text, never as markup. */
export const INJECTION = '</script><img src=x onerror=alert(1)><script>alert(2)</script>';

/** The runs of the view's transcripts folder, by what each is there for. */
export const VIEW_RUNS = {
  older: '20261201-000000-aaaaaa',
  newer: '20261202-000000-bbbbbb',
  damaged: '20261203-000000-dddddd',
  running: '20261204-000000-eeeeee',
  judged: 'judged',
  huge: '20261130-000000-ffffff',
  tune: 'tune-20261202-100000-aaaaaa',
  mutate: 'mutate-20261203-100000-bbbbbb',
  agents: '20261202-120000-cccccc',
} as const;

/** A mutant's folder its mutate.json names that climbs out of the transcripts folder: never linked nor served. */
export const CLIMBING_MUTANT = '../../../etc';

/**
 * A tune folder and a mutate folder as their commands leave them, each beside the runs it made (regular run folders
 * inside it): the runs TUNE_RECORD names but the proposer of the candidate lint refused; the mutate's unmutated run,
 * a mutant it ran, one the checks refused, one not run yet, and one whose recorded folder climbs out (CLIMBING_MUTANT);
 * and a run of two agents.
 */
export async function recordFolders(dir: string): Promise<void> {
  const run = (passes: number) => syntheticRun({ login: { passes, n: 4 } });
  const at = async (folder: string, rel: string, passes: number) => {
    const parts = rel.split('/');
    await storeSyntheticRun(join(dir, folder, ...parts.slice(0, -1)), parts.at(-1)!, run(passes));
  };
  const tune = { ...TUNE_RECORD, tuneId: VIEW_RUNS.tune };
  for (const [rel, passes] of [
    ['iterations/0/tune', 2],
    ['iterations/0/select', 2],
    ['iterations/2/proposer', 1],
    ['iterations/2/tune', 4],
    ['iterations/2/select', 4],
    ['holdout/original', 2],
    ['holdout/winner', 4],
  ] as const)
    await at(VIEW_RUNS.tune, rel, passes);
  writeFileSync(join(dir, VIEW_RUNS.tune, TUNE_FILE), JSON.stringify(tune));

  const mutant = (operator: string, over: object) => ({ skill: 'atl-jira', operator, ...over });
  const mutate = mutateRecordSchema.parse({
    version: 1,
    mutateId: VIEW_RUNS.mutate,
    status: 'completed',
    startedAt: '2026-12-03T10:00:00Z',
    agent: 'claude-code',
    model: 'sonnet',
    simulator: null,
    skills: ['atl-jira'],
    operators: ['empty-body', 'drop-use-when', 'skill-removed', 'first-clause'],
    familyHash: 'f',
    alpha: 0.05,
    base: { dir: 'original', given: false, status: 'completed' },
    mutants: [
      mutant('skill-removed', { dir: 'atl-jira/skill-removed', status: 'completed', trials: 4, noticed: true, pValue: 0.01 }),
      mutant('drop-use-when', { refused: 'description: empty' }),
      mutant('empty-body', {}),
      mutant('first-clause', { dir: CLIMBING_MUTANT, status: 'completed', trials: 4, noticed: false, pValue: 0.5 }),
    ],
    trials: 8,
  });
  await at(VIEW_RUNS.mutate, 'original', 4);
  await at(VIEW_RUNS.mutate, 'atl-jira/skill-removed/run', 0);
  writeFileSync(join(dir, VIEW_RUNS.mutate, MUTATE_FILE), JSON.stringify(mutate));

  const agents = join(dir, VIEW_RUNS.agents);
  for (const id of ['claude-code', 'codex'])
    await storeSyntheticRun(agents, `${VIEW_RUNS.agents}-${id}`, syntheticRun({ review: { passes: id === 'codex' ? 4 : 3, n: 4 } }));
  await writeAgentRuns(agents, {
    version: 1,
    runId: VIEW_RUNS.agents,
    startedAt: '2026-12-02T12:00:00Z',
    agents: ['claude-code', 'codex'].map((id) => ({
      id,
      dir: `${VIEW_RUNS.agents}-${id}`,
      binary: id,
      model: 'claude-sonnet-4-5',
      status: 'completed' as const,
    })),
  });
}

/**
 * A transcripts folder written by hand under `root` (nothing spawned): two runs of cases `login` and `search` by
 * different models (login's rate falls), a damaged one (run.json cut off), one still running (this process its
 * writer, no results.json), and a judged run as if simulated (`sim.yaml` beside it). The newer run's first login
 * trial says INJECTION; with `hugeBytes`, the oldest run, of case `huge`, has one trial of that many bytes of text;
 * with `records`, a tune and a mutate (recordFolders).
 */
export async function viewTranscripts(root: string, o: { hugeBytes?: number; records?: boolean } = {}): Promise<string> {
  const dir = join(root, 'transcripts');
  const dated = (day: number, run: ReturnType<typeof syntheticRun>) => ({
    ...run,
    manifest: { ...run.manifest, startedAt: `2026-12-0${day}T00:00:00.000Z` },
  });
  await storeSyntheticRun(
    dir,
    VIEW_RUNS.older,
    dated(1, syntheticRun({ login: { passes: 9, n: 10 }, search: { passes: 5, n: 10 } }, { model: 'claude-sonnet-4-5' })),
  );
  const newer = await storeSyntheticRun(
    dir,
    VIEW_RUNS.newer,
    dated(2, syntheticRun({ login: { passes: 3, n: 10 }, search: { passes: 5, n: 10 } }, { model: 'claude-opus-4-1' })),
  );
  writeFileSync(join(newer, 'trials/login/skill/1.jsonl'), new ClaudeStream().skill('atl-jira').text(INJECTION).result().raw());
  if (o.hugeBytes) {
    const huge = await storeSyntheticRun(dir, VIEW_RUNS.huge, dated(1, syntheticRun({ huge: { passes: 1, n: 1 } })));
    const line = new ClaudeStream().text('x'.repeat(4000)).raw();
    const body = line.repeat(Math.ceil(o.hugeBytes / line.length));
    writeFileSync(
      join(huge, 'trials/huge/skill/1.jsonl'),
      new ClaudeStream().skill('atl-jira').raw() + body + new ClaudeStream().result().raw(),
    );
  }
  mkdirSync(join(dir, VIEW_RUNS.damaged));
  writeFileSync(join(dir, VIEW_RUNS.damaged, 'run.json'), '{"version": 1, "runId": "cut');
  const running = syntheticRun({ login: { passes: 1, n: 1 } }, { model: 'claude-sonnet-4-5' });
  const live = await RunStore.create(dir, VIEW_RUNS.running);
  await live.writeManifest({
    ...running.manifest,
    runId: VIEW_RUNS.running,
    status: 'running',
    owner: { pid: process.pid, host: hostname() },
    startedAt: '2026-12-04T00:00:00.000Z',
  });
  await storeTrial(
    live,
    { caseId: 'login', arm: 'skill', n: 1 },
    new ClaudeStream().skill('atl-jira').text('ok').result().raw(),
    trialMeta(),
  );
  await judgedRunFolder(dir, { trials: 3 });
  if (o.records) await recordFolders(dir);
  return dir;
}

/** Stores one more trial of the running run, as the run would. */
export async function landTrial(dir: string, n: number): Promise<void> {
  const { store } = await RunStore.open(join(dir, VIEW_RUNS.running));
  await storeTrial(
    store,
    { caseId: 'login', arm: 'skill', n },
    new ClaudeStream().skill('atl-jira').text('ok').result().raw(),
    trialMeta(),
  );
}
