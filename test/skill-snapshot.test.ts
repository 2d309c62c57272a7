import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSkills, familyHash } from '../src/load/skills.js';
import { createSealedWorkspace } from '../src/workspace/sealed.js';
import { changedSkills, snapshotSkills } from '../src/workspace/skill-snapshot.js';
import { baseProject, cleanup, makeProject } from './helpers.js';

const EDIT = '\nEDITED MID-RUN: a later trial must never see this line.\n';

describe('the skills a run tests are the bytes it started with', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((r) => cleanup(r)));
  const project = (files = {}) => {
    const dir = makeProject({ ...baseProject(), ...files });
    roots.push(dir);
    return dir;
  };

  it('a workspace made from the snapshot after an edit gets the starting bytes, and records their hash', async () => {
    const dir = project();
    const skills = loadSkills(join(dir, 'skills'));
    const snapshot = await snapshotSkills(skills, join(dir, 'run', 'skills'));
    const original = readFileSync(join(dir, 'skills/alpha/SKILL.md'), 'utf8');
    appendFileSync(join(dir, 'skills/alpha/SKILL.md'), EDIT);
    expect(changedSkills(skills).map((c) => c.dir)).toEqual(['alpha']);
    const ws = await createSealedWorkspace({ root: dir, skills: snapshot, skillsFolder: '.claude/skills' });
    try {
      expect(readFileSync(join(ws.dir, '.claude/skills/alpha/SKILL.md'), 'utf8')).toBe(original);
      expect(ws.skillsHash).toBe(familyHash(skills));
    } finally {
      await ws.cleanup();
    }
  });

  it('a skill edited between loading and the snapshot is refused before anything runs', async () => {
    const dir = project();
    const skills = loadSkills(join(dir, 'skills'));
    writeFileSync(join(dir, 'skills/alpha-beta/notes.md'), 'added after loading\n');
    await expect(snapshotSkills(skills, join(dir, 'run', 'skills'))).rejects.toThrow(/changed while the run was starting \(alpha-beta\)/);
  });
});
