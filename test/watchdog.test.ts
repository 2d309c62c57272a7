import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startWatchdog } from '../src/workspace/watchdog.js';
import { execa } from 'execa';
import { processesIn, ROOT } from './helpers.js';

describe('the run watchdog stood down', () => {
  const base = mkdtempSync(join(tmpdir(), 'sp-watchdog-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is gone once standDown resolves, so a run that returns leaves no process of its own', async () => {
    const watchdog = startWatchdog(base);
    expect(processesIn(base)).toHaveLength(1);
    await watchdog.standDown();
    expect(processesIn(base)).toEqual([]);
    // Standing down twice is harmless and immediate.
    await watchdog.standDown();
  });

  it('holds a process with nothing else to do until the watchdog is gone, so the run goes on past it', async () => {
    const module = JSON.stringify(join(ROOT, 'dist', 'workspace', 'watchdog.js'));
    const script = `const { startWatchdog } = await import(${module}); await startWatchdog(${JSON.stringify(base)}).standDown(); console.log('went on');`;
    const r = await execa('node', ['--input-type=module', '-e', script], { reject: false });
    expect(r.stdout).toBe('went on');
    expect(r.exitCode).toBe(0);
    expect(processesIn(base)).toEqual([]);
  });
});
