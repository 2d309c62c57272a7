// bench/concurrency-real: `concurrency: auto` through the real Codex CLI against skillprobe's simulator acting as a
// provider with limits (latency, a cap of concurrent requests answered 429 with Retry-After), beside fixed limits, in
// one run: 150 trials by default (CONC_REAL_CASES × CONC_REAL_TRIALS; CONC_REAL_LIMITS picks the limits). A check of the
// integrated runner at the scale; bench/concurrency sweeps every fixed limit on a virtual clock.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;
const CASES = Number(process.env.CONC_REAL_CASES ?? 30);
const TRIALS = Number(process.env.CONC_REAL_TRIALS ?? 5);
const CAP = 6;
const LIMITS = (process.env.CONC_REAL_LIMITS ?? '2,6,12,auto').split(',').map((l) => (l === 'auto' ? l : Number(l)));

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-conc-'));
  mkdirSync(join(dir, 'skills/alpha'), { recursive: true });
  mkdirSync(join(dir, 'cases'));
  writeFileSync(join(dir, 'skills/alpha/SKILL.md'), '---\nname: alpha\ndescription: Handle alpha records.\n---\n# alpha\n');
  const cases = Array.from(
    { length: CASES },
    (_, i) => `- id: c${i}\n  prompt: "question ${i} about the weather"\n  expect: { skill: none }\n`,
  );
  writeFileSync(join(dir, 'cases/main.yaml'), cases.join(''));
  writeFileSync(
    join(dir, 'sim.yaml'),
    `seed: 5\nprovider:\n  concurrency: ${CAP}\n  retryAfterSeconds: 1\n  latency: { medianMs: 2500, p95Ms: 6000 }\n`,
  );
  writeFileSync(join(dir, 'skillprobe.config.yaml'), 'agent: codex\nmodel: sim-model\nretries:\n  cli: 3\n');
  return dir;
}

/** Runs the CLI, keeping each stderr line with when it came (ms from the start). */
function timedRun(args, opts) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('node', args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
    const lines = [];
    let partial = '';
    child.stderr.on('data', (d) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop();
      for (const text of parts) lines.push({ at: performance.now() - t0, text });
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, code, lines, stderr: lines.map((l) => l.text).join('\n') }));
  });
}

/** The ETA the progress line gave once a quarter and a half of the trials were done, against the time that really remained. */
function etaErrors(lines, endMs) {
  const progress = lines.flatMap((l) => {
    const m = /^\[(\d+)\/~(\d+) .* · ETA (?:(\d+)h)?(?:(\d+)m)?(\d+)?s?/.exec(l.text);
    if (!m || !/ETA /.test(l.text)) return [];
    const eta = /ETA (\S+)/.exec(l.text)[1];
    const seconds = (/(\d+)h/.exec(eta)?.[1] ?? 0) * 3600 + (/(\d+)m/.exec(eta)?.[1] ?? 0) * 60 + Number(/(\d+)s$/.exec(eta)?.[1] ?? 0);
    return [{ at: l.at, done: Number(m[1]), total: Number(m[2]), seconds }];
  });
  const total = Math.max(...progress.map((p) => p.total), 1);
  return [0.25, 0.5].map((share) => {
    const p = progress.find((x) => x.done >= share * total);
    if (!p) return { share, error: Number.NaN };
    const remaining = (endMs - p.at) / 1000;
    return { share, error: Math.abs(p.seconds - remaining) / remaining, eta: p.seconds, remaining };
  });
}

export async function benchConcurrencyReal() {
  const rows = [];
  for (const limit of LIMITS) {
    const dir = project();
    try {
      const r = await timedRun(
        [
          join(ROOT, 'dist/cli.js'),
          'run',
          '--sim',
          'sim.yaml',
          '--trials',
          String(TRIALS),
          '--arms',
          'skill',
          '-j',
          String(limit),
          '--transcripts',
          'runs',
          '--no-gate',
        ],
        { cwd: dir, env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'sp-bench-home-')) } },
      );
      const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
      const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8'));
      const refused = (r.stderr.match(/concurrency \d+ → \d+: HTTP 429/g) ?? []).length;
      rows.push({
        limit,
        seconds: r.ms / 1000,
        exit: r.code,
        trials: results.outcomes.length,
        scored: results.outcomes.filter((o) => o.passed !== null).length,
        notOk: results.outcomes.filter((o) => o.status !== 'ok').length,
        cuts: refused,
        trace: results.run.concurrency?.trace ?? [],
        eta: etaErrors(r.lines, r.ms),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function printConcurrencyReal(rows) {
  console.log(
    `\nbench/concurrency-real · ${CASES} cases × ${TRIALS} trials through the real Codex CLI; SIMULATOR as a provider: latency median 2.5 s, p95 6 s, cap ${CAP} concurrent requests (429, Retry-After 1 s)`,
  );
  const fixed = rows.filter((r) => r.limit !== 'auto');
  const best = Math.min(...fixed.map((r) => r.seconds));
  const two = rows.find((r) => r.limit === 2)?.seconds ?? Number.NaN;
  for (const r of rows) {
    const eta = r.eta
      .map((e) => (Number.isNaN(e.error) ? `${e.share * 100}%: no ETA yet` : `${e.share * 100}%: ${(e.error * 100).toFixed(0)}%`))
      .join(', ');
    const extra =
      (r.limit === 'auto'
        ? ` · limit ${[r.trace[0]?.from, ...r.trace.map((c) => c.to)].join('→')} (${r.trace.filter((c) => /^HTTP 429/.test(c.why)).length} cuts on 429)`
        : '') + ` · ETA error at ${eta} of the true remaining (target ≤ 20%)`;
    console.log(
      `  ${String(r.limit).padEnd(5)} ${r.seconds.toFixed(1).padStart(6)} s · ×${(r.seconds / best).toFixed(2)} the best fixed · ×${(r.seconds / two).toFixed(2)} fixed 2 · ${r.trials} trials, ${r.scored} scored, ${r.notOk} not ok · exit ${r.exit}${extra}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printConcurrencyReal(await benchConcurrencyReal());
