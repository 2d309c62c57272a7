// bench/regrade: 10,000 stored transcripts regraded by `skillprobe grade`; target < 10 s and < 300 MB.
// Transcripts are real: a small simulator run through the real CLI, replicated to 10,000 trials.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'cli.js');
const TOTAL = Number(process.env.REGRADE_TRIALS ?? 10_000);

export async function benchRegrade() {
  const work = mkdtempSync(join(tmpdir(), 'sp-bench-regrade-'));
  try {
    const seed = await measure(
      'node',
      [CLI, 'run', '--sim', 'sim/demo.profile.yaml', '--mode', 'fixed', '--trials', '2', '--transcripts', work, '--json'],
      { cwd: ROOT },
    );
    // Any verdict will do (0, 1, 3, 4); 2 and crashes mean no run.
    if (![0, 1, 3, 4].includes(seed.code)) throw new Error(`seed run failed: ${seed.stderr}`);
    const template = join(work, readdirSync(work)[0]);
    const manifest = JSON.parse(readFileSync(join(template, 'run.json'), 'utf8'));
    const sources = [];
    for (const c of readdirSync(join(template, 'trials')))
      for (const arm of readdirSync(join(template, 'trials', c)))
        for (const f of readdirSync(join(template, 'trials', c, arm)).filter((f) => /^\d+\.jsonl$/.test(f)))
          sources.push({ c, arm, base: join(template, 'trials', c, arm, f.replace('.jsonl', '')) });
    const big = join(work, 'big');
    mkdirSync(join(big, 'trials'), { recursive: true });
    const perCase = new Map();
    for (let i = 0; i < TOTAL; i++) {
      const s = sources[i % sources.length];
      const n = (perCase.get(`${s.c}/${s.arm}`) ?? 0) + 1;
      perCase.set(`${s.c}/${s.arm}`, n);
      const dir = join(big, 'trials', s.c, s.arm);
      mkdirSync(dir, { recursive: true });
      cpSync(`${s.base}.jsonl`, join(dir, `${n}.jsonl`));
      cpSync(`${s.base}.meta.json`, join(dir, `${n}.meta.json`));
    }
    writeFileSync(join(big, 'run.json'), JSON.stringify({ ...manifest, runId: 'bench-regrade' }));
    const r = await measure('node', [CLI, 'grade', big, '--json'], { cwd: ROOT });
    if (![0, 1, 3, 4].includes(r.code)) throw new Error(`grade failed: ${r.stderr}`);
    const graded = JSON.parse(r.stdout).outcomes.length;
    return { trials: graded, seconds: r.ms / 1000, peakMb: r.peakMb };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printRegrade(r) {
  console.log(
    `regrade   ${r.trials} transcripts: ${r.seconds.toFixed(2)} s (target < 10 s, ratio ${(r.seconds / 10).toFixed(2)}); peak RSS ${r.peakMb.toFixed(0)} MB (target < 300 MB, ratio ${(r.peakMb / 300).toFixed(2)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printRegrade(await benchRegrade());
