// bench/demo: wall time of the demo run (`npm run demo` without its build step); target ≤ 60 s on an idle 2-core machine.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, median } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const TARGET_S = 60;
const RUNS = Number(process.env.DEMO_RUNS ?? 3);

export async function benchDemo() {
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const work = mkdtempSync(join(tmpdir(), 'sp-bench-demo-'));
    try {
      const r = await measure(
        'node',
        [join(ROOT, 'dist', 'cli.js'), 'run', '--sim', 'sim/demo.profile.yaml', '--no-gate', '--transcripts', work],
        { cwd: ROOT },
      );
      if (r.code !== 0) throw new Error(`demo failed (exit ${r.code}): ${r.stderr.slice(-2000)}`);
      const results = JSON.parse(readFileSync(join(work, readdirSync(work)[0], 'results.json'), 'utf8'));
      rows.push({ seconds: r.ms / 1000, trials: results.outcomes.length });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return rows;
}

export function printDemo(rows) {
  const s = median(rows.map((r) => r.seconds));
  console.log(`\nbench/demo · ${rows.length} runs of the demo (SIMULATOR, real Claude Code CLI, concurrency 2)`);
  for (const r of rows) console.log(`  ${r.trials} trials in ${r.seconds.toFixed(1)} s (${(r.seconds / r.trials).toFixed(2)} s per trial)`);
  console.log(`  median ${s.toFixed(1)} s · ratio to the ${TARGET_S} s target ${(s / TARGET_S).toFixed(2)} (≤ 1 meets it)`);
}

if (import.meta.url === `file://${process.argv[1]}`) printDemo(await benchDemo());
