import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../src/agents/registry.js';
import { projectsRemovedAfterAll, runInProcess, skillMd } from './helpers.js';

describe('skillprobe init, then a real run of its scaffold', () => {
  const project = projectsRemovedAfterAll(() => ({
    '.claude/skills/notes-search/SKILL.md': skillMd(
      'notes-search',
      'Handle notes-search requests. Create and list notes-search records with the notes-search CLI.',
    ),
  }));

  it('a run of one agent on the scaffold asks for that agent’s own default model, never another CLI’s', async () => {
    const dir = project();
    expect((await runInProcess(['init'], { cwd: dir })).exitCode).toBe(0);
    const args = ['run', '--sim', 'sim/skillprobe.profile.yaml', '--agent', 'codex', '--grep', '^notes-search-happy$'];
    args.push('--trials', '1', '--arms', 'skill');
    const r = await runInProcess(args, { cwd: dir });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const runDir = join(dir, 'transcripts', readdirSync(join(dir, 'transcripts'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { model: string; config: { model: string } };
    expect(manifest.model).toBe(adapterFor('codex').defaultModel);
    expect(manifest.config.model).toBe(adapterFor('codex').defaultModel);
  }, 200_000);
});
