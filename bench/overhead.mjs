// bench/overhead: the same trial through `skillprobe run --agent ID` and as the bare CLI with identical argv, files and
// environment (built by the adapter itself), both against the simulator, alternated over several rounds, for every
// agent in the registry. Targets: harness/bare wall ratio ≤ 1.05 at concurrency 1; for Claude Code, throughput at
// concurrency 2 ≥ 1.8× concurrency 1.
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapterFor, AGENT_IDS } from '../dist/agents/registry.js';
import { simulatorBaseUrl } from '../dist/sim/server.js';
import { median } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'cli.js');
/** Trials per side and rounds: a Gemini CLI trial takes about three times a Claude Code one, so it gets fewer. */
const SIZES = { 'claude-code': [30, 5], codex: [30, 5], gemini: [12, 3] };
const sizeOf = (id) => [
  Number(process.env.OVERHEAD_TRIALS ?? SIZES[id]?.[0] ?? 10),
  Number(process.env.OVERHEAD_ROUNDS ?? SIZES[id]?.[1] ?? 3),
];

const SKILL =
  '---\nname: atl-jira\ndescription: Create and find Jira issues with the atl CLI.\n---\n# atl jira\n\n```bash\natl jira $ARGUMENTS\n```\n';
const PROFILE = 'name: overhead\nseed: 1\nrules:\n  - { case: bench, do: [{ skill: atl-jira, args: "create-issue --project OPS" }] }\n';
const CASES = '- id: bench\n  prompt: "file a bug in OPS"\n  expect: { skill: atl-jira }\n';
const MODEL = 'bench-model';

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-overhead-'));
  mkdirSync(join(dir, 'skills', 'atl-jira'), { recursive: true });
  mkdirSync(join(dir, 'cases'));
  writeFileSync(join(dir, 'skills', 'atl-jira', 'SKILL.md'), SKILL);
  writeFileSync(join(dir, 'cases', 'bench.yaml'), CASES);
  writeFileSync(join(dir, 'sim.yaml'), PROFILE);
  return dir;
}

async function harness(dir, id, n, concurrency) {
  const t0 = performance.now();
  const args = [
    'run',
    '--sim',
    'sim.yaml',
    '--agent',
    id,
    '--model',
    MODEL,
    '--mode',
    'fixed',
    '--trials',
    String(n),
    '--arms',
    'skill',
    '--concurrency',
    String(concurrency),
    '--transcripts',
    'runs',
    '--json',
  ];
  await execa('node', [CLI, ...args], { cwd: dir, stdin: 'ignore', reject: false });
  return performance.now() - t0;
}

/** N bare CLI runs, each in a workspace prepared as a trial's is, with the adapter's exact argv and environment. */
async function bare(dir, adapter, n, simUrl) {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const root = join(dir, 'bare');
    rmSync(root, { recursive: true, force: true });
    const [ws, home, tmp, harnessDir] = ['ws', 'home', 'tmp', 'harness'].map((d) => join(root, d));
    for (const d of [home, tmp, harnessDir]) mkdirSync(d, { recursive: true });
    await execa('git', ['init', '-q', ws]);
    cpSync(join(dir, 'skills', 'atl-jira'), join(ws, adapter.skillsFolder, 'atl-jira'), { recursive: true });
    const req = {
      prompt: 'file a bug in OPS',
      model: MODEL,
      maxTurns: 8,
      cliRetries: 2,
      deadlineMs: 300_000,
      workspace: ws,
      home,
      tmp,
      harnessDir,
      callerEnv: process.env,
      binary: adapter.resolveBinary(),
      simulator: {
        url: simUrl,
        headers: { 'x-skillprobe-case': 'bench', 'x-skillprobe-trial': `bare-${i}` },
        identityUrl: simulatorBaseUrl(simUrl, `bare-${i}`, 'bench'),
      },
    };
    // Files the CLI reads are the trial's to write; the bare side writes them too, off the clock.
    await adapter.prepareTrial?.(req);
    const inv = adapter.invocation(req);
    const t0 = performance.now();
    await execa(inv.file, inv.args, { cwd: ws, env: inv.env, extendEnv: false, stdin: 'ignore', reject: false });
    total += performance.now() - t0;
  }
  return total;
}

async function benchAgent(dir, id, simUrl) {
  const adapter = adapterFor(id);
  const [n, rounds] = sizeOf(id);
  const ratio = [];
  const speedup = [];
  const per = { harness: [], bare: [], c2: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so drift on a shared machine hits both sides alike.
    const [h, b] =
      r % 2 === 0
        ? [await harness(dir, id, n, 1), await bare(dir, adapter, n, simUrl)]
        : await bare(dir, adapter, n, simUrl).then(async (b) => [await harness(dir, id, n, 1), b]);
    per.harness.push(h / n);
    per.bare.push(b / n);
    ratio.push(h / b);
    if (id === 'claude-code') {
      const c2 = await harness(dir, id, n, 2);
      per.c2.push(c2 / n);
      speedup.push(h / c2);
    }
  }
  return {
    id,
    n,
    rounds,
    ratio: median(ratio),
    msHarness: median(per.harness),
    msBare: median(per.bare),
    ...(speedup.length ? { speedup: median(speedup), msC2: median(per.c2) } : {}),
  };
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
    const agents = [];
    for (const id of AGENT_IDS) agents.push(await benchAgent(dir, id, simUrl));
    return agents;
  } finally {
    sim.kill('SIGTERM');
    await sim.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printOverhead(agents) {
  for (const r of agents) {
    console.log(
      `overhead  ${r.id}: ${r.rounds} alternated rounds of ${r.n} trials (medians): harness ${r.msHarness.toFixed(0)} ms/trial, bare CLI ${r.msBare.toFixed(0)} ms/trial`,
    );
    console.log(`          harness/bare wall ratio at concurrency 1: ${r.ratio.toFixed(3)} (target ≤ 1.05)`);
    if (r.speedup !== undefined)
      console.log(
        `          throughput concurrency 2 / concurrency 1: ${r.speedup.toFixed(2)}× (target ≥ 1.8×; ${r.msC2.toFixed(0)} ms/trial at concurrency 2)`,
      );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printOverhead(await benchOverhead());
