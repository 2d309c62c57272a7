import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RejudgeReportInput } from '../src/report/rejudge.js';
import { damagedRun, rejudge } from './rejudge-fixture.js';

/** A rejudge that asks the judge again through the real CLI (the refusals, asking nothing, are in rejudge-input.test.ts). */
describe('rejudge of an intact run', () => {
  it('the intact run rejudges (a stray file beside its judge steps holds no answer, and is no damage): the fixture itself is sound', async () => {
    const { root, dir } = await damagedRun(({ dir }) => writeFileSync(join(dir, 'judge', '.DS_Store'), ''));
    const r = await rejudge(root, dir, '--reporter', 'json=out/rejudge.json', '--reporter', 'markdown=out/rejudge.md');
    expect(r.stdout).toContain('answers changed: 0 of 2 paired samples');
    expect(r.exitCode).toBe(0);
    // The same figures through the reporters: JSON for machines, markdown for a step summary.
    const json = JSON.parse(readFileSync(join(root, 'out/rejudge.json'), 'utf8')) as RejudgeReportInput;
    expect(json).toMatchObject({ requests: 2, samples: 1, status: 'completed', flip: { changed: { successes: 0, n: 2 } } });
    const markdown = readFileSync(join(root, 'out/rejudge.md'), 'utf8');
    expect(markdown).toMatch(/^## skillprobe rejudge · 2 stored judge requests asked again, 1 samples each \(completed\) → /);
    expect(markdown).toContain('\n- answers changed: 0 of 2 paired samples');
  }, 60_000);
});
