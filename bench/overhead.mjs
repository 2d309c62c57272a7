// bench/overhead: the same trial through `skillprobe run` and as a bare `claude -p` with identical flags and
// environment (built by the adapter itself), both against the simulator, alternated over several rounds.
// Targets: harness/bare wall ratio ≤ 1.05 at concurrency 1; throughput at concurrency 2 ≥ 1.8× concurrency 1.
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCode } from '../dist/agents/claude-code/adapter.js';
import { median } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'cli.js');
const N = Number(process.env.OVERHEAD_TRIALS ?? 30);
const ROUNDS = Number(process.env.OVERHEAD_ROUNDS ?? 5);

const SKILL = '---\nname: atl-jira\ndescription: Create and find Jira issues with the atl CLI.\n---\n# atl jira\n\n```bash\natl jira $ARGUMENTS\n```\n';
const PROFILE = 'name: overhead\nseed: 1\nrules:\n  - { case: bench, do: [{ skill: atl-jira, args: "create-issue --project OPS" }] }\n';
const CASES = '- id: bench\n  prompt: "file a bug in OPS"\n  expect: { skill: atl-jira }\n';

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-overhead-'));
  mkdirSync(join(dir, 'skills', 'atl-jira'), { recursive: true });
  mkdirSync(join(dir, 'cases'));
  writeFileSync(join(dir, 'skills', 'atl-jira', 'SKILL.md'), SKILL);
  writeFileSync(join(dir, 'cases', 'bench.yaml'), CASES);
  writeFileSync(join(dir, 'sim.yaml'), PROFILE);
  return dir;
}

async function harness(dir, concurrency) {
  const t0 = performance.now();
  await execa('node', [CLI, 'run', '--sim', 'sim.yaml', '--mode', 'fixed', '--trials', String(N), '--arms', 'skill', '--concurrency', String(concurrency), '--transcripts', 'runs', '--json'], { cwd: dir, stdin: 'ignore', reject: false });
  return performance.now() - t0;
}

/** N bare CLI runs in one prepared workspace, each with the adapter's exact argv and environment. */
async function bare(dir, simUrl) {
  const ws = join(dir, 'bare-ws');
  const home = join(dir, 'bare-home');
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  await execa('git', ['init', '-q', ws]);
  cpSync(join(dir, 'skills', 'atl-jira'), join(ws, '.claude', 'skills', 'atl-jira'), { recursive: true });
  const inv = claudeCode.invocation({ prompt: 'file a bug in OPS', model: 'claude-sonnet-4-5', maxTurns: 8, cliRetries: 2, deadlineMs: 300_000, workspace: ws, home, callerEnv: process.env, simulator: { url: simUrl, headers: { 'x-skillprobe-case': 'bench' } } });
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await execa(inv.file, inv.args, { cwd: ws, env: inv.env, extendEnv: false, stdin: 'ignore', reject: false });
  return performance.now() - t0;
}

export async function benchOverhead() {
  const dir = project();
  const sim = execa('node', [CLI, 'sim', join(dir, 'sim.yaml')], { stdin: 'ignore', buffer: false });
  try {
    const simUrl = await new Promise((resolve, reject) => {
      sim.stdout.on('data', (d) => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(String(d));
        if (m) resolve(m[1]);
      });
      sim.catch(reject);
    });
    const ratio = [];
    const speedup = [];
    const per = { harness: [], bare: [], c2: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so drift on a shared machine hits both sides alike.
      const [h, b] = r % 2 === 0 ? [await harness(dir, 1), await bare(dir, simUrl)] : [...(await bare(dir, simUrl).then(async (b) => [await harness(dir, 1), b]))];
      const c2 = await harness(dir, 2);
      per.harness.push(h / N);
      per.bare.push(b / N);
      per.c2.push(c2 / N);
      ratio.push(h / b);
      speedup.push(h / c2);
    }
    return { n: N, rounds: ROUNDS, ratio: median(ratio), speedup: median(speedup), msHarness: median(per.harness), msBare: median(per.bare), msC2: median(per.c2) };
  } finally {
    sim.kill('SIGTERM');
    await sim.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printOverhead(r) {
  console.log(`overhead  ${r.rounds} alternated rounds of ${r.n} trials (medians): harness ${r.msHarness.toFixed(0)} ms/trial, bare claude -p ${r.msBare.toFixed(0)} ms/trial`);
  console.log(`          harness/bare wall ratio at concurrency 1: ${r.ratio.toFixed(3)} (target ≤ 1.05)`);
  console.log(`          throughput concurrency 2 / concurrency 1: ${r.speedup.toFixed(2)}× (target ≥ 1.8×; ${r.msC2.toFixed(0)} ms/trial at concurrency 2)`);
}

if (import.meta.url === `file://${process.argv[1]}`) printOverhead(await benchOverhead());
