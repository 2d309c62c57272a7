import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { SPAWN_LOG_VARIABLE } from './agent-spawn-guard.mjs';
import { processState, stateLeftBehind } from './process-state.js';

// The unit pass's setup: every process of this test file, and any Node process it starts (a spawned skillprobe),
// refuses to start an agent CLI and writes it down; the test that did so fails here, whatever it caught.
const logDir = mkdtempSync(join(tmpdir(), 'sp-spawn-log-'));
const log = join(logDir, 'agent-spawns');
writeFileSync(log, '');
process.env[SPAWN_LOG_VARIABLE] = log;

/** The agent CLIs a test tried to start since the last call (a test of the guard takes them so they fail nothing). */
export function takeRefusedAgentSpawns(): string[] {
  const refused = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  writeFileSync(log, '');
  return refused;
}

function failOnAgentSpawns(): void {
  const refused = takeRefusedAgentSpawns();
  if (refused.length)
    throw new Error(
      `this test started an agent CLI ${refused.length} time(s) (${[...new Set(refused)].join(', ')}): a test that spawns one belongs in a *.e2e.test.ts file`,
    );
}

// The unit pass runs its files one after another in shared workers: a file that changed the process fails here,
// rather than some later file in the same worker.
const found = processState();

afterEach(failOnAgentSpawns);
afterAll(() => {
  failOnAgentSpawns();
  rmSync(logDir, { recursive: true, force: true });
  const left = stateLeftBehind(found, processState());
  if (left.length) throw new Error(`this file left its process changed (${left.join('; ')}): undo it in an afterAll`);
});
