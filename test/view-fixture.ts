import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../src/run/store.js';
import { ClaudeStream } from './claude-stream.js';
import { judgedRunFolder } from './judged-run-fixture.js';
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
} as const;

/**
 * A transcripts folder written by hand under `root` (nothing spawned): two runs of cases `login` and `search` by
 * different models (login's rate falls), a damaged one (run.json cut off), one still running (this process its
 * writer, no results.json), and a judged run as if simulated (`sim.yaml` beside it). The newer run's first login
 * trial says INJECTION; with `hugeBytes`, the oldest run, of case `huge`, has one trial of that many bytes of text.
 */
export async function viewTranscripts(root: string, o: { hugeBytes?: number } = {}): Promise<string> {
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
