// bench/view: `skillprobe view` over a transcripts folder of 1,000 runs (10 cases × 20 trials each, results.json of
// about the size a real run writes), each figure from a fresh process, wall and CPU time (the machine may be shared):
//   cold start:  no index yet: the list as a browser first asks for it (`/`), the newest runs' summaries only, the
//                target (under a second) beside reading every run first, as `history` does; then a filter over
//                every run (`/?q=opus`) the first time, and again (the summaries kept);
//   next start:  the index the first start left beside the runs (.skillprobe-view-index.json): the list and a filter.
// VIEW_RUNS sets the number of runs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './lib.mjs';

const RUNS = Number(process.env.VIEW_RUNS ?? 1000);
const CASES = 10;
const TRIALS = 20;

export async function writeFolder(root) {
  const { configSchema } = await import('../dist/run/config-schema.js');
  const { buildResults } = await import('../dist/verdict/results.js');
  const { RUN_FORMAT_VERSION } = await import('../dist/run/schema.js');
  const decision = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 50 };
  const defs = Array.from({ length: CASES }, (_, i) => ({ id: `case-${i}`, expect: 'atl-jira', exclusive: false, tags: [], decision }));
  const manifest = (runId, model) => ({
    version: RUN_FORMAT_VERSION,
    runId,
    harness: { name: 'skillprobe', version: '0.1.0' },
    status: 'completed',
    startedAt: '2026-11-30T00:00:00.000Z',
    agent: { id: 'claude-code', binary: 'claude', cliVersion: '2.1.197' },
    model,
    config: configSchema.parse({ arms: ['skill'], decision: { mode: 'fixed' } }),
    skills: [{ dir: 'atl-jira', name: 'atl-jira', hash: 'h' }],
    skillsHash: 'x',
    cases: { files: [], hash: 'y', defs },
    family: [{ dir: 'atl-jira', name: 'atl-jira' }],
    simulator: null,
    trials: { planned: CASES * TRIALS, finished: CASES * TRIALS, notStarted: 0 },
  });
  const outcomes = defs.flatMap((c, i) =>
    Array.from({ length: TRIALS }, (_, k) => {
      const passed = k % (i + 2) !== 0;
      const column = passed ? 'atl-jira' : 'none';
      return {
        caseId: c.id,
        arm: 'skill',
        n: k + 1,
        status: 'ok',
        passed,
        firings: passed ? [{ skill: 'atl-jira', requested: 'atl-jira', via: 'invoke', callId: `call_${k}`, at: 1, status: 'loaded' }] : [],
        firedColumn: column,
        fired: passed ? 'expected' : 'none',
        readOnly: false,
        flags: { noop: false, clarifying: false },
        parseWarnings: 0,
        wallMs: 5000,
        costUsd: 0.01,
      };
    }),
  );
  for (let i = 0; i < RUNS; i++) {
    const runId = `20261201-${String(100000 + i)}-${(i * 7919).toString(16).padStart(6, '0').slice(-6)}`;
    const m = manifest(runId, i % 2 ? 'claude-opus-4-1' : 'claude-sonnet-4-5');
    const dir = join(root, runId);
    mkdirSync(join(dir, 'trials'), { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(m, null, 2));
    const results = buildResults(m, outcomes, [], new Date('2026-11-30T00:10:00Z'));
    writeFileSync(join(dir, 'results.json'), JSON.stringify({ ...results, version: RUN_FORMAT_VERSION }, null, 2));
  }
}

/** In a process of its own: the view's app from its import, asked `paths` in turn; prints each answer's ms. */
async function probe(root, paths) {
  const [t0, c0] = [performance.now(), process.cpuUsage()];
  const { viewApp } = await import('../dist/commands/view.js');
  const app = viewApp({ transcriptsDir: root, cwd: root, labeller: 'bench', port: () => 1 });
  const times = [];
  for (const p of paths) {
    const [t, c] = [performance.now(), process.cpuUsage()];
    const r = await app.request(p, { headers: { host: '127.0.0.1:1' } });
    if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
    await r.text();
    times.push({ path: p, ms: performance.now() - t, cpu: cpuMs(c), sinceStart: performance.now() - t0, cpuSinceStart: cpuMs(c0) });
  }
  console.log(JSON.stringify(times));
}

const cpuMs = (since) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

async function probeHistory(root) {
  const [t0, c0] = [performance.now(), process.cpuUsage()];
  const { readHistory } = await import('../dist/commands/history.js');
  const rows = await readHistory(root, root);
  console.log(JSON.stringify([{ path: 'history', rows: rows.length, ms: performance.now() - t0, cpu: cpuMs(c0) }]));
}

export async function benchView() {
  const root = mkdtempSync(join(tmpdir(), 'sp-bench-view-'));
  try {
    await writeFolder(root);
    const self = fileURLToPath(import.meta.url);
    const run = async (...args) => JSON.parse((await measure(process.execPath, [self, ...args])).stdout);
    const history = await run('history', root);
    const list = await run('probe', root, '/', '/?q=opus', '/?q=opus');
    const next = await run('probe', root, '/', '/?q=opus');
    return { runs: RUNS, list, next, history };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function printView({ runs, list, next, history }) {
  const [first, filter, again] = list;
  const t = (x, since = false) =>
    `${(since ? x.sinceStart : x.ms).toFixed(0).padStart(6)} ms wall, ${(since ? x.cpuSinceStart : x.cpu).toFixed(0).padStart(5)} ms CPU`;
  console.log(`\nview: a transcripts folder of ${runs} runs (${CASES} cases × ${TRIALS} trials each), each probe a fresh process`);
  console.log(`  cold: first page (/) from the start:      ${t(first, true)} (target < 1000 ms)`);
  console.log(`        every run read first, as history:   ${t(history[0])}`);
  console.log(`        a filter over every run, first:     ${t(filter)}`);
  console.log(`        the same filter again:              ${t(again)}`);
  console.log(`  next start, from its index: first page:   ${t(next[0], true)}`);
  console.log(`        a filter over every run:            ${t(next[1])}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, root, ...paths] = process.argv.slice(2);
  if (mode === 'probe') await probe(root, paths);
  else if (mode === 'history') await probeHistory(root);
  else printView(await benchView());
}
