import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tuneRecordSchema, type TuneRecord } from '../src/run/tune-schema.js';
import { projectsRemovedAfterAll, runCli } from './helpers.js';
import { ALREADY_RIGHT, MISSING_CLASS, tuneProject } from './tune-fixture.js';

/**
 * `skillprobe tune` end to end, through each agent's real pinned CLI against the simulator's description router: the
 * router reads the descriptions the CLI listed, so a rewrite changes triggering as it would with a real model, and
 * the proposer stand-in answers the CLI's proposer request.
 */
const AGENT_CONFIGS: Record<string, string> = {
  'claude-code': '',
  codex: 'agent: codex\nmodel: sim-model\n',
  gemini: 'agent: gemini\nmodel: gemini-2.5-flash\n',
};

const record = (project: string): { dir: string; record: TuneRecord } => {
  const dir = readdirSync(join(project, 'transcripts')).find((d) => d.startsWith('tune-'))!;
  return {
    dir: join(project, 'transcripts', dir),
    record: tuneRecordSchema.parse(JSON.parse(readFileSync(join(project, 'transcripts', dir, 'tune.json'), 'utf8'))),
  };
};

const TUNE = ['tune', 'csv-report', '--sim', 'sim.yaml', '--iterations', '2', '--holdout-trials', '4'];

describe.each(Object.entries(AGENT_CONFIGS))('tune through %s', (agent, config) => {
  const improvable = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS, config));
  const right = projectsRemovedAfterAll(() => tuneProject(ALREADY_RIGHT, config));

  it('a description that misses a class of requests is tuned to a significantly better holdout recall, siblings and negatives no worse', async () => {
    const project = improvable();
    const r = await runCli([...TUNE, '--write'], { cwd: project, timeoutMs: 600_000 });
    expect(r.stderr).toContain('SIMULATOR');
    expect(r.exitCode).toBe(0);
    const { record: t } = record(project);
    expect(t.status).toBe('completed');
    expect(t.verdict).toBe('IMPROVED');
    expect(t.holdout!.recall.pValue).toBeLessThan(0.05);
    expect(t.holdout!.recall.diff).toBeGreaterThan(0);
    for (const role of ['siblings', 'negatives'] as const) {
      const c = t.holdout![role];
      expect(c.diff === null || c.diff >= 0 || c.pValue >= 0.05).toBe(true);
    }
    // The holdout was never shown to the proposer.
    const holdoutPrompts = t.splits.holdout.map((id) => id);
    expect(holdoutPrompts).toEqual(expect.arrayContaining(['xl-expenses', 'xl-inventory']));
    expect(t.result).not.toBe(MISSING_CLASS);
    const skill = readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8');
    expect(skill).toContain(`description: ${t.result}`);
    expect(skill.replace(/^description: .*$/m, '')).toBe(
      readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8').replace(/^description: .*$/m, ''),
    );
    expect(r.stdout).toMatch(/IMPROVED/);
    expect(r.stdout).toMatch(/^\+\+\+ /m);
  }, 600_000);

  it('a description already right ends with NO SIGNIFICANT CHANGE and keeps the original', async () => {
    const project = right();
    const r = await runCli([...TUNE, '--write'], { cwd: project, timeoutMs: 600_000 });
    expect(r.exitCode).toBe(0);
    const { record: t } = record(project);
    expect(t.verdict).toBe('NO SIGNIFICANT CHANGE');
    expect(t.result).toBe(ALREADY_RIGHT);
    expect(t.written).toBe(false);
    expect(readFileSync(join(project, 'skills/csv-report/SKILL.md'), 'utf8')).toContain(`description: ${ALREADY_RIGHT}`);
  }, 600_000);
});
