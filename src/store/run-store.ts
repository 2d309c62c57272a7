import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir } from 'node:fs/promises';
// Temp name, fsync, rename: a reader never sees half a file, and a crash never leaves one under the real name.
import writeAtomic from 'write-file-atomic';
import { join } from 'node:path';
import type { Arm } from '../load/config.js';
import type { TrialMeta } from '../transcript/types.js';

/**
 * The run directory: durable artifacts that can be regraded and re-reported without rerunning anything.
 *   run.json                               manifest
 *   trials/<case>/<arm>/<n>.jsonl          agent stdout, byte for byte
 *   trials/<case>/<arm>/<n>.meta.json      process facts
 *   results.json                           graded outcomes + statistics (regenerable)
 */

export interface TrialRef {
  caseId: string;
  arm: Arm;
  /** 1-based trial number within case and arm. */
  n: number;
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export class RunStore {
  constructor(readonly dir: string) {}

  static async create(transcriptsDir: string, runId: string): Promise<RunStore> {
    const dir = join(transcriptsDir, runId);
    await mkdir(join(dir, 'trials'), { recursive: true });
    return new RunStore(dir);
  }

  trialBase(t: TrialRef, attemptSuffix = ''): string {
    return join(this.dir, 'trials', t.caseId, t.arm, `${t.n}${attemptSuffix}`);
  }

  async writeTrial(t: TrialRef, stdout: Buffer, meta: TrialMeta, attemptSuffix = ''): Promise<void> {
    const base = this.trialBase(t, attemptSuffix);
    await mkdir(join(this.dir, 'trials', t.caseId, t.arm), { recursive: true });
    await writeAtomic(`${base}.jsonl`, stdout);
    await writeAtomic(`${base}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  }

  async writeJson(name: string, value: unknown): Promise<void> {
    await writeAtomic(join(this.dir, name), JSON.stringify(value, null, 2) + '\n');
  }

  async readJson<T>(name: string): Promise<T> {
    return JSON.parse(await readFile(join(this.dir, name), 'utf8')) as T;
  }

  /** Every stored final trial (attempt files like `3.a1.jsonl` are kept but are not trials). */
  async listTrials(): Promise<TrialRef[]> {
    const out: TrialRef[] = [];
    const root = join(this.dir, 'trials');
    for (const caseId of await readdir(root).catch(() => [] as string[])) {
      for (const arm of await readdir(join(root, caseId)).catch(() => [] as string[])) {
        for (const f of await readdir(join(root, caseId, arm))) {
          const m = /^(\d+)\.jsonl$/.exec(f);
          if (m) out.push({ caseId, arm: arm as Arm, n: Number(m[1]) });
        }
      }
    }
    return out.sort((a, b) => a.caseId.localeCompare(b.caseId) || a.arm.localeCompare(b.arm) || a.n - b.n);
  }

  async readTrial(t: TrialRef): Promise<{ raw: string; meta: TrialMeta }> {
    const base = this.trialBase(t);
    const [raw, meta] = await Promise.all([readFile(`${base}.jsonl`, 'utf8'), readFile(`${base}.meta.json`, 'utf8')]);
    return { raw, meta: JSON.parse(meta) as TrialMeta };
  }
}
