import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicView } from '../src/sim/dialects/anthropic-view.js';
import { fencedCommands } from '../src/util/markdown.js';
import { decideReply, matchingRule, mutateCommand, pickWeighted, plannedCall } from '../src/sim/policy.js';
import { seededUniform } from '../src/util/random.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';

const LISTING = 'The following skills are available for use with the Skill tool:\n\n- atl: Router.\n- atl-jira: Jira.\n- bare-name';
const tools = [{ name: 'Read' }, { name: 'Skill' }, { name: 'Glob' }];

const firstRequest = (prompt: string, listingAs: 'reminder' | 'system' = 'reminder') => ({
  model: 'm',
  tools,
  messages:
    listingAs === 'reminder'
      ? [
          {
            role: 'user',
            content: [
              { type: 'text', text: `<system-reminder>\n${LISTING}\n</system-reminder>` },
              { type: 'text', text: prompt },
            ],
          },
        ]
      : [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>\ndate\n</system-reminder>' },
              { type: 'text', text: prompt },
            ],
          },
          { role: 'system', content: LISTING },
        ],
});

describe('conversation view', () => {
  it.each(['reminder', 'system'] as const)('reads the skill listing given as a %s', (form) => {
    const v = anthropicView(firstRequest('file a bug', form));
    expect(v.offeredSkills).toEqual(['atl', 'atl-jira', 'bare-name']);
    expect(v.prompt).toBe('file a bug');
    expect(v.turn).toBe(0);
  });

  it('links tool results to their calls and finds the injected body', () => {
    const req = firstRequest('file a bug');
    req.messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'atl-jira' } }] } as never,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: atl-jira' },
          { type: 'text', text: 'Base directory for this skill: /ws/.claude/skills/atl-jira\n\n```bash\natl jira create-issue\n```' },
        ],
      } as never,
    );
    const v = anthropicView(req);
    expect(v.turn).toBe(1);
    expect(v.lastResults).toEqual([{ action: 'skill', skill: 'atl-jira', isError: false, text: 'Launching skill: atl-jira' }]);
    expect(v.skillBody).toEqual({ text: expect.stringContaining('atl jira create-issue'), argumentsFilled: true });
  });

  it('survives garbage', () => {
    expect(anthropicView(null)).toMatchObject({ offeredSkills: [], prompt: '', turn: 0 });
  });
});

describe('policy', () => {
  const profile = parseProfile({
    seed: 5,
    rules: [
      {
        case: 'c1',
        do: [
          { p: 0.5, skill: 'atl-jira', args: 'create-issue --project OPS' },
          { p: 0.5, answer: 'plain' },
        ],
      },
      { prompt: 'wiki', do: [{ sibling: 'atl-jira' }] },
      { prompt: 'ghost', do: [{ skill: 'not-offered' }] },
      { prompt: 'known', do: [{ skill: 'not-offered' }], unskilled: 'Run `tool go`.' },
    ],
  });

  it('is deterministic per trial key', () => {
    const v = anthropicView(firstRequest('anything'));
    const a = decideReply(profile, v, { key: 'k1', caseId: 'c1' });
    expect(decideReply(profile, v, { key: 'k1', caseId: 'c1' })).toEqual(a);
  });

  it('draws behaviours at their weights across trials', () => {
    const v = anthropicView(firstRequest('anything'));
    let calls = 0;
    for (let i = 0; i < 2000; i++) {
      const r = decideReply(profile, v, { key: `t${i}`, caseId: 'c1' });
      if (r.type === 'message' && r.blocks.some((b) => b.type === 'skill')) calls++;
    }
    expect(calls / 2000).toBeGreaterThan(0.46);
    expect(calls / 2000).toBeLessThan(0.54);
  });

  it('calls a sibling other than the named skill', () => {
    const r = decideReply(profile, anthropicView(firstRequest('the wiki page')), { key: 'x' });
    const call = r.type === 'message' ? r.blocks.find((b) => b.type === 'skill') : undefined;
    expect(call?.type === 'skill' && call.name).not.toBe('atl-jira');
    expect(['atl', 'bare-name']).toContain(call?.type === 'skill' ? call.name : undefined);
  });

  it("reads a file of the workspace (a user's file) by its path with the CLI's file read; without one, answers plainly", () => {
    const reads = parseProfile({ seed: 1, rules: [{ prompt: 'report', do: [{ read: { file: 'docs/report.pdf' } }] }] });
    expect(decideReply(reads, anthropicView(firstRequest('summarise the report')), { key: 'x' })).toEqual({
      type: 'message',
      blocks: [
        { type: 'text', text: 'Let me look at docs/report.pdf first.' },
        { type: 'read_file', path: 'docs/report.pdf' },
      ],
    });
    const noRead = anthropicView({ ...firstRequest('summarise the report'), tools: [{ name: 'Skill' }] });
    const r = decideReply(reads, noRead, { key: 'x' });
    expect(r.type === 'message' && r.blocks.every((b) => b.type === 'text')).toBe(true);
  });

  it('answers plainly when the skill it would call is not offered (ablation arm)', () => {
    const r = decideReply(profile, anthropicView(firstRequest('ghost')), { key: 'x' });
    expect(r.type === 'message' && r.blocks.every((b) => b.type === 'text')).toBe(true);
  });

  it('answers with the rule’s unskilled text when its skill is not offered', () => {
    const r = decideReply(profile, anthropicView(firstRequest('known')), { key: 'x' });
    expect(r).toEqual({ type: 'message', blocks: [{ type: 'text', text: 'Run `tool go`.' }] });
  });

  it('extracts commands from fenced blocks and mutates them plausibly', () => {
    expect(fencedCommands('text\n```bash\n# comment\n$ atl jira create-issue --project OPS\n\n```\n`inline`')).toEqual([
      'atl jira create-issue --project OPS',
    ]);
    expect(mutateCommand('atl jira create-issue --project OPS', 'abbreviate')).toBe('atl jira create --project OPS');
    expect(mutateCommand('atl jira search --jql x --limit 5', 'drop-flag')).toBe('atl jira search --jql x');
  });

  it.each([
    [
      'the command that carries the args',
      '```bash\npip install pypdf\n```\n```bash\npdf merge a.pdf b.pdf\npdf split x\n```',
      'merge a.pdf b.pdf',
      'pdf merge a.pdf b.pdf',
    ],
    [
      'the args after the words a command puts before their subcommand',
      '```bash\npip install atl\natl jira search --jql "…"\natl jira create-issue --project KEY\n```',
      "create-issue --project OPS --summary 'x'",
      "atl jira create-issue --project OPS --summary 'x'",
    ],
    [
      'the args after the words a command puts before their first flag',
      '```bash\natl jira create-issue --project KEY --type Task\n```',
      '--project OPS --type Bug',
      'atl jira create-issue --project OPS --type Bug',
    ],
    ['the first command when none carries the args', '```bash\npip install pypdf\npdf split x\n```', 'merge', 'pip install pypdf'],
    ['the first command without args', '```bash\natl jira search\natl jira list\n```', undefined, 'atl jira search'],
    ['nothing when the body has no command', 'Just prose.', 'x', undefined],
  ])('plans one call after a skill loads: %s', (_, body, args, planned) => {
    expect(plannedCall(body, args)).toBe(planned);
  });

  it('a loaded skill with many commands gets a one-call plan, not every line of its body', () => {
    const req = firstRequest('file a bug');
    const body =
      'Base directory for this skill: /ws/.claude/skills/atl-jira\n\n```bash\npip install atl\natl jira create-issue --project OPS\natl jira search --jql x\n```';
    req.messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'atl-jira', args: 'create-issue --project OPS' } }],
      } as never,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: atl-jira' },
          { type: 'text', text: body },
        ],
      } as never,
    );
    const rule = parseProfile({ rules: [{ case: 'c', do: [{ skill: 'atl-jira', args: 'create-issue --project OPS' }] }] });
    const reply = decideReply(rule, anthropicView(req), { key: 'k', caseId: 'c' });
    expect(reply.type).toBe('message');
    const text = reply.type === 'message' ? reply.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
    expect(fencedCommands(text)).toEqual(['atl jira create-issue --project OPS']);
  });

  it('seeded draws are uniform-ish and weighted picks respect weights', () => {
    const xs = Array.from({ length: 4000 }, (_, i) => seededUniform(1, String(i)));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBeCloseTo(0.5, 1);
    expect(
      pickWeighted(
        [
          { p: 1, v: 'a' },
          { p: 3, v: 'b' },
        ],
        0.2,
      ).v,
    ).toBe('a');
    expect(
      pickWeighted(
        [
          { p: 1, v: 'a' },
          { p: 3, v: 'b' },
        ],
        0.3,
      ).v,
    ).toBe('b');
  });
});

describe('simulator HTTP server', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator(parseProfile({ seed: 1, rules: [{ case: 'err', do: [{ http: 503 }] }] }));
  });
  afterAll(() => sim.stop());

  it('listens on loopback only', () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers the connectivity probe', async () => {
    const r = await fetch(sim.url, { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-skillprobe-simulator')).toBe('1');
  });

  it('serves the non-streaming fallback as one JSON message', async () => {
    const r = await fetch(`${sim.url}/v1/messages?beta=true`, { method: 'POST', body: JSON.stringify(firstRequest('hello')) });
    const body = (await r.json()) as { type: string; content: { type: string }[]; stop_reason: string };
    expect(body.type).toBe('message');
    expect(body.content[0]!.type).toBe('text');
    expect(body.stop_reason).toBe('end_turn');
  });

  it('streams SSE ending in message_stop', async () => {
    const r = await fetch(`${sim.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ ...firstRequest('hello'), stream: true }) });
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const text = await r.text();
    expect(text.startsWith('event: message_start')).toBe(true);
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
  });

  it('returns the profile’s HTTP errors', async () => {
    const r = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-skillprobe-case': 'err' },
      body: JSON.stringify(firstRequest('x')),
    });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { type: string } }).error.type).toBe('api_error');
  });

  it('rejects unreadable bodies with 400', async () => {
    const r = await fetch(`${sim.url}/v1/messages`, { method: 'POST', body: '{' });
    expect(r.status).toBe(400);
  });
});

describe('prompt rules match in linear time', () => {
  it('a catastrophic pattern against a long prompt answers at once, case-insensitively', () => {
    const profile = parseProfile({
      seed: 1,
      rules: [
        { prompt: '^(a+)+$', do: [{ answer: 'no' }] },
        { prompt: 'ALPHA', do: [{ answer: 'yes' }] },
      ],
    });
    const t0 = performance.now();
    expect(matchingRule(profile, `${'a'.repeat(5000)}!`, undefined)).toBeUndefined();
    expect(matchingRule(profile, 'an alpha record', undefined)?.prompt).toBe('ALPHA');
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
