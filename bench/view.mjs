// bench/view: `skillprobe view` over a transcripts folder of 1,000 runs (10 cases × 20 trials each, results.json of
// about the size a real run writes), wall and CPU time, with the machine's load beside them (it may be shared):
//   served:      the target, `skillprobe view DIR` started as a user starts it, from the process's start to the
//                list's first page (`/`) served over HTTP (the newest runs' summaries only), median of VIEW_STARTS
//                starts (5): cold (no index beside the runs) and next start (the index the one before left), and
//                the same page asked again of a started view (warm);
//   in process:  the app from its import (each probe a fresh process): the first page beside reading every run
//                first, as `history` does; a filter over every run (`/?q=opus`) the first time, and again.
// VIEW_RUNS sets the number of runs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, median } from './lib.mjs';

const RUNS = Number(process.env.VIEW_RUNS ?? 1000);
const STARTS = Number(process.env.VIEW_STARTS ?? 5);
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const INDEX = '.skillprobe-view-index.json';
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
  const { readHistory } = await import('../dist/runner/history.js');
  const rows = await readHistory(root, root);
  console.log(JSON.stringify([{ path: 'history', rows: rows.length, ms: performance.now() - t0, cpu: cpuMs(c0) }]));
}

/** A process's CPU time so far in ms, from /proc (Linux; NaN elsewhere). */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** `skillprobe view root` from its process's start to its first page served, then that page again; stopped with Ctrl-C. */
async function served(root) {
  const t0 = performance.now();
  const view = spawn(process.execPath, [CLI, 'view', root], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    const url = await new Promise((resolve, reject) => {
      view.stdout.on('data', (d) => {
        out += d;
        const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
        if (m) resolve(m[0]);
      });
      view.once('exit', (code) => reject(new Error(`view exited ${code}: ${out}`)));
    });
    const first = await fetch(url);
    if (first.status !== 200) throw new Error(`/: ${first.status}`);
    await first.text();
    const ms = performance.now() - t0;
    const cpu = processCpuMs(view.pid);
    const t1 = performance.now();
    await (await fetch(url)).text();
    return { ms, cpu, warmMs: performance.now() - t1 };
  } finally {
    view.kill('SIGINT');
  }
}

async function starts(root, keepIndex) {
  const load = loadavg()[0];
  const runs = [];
  for (let i = 0; i < STARTS; i++) {
    if (!keepIndex) rmSync(join(root, INDEX), { force: true });
    runs.push(await served(root));
    // The index is written once the first page is read; give the stopped view a moment to leave.
    await new Promise((r) => setTimeout(r, 300));
  }
  return { ms: median(runs.map((r) => r.ms)), cpu: median(runs.map((r) => r.cpu)), warmMs: median(runs.map((r) => r.warmMs)), load };
}

export async function benchView() {
  const root = mkdtempSync(join(tmpdir(), 'sp-bench-view-'));
  try {
    await writeFolder(root);
    const self = fileURLToPath(import.meta.url);
    const run = async (...args) => JSON.parse((await measure(process.execPath, [self, ...args])).stdout);
    const cold = await starts(root, false);
    // A filter reads every run: the index a view left after a while.
    await run('probe', root, '/?q=opus');
    const nextStart = await starts(root, true);
    rmSync(join(root, INDEX), { force: true });
    const history = await run('history', root);
    const list = await run('probe', root, '/', '/?q=opus', '/?q=opus');
    const next = await run('probe', root, '/', '/?q=opus');
    return { runs: RUNS, cold, nextStart, list, next, history };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function printView({ runs, cold, nextStart, list, next, history }) {
  const [first, filter, again] = list;
  const t = (x, since = false) =>
    `${(since ? x.sinceStart : x.ms).toFixed(0).padStart(6)} ms wall, ${(since ? x.cpuSinceStart : x.cpu).toFixed(0).padStart(5)} ms CPU`;
  console.log(`\nview: a transcripts folder of ${runs} runs (${CASES} cases × ${TRIALS} trials each)`);
  console.log(`  skillprobe view, process start to its first page served, median of ${STARTS} starts:`);
  console.log(`    cold (no index):                        ${t(cold)} (target < 1000 ms; load ${cold.load.toFixed(1)})`);
  console.log(`    next start (its index):                 ${t(nextStart)} (load ${nextStart.load.toFixed(1)})`);
  console.log(`    the page again (warm):                  ${cold.warmMs.toFixed(0).padStart(6)} ms wall`);
  console.log(`  in process, from the app's import, each probe a fresh process:`);
  console.log(`  cold: first page (/) from the import:     ${t(first, true)}`);
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
