import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printedVersion } from '../src/agents/cli-binary.js';
import { runAgentCommand } from '../src/agents/spawn.js';
import { processAlive } from '../src/util/process-group.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanup } from './helpers.js';

/**
 * An agent CLI's commands outside trials (its version, the sandbox, listing and field probes) leave nothing running:
 * a stand-in binary that starts a background child, as a user's wrapper script may, has it taken down with it.
 */
describe('an agent command outside a trial', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-agent-command-'));
  afterAll(() => cleanup(dir));

  /** A stand-in binary: starts `sleep 300` in the background, writes its pid down, then does `then`. */
  function leavingBinary(name: string, then: string): { file: string; child: () => number } {
    const file = join(dir, name);
    const pidFile = join(dir, `${name}.pid`);
    writeFileSync(file, `#!/bin/sh\nsleep 300 >/dev/null 2>&1 &\necho $! > '${pidFile}'\n${then}\n`);
    chmodSync(file, 0o755);
    return { file, child: () => Number(readFileSync(pidFile, 'utf8')) };
  }

  /** Whether `pid` is gone within a moment (a SIGKILLed process is reaped by whoever adopted it, not at once). */
  async function goneSoon(pid: number): Promise<boolean> {
    for (let i = 0; i < 30 && processAlive(pid); i++) await sleep(100);
    return !processAlive(pid);
  }

  it('that answers: its version is read, and the child it left is gone', async () => {
    const bin = leavingBinary('answers.sh', 'echo "stand-in 9.8.7"');
    expect(await printedVersion(bin.file, ['--version'])).toBe('9.8.7');
    expect(await goneSoon(bin.child())).toBe(true);
  });

  it('that never answers: stopped at its timeout, with the child it left', async () => {
    const bin = leavingBinary('hangs.sh', 'exec sleep 300');
    const r = await runAgentCommand(bin.file, [], { env: { PATH: process.env.PATH }, timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(await goneSoon(bin.child())).toBe(true);
  });
});
