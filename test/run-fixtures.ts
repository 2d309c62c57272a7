import type { RunManifest } from '../src/commands/run.js';
import type { GradableCase } from '../src/grade/outcome.js';
import { configSchema } from '../src/load/config.js';

/** The atl family the hand-built transcripts use. */
export const ATL_FAMILY = ['atl', 'atl-jira', 'atl-confluence'].map((dir) => ({ dir, name: dir }));

/** The manifest of a finished, hand-made run of `defs` (skill arm only, not simulated). */
export function handMadeManifest(defs: GradableCase[], trials: number, over: Partial<RunManifest> = {}): RunManifest {
  return {
    runId: 'r1',
    harness: { name: 'skillprobe', version: '0.1.0' },
    status: 'completed',
    startedAt: '2026-11-30T00:00:00.000Z',
    agent: { id: 'claude-code', binary: 'claude', cliVersion: '2.1.197' },
    model: 'claude-sonnet-4-5',
    config: configSchema.parse({ arms: ['skill'] }),
    skills: [],
    skillsHash: 'x',
    cases: { files: [], hash: 'y', defs },
    family: ATL_FAMILY,
    simulator: null,
    trials: { planned: trials, finished: trials, notStarted: 0 },
    ...over,
  };
}
