import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/run/exit-codes.js';
import { cleanup, ROOT, runCli } from './helpers.js';
import { resultsOf } from './e2e-scenarios.js';

/**
 * examples/conversation through the real pinned Claude Code against the simulator: a skill that rightly asks which
 * environment first passes when the case declares the user's reply, fails when it does not, and its ablation
 * comparison is below the no-skill arm only without the reply.
 */
describe('examples/conversation (Claude Code, simulator)', () => {
  const transcripts = mkdtempSync(join(tmpdir(), 'sp-conversation-'));
  afterAll(() => cleanup(transcripts));

  it('passes with a follow-up declared, fails without one, and is no longer below the no-skill arm with it', async () => {
    const run = await runCli(['run', '--sim', 'sim.yaml', '--draw-seed', '3', '--transcripts', transcripts], {
      cwd: join(ROOT, 'examples', 'conversation'),
      timeoutMs: 300_000,
    });
    expect(run.exitCode, run.stderr).toBe(EXIT.fail);
    const results = resultsOf(join(transcripts, readdirSync(transcripts)[0]!));
    expect(results.verdicts.map((v) => [v.caseId, v.verdict])).toEqual([
      ['ship-with-reply', 'PASS'],
      ['ship-no-reply', 'FAIL'],
    ]);
    const skillRow = (id: string) => results.summary.cases.find((c) => c.caseId === id && c.arm === 'skill')!;
    // With the reply, the skill fires on turn 2 in every trial; without it, the model's question ends every trial.
    expect(skillRow('ship-with-reply').firingTurns).toMatchObject({ counts: [0, 6] });
    expect(skillRow('ship-no-reply')).toMatchObject({ fired: { none: 6 }, flags: { clarifying: 6 } });
    expect(skillRow('ship-no-reply').firingTurns).toBeUndefined();
    const ablation = (id: string) => results.summary.ablation.find((a) => a.caseId === id)!;
    expect(ablation('ship-no-reply').difference.hi).toBeLessThan(0);
    expect(ablation('ship-with-reply').difference.diff).toBeGreaterThanOrEqual(0);
    expect(ablation('ship-with-reply').difference.lo).toBeLessThan(0);
    expect(run.stdout).toMatch(/FIRING TURN · skill arm[\s\S]*ship-with-reply +6 +\.00 \[0\.00, 0\.52\] +1\.00 \[0\.48, 1\.00\]/);
  });
});
