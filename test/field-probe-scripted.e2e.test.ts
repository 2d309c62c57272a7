import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, testEnv } from './helpers.js';

/**
 * The field probe through the real pinned CLIs, built (the Codex hook it configures is the compiled entry beside the
 * module), against the probe's own scripted model on 127.0.0.1: each CLI refuses a write, a command that writes and
 * a command that reads, so the probe finds nothing, and leaves no folder of its own behind.
 */
const scratch = mkdtempSync(join(tmpdir(), 'sp-field-probe-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function probe(agent: 'codex' | 'gemini', model: string): Promise<unknown> {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'runner', 'field-probe-scripted.js'))) throw new Error('dist is missing: run `npm run build`');
  const script = `
    const { scriptedFieldProbe } = await import(${JSON.stringify(join(dist, 'runner', 'field-probe-scripted.js'))});
    const { adapterFor } = await import(${JSON.stringify(join(dist, 'agents', 'registry.js'))});
    const a = adapterFor(${JSON.stringify(agent)});
    const found = await scriptedFieldProbe(a, a.resolveBinary(), ${JSON.stringify(model)}, ${JSON.stringify(scratch)}, process.env);
    process.stdout.write(JSON.stringify(found ?? null));`;
  const r = await execa(process.execPath, ['--input-type=module', '-e', script], {
    env: testEnv(),
    extendEnv: false,
    reject: false,
    timeout: 90_000,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown;
}

describe('the field probe on the pinned CLIs', () => {
  it.each([
    ['codex', 'sim-model'],
    ['codex', 'gpt-6.1-sol'],
    ['gemini', 'gemini-2.5-pro'],
  ] as const)('%s (%s) refuses every acting call, and nothing runs', async (agent, model) => {
    expect(await probe(agent, model)).toBeNull();
    expect(readdirSync(scratch)).toEqual([]);
  });
});
