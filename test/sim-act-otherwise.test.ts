import { describe, expect, it } from 'vitest';
import { viewRequest } from '../src/sim/dialects/index.js';
import { decideReply, type Reply } from '../src/sim/policy.js';
import { parseProfile, profileReferenceProblems, type LoadedProfile } from '../src/sim/profile.js';
import { InputError } from '../src/util/input-error.js';

const LAB_TOOLS = ['Read', 'Glob', 'Grep', 'Skill'];
const FIELD_TOOLS = ['Bash', 'Read', 'Skill', 'WebFetch', 'Write'];

/** Claude Code's first request for `prompt`, listing csv-chart and offering `tools`. */
const first = (prompt: string, tools: string[], canInvoke = true) => ({
  model: 'm',
  tools: tools.filter((t) => canInvoke || t !== 'Skill').map((name) => ({ name })),
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: '<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- csv-chart: Chart a CSV file as a PNG picture.\n</system-reminder>',
        },
        { type: 'text', text: prompt },
      ],
    },
  ],
});

/** What the reply does: the skill it calls, the acting call it makes, or `answer`. */
const doneBy = (r: Reply) => {
  if (r.type !== 'message') return r.type;
  const skill = r.blocks.find((b) => b.type === 'skill');
  const act = r.blocks.find((b) => b.type === 'act');
  return skill ? `skill ${skill.name}` : act ? `act ${act.act}` : 'answer';
};

describe('`act` with `otherwise`: the model does it by hand where it can, else calls the skill', () => {
  const profile = parseProfile({ rules: [{ prompt: 'chart', do: [{ act: 'write', otherwise: 'csv-chart' }] }] });
  const plain = parseProfile({ rules: [{ prompt: 'chart', do: [{ act: 'write' }] }] });
  it.each([
    ['the field (Write offered)', profile, FIELD_TOOLS, true, 'act write'],
    ['the lab (no Write)', profile, LAB_TOOLS, true, 'skill csv-chart'],
    ['the lab without the skill tool (ablation)', profile, LAB_TOOLS, false, 'answer'],
    ['the lab, no `otherwise`: as before', plain, LAB_TOOLS, true, 'answer'],
  ] as const)('%s: %s', (_where, p, tools, canInvoke, expected) => {
    expect(doneBy(decideReply(p, viewRequest('anthropic', first('chart sales.csv', [...tools], canInvoke)), { key: 't' }))).toBe(expected);
  });

  it('`otherwise` without `act` is refused in one line', () => {
    expect(() => parseProfile({ rules: [{ prompt: 'chart', do: [{ answer: true, otherwise: 'csv-chart' }] }] })).toThrow(InputError);
    expect(() => parseProfile({ rules: [{ prompt: 'chart', do: [{ answer: true, otherwise: 'csv-chart' }] }] })).toThrow(/otherwise/);
  });

  it('`otherwise` naming no family skill is named as a problem', () => {
    const loaded = {
      profile: parseProfile({ rules: [{ prompt: 'chart', do: [{ act: 'write', otherwise: 'csv-chrat' }] }] }),
      yaml: { problem: (_at: unknown, what: string, todo: string) => ({ file: 'p.yaml', what, todo }) },
    } as unknown as LoadedProfile;
    const problems = profileReferenceProblems(loaded, { skills: ['csv-chart'] });
    expect(problems.map((p) => p.what)).toEqual([expect.stringContaining('`otherwise: csv-chrat` names no skill')]);
  });
});
