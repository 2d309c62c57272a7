import { describe, expect, it } from 'vitest';
import { namedSkillFindings } from '../src/lint/prompts.js';
import type { LintCase, LintSkill } from '../src/lint/types.js';

const at = { file: 'cases/a.yaml', line: 3, col: 11 };
const skill = (dir: string): LintSkill => ({
  dir,
  name: dir,
  description: 'd',
  links: [],
  at: { name: at, description: at, allowedTools: at },
});
const kase = (id: string, prompt: string, expect: string): LintCase => ({
  id,
  prompt,
  expect,
  against: [],
  tags: [],
  at: { id: at, prompt: at },
});
const SKILLS = [skill('atl-jira'), skill('atl')];

describe('lint: a case whose prompt names the skill it expects gives the answer away', () => {
  it.each([
    ['use atl-jira to file a bug', 'atl-jira', true],
    ['Use ATL-JIRA for this', 'atl-jira', true],
    ['file a bug in jira', 'atl-jira', false],
    // Another word that holds the name is not the name.
    ['the atl-jira-cloud instance', 'atl-jira', false],
    ['log in with atl auth', 'atl', true],
    ['how does the atlas tool log in', 'atl', false],
    // A case naming a skill it does not expect is a trap's business, not a give-away.
    ['use atl-jira, no, the wiki', 'none', false],
  ])('%s (expects %s): %s', (prompt, expected, warned) => {
    const found = namedSkillFindings(SKILLS, [kase('c', prompt, expected)]);
    expect(found.length).toBe(warned ? 1 : 0);
    if (warned)
      expect(found[0]).toMatchObject({
        severity: 'warning',
        check: 'prompt',
        file: 'cases/a.yaml',
        line: 3,
        what: expect.stringContaining('given away'),
      });
  });
});
