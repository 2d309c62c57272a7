import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { proposalPrompt, readProposal, type ProposalRequest } from '../src/tune/proposal.js';
import { viewRequest } from '../src/sim/dialects/index.js';
import type { ConversationView, Wire } from '../src/sim/conversation.js';
import { decideReply, type Reply } from '../src/sim/policy.js';
import { loadProfile, parseProfile, readProfile } from '../src/sim/profile.js';
import { proposeDescription } from '../src/sim/proposer.js';
import { bm25Scores, DEFAULT_ROUTER, routerChances, terms } from '../src/sim/router.js';
import { cleanup, ROOT } from './helpers.js';
import { claudeListing } from './claude-request.js';

const FAMILY = [
  { name: 'atl-jira', description: 'Create and update Jira issues, tickets and bugs.' },
  { name: 'atl-confluence', description: 'Write Confluence pages, meeting notes and team documentation.' },
];

/** Claude Code's first request, its listing as the reminder lines it sends. */
const claudeRequest = (prompt: string, family = FAMILY, tools = ['Skill', 'Read']) => ({
  model: 'm',
  tools: tools.map((name) => ({ name })),
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: claudeListing(family) },
        { type: 'text', text: prompt },
      ],
    },
  ],
});

const view = (prompt: string, family = FAMILY, tools?: string[]): ConversationView =>
  viewRequest('anthropic', claudeRequest(prompt, family, tools));

const calledSkill = (r: Reply): string | undefined =>
  r.type === 'message' ? r.blocks.flatMap((b) => (b.type === 'skill' ? [b.name] : [])).at(0) : undefined;

describe('BM25 over the listed descriptions', () => {
  it.each([
    ['a prompt term in one description raises that one', 'merge two pdf files', ['Merge PDF documents.', 'Send email.'], [true, false]],
    ['stop words are ignored', 'what is it that you would do with the', ['What is it that you do with the', 'Send email.'], [false, false]],
    ['a substring never matches: "art" is not in "start"', 'art', ['Start and restart the server.', 'Art gallery.'], [false, true]],
    ['words match by stem: "bugs" finds "bug"', 'file bugs', ['Report a bug.', 'Send email.'], [true, false]],
  ])('%s', (_, prompt, descriptions, scoring) => {
    const scores = bm25Scores(terms(prompt), descriptions.map(terms), DEFAULT_ROUTER);
    expect(scores.map((s) => s > 0)).toEqual(scoring);
  });

  it('a description holding more of the prompt scores higher', () => {
    const [one, two] = bm25Scores(terms('merge pdf files'), [terms('Merge documents.'), terms('Merge PDF files.')], DEFAULT_ROUTER);
    expect(two!).toBeGreaterThan(one!);
  });
});

describe('routerChances', () => {
  it.each([
    ['a prompt for one skill', 'file a bug in jira', FAMILY],
    ['a prompt for none', 'what is the capital of France', FAMILY],
    ['one skill', 'write notes', FAMILY.slice(0, 1)],
    ['no skill offered', 'file a bug', []],
  ])('sums to 1: %s', (_, prompt, family) => {
    const c = routerChances(prompt, family, DEFAULT_ROUTER);
    expect(c.skills.reduce((s, x) => s + x.p, c.none)).toBeCloseTo(1, 12);
  });

  it('with no skill offered, none is certain', () => {
    expect(routerChances('file a bug', [], DEFAULT_ROUTER)).toEqual({ skills: [], none: 1 });
  });

  it.each([
    ['atl-jira', 'log an incident for the outage', 'Create and update Jira issues, tickets, bugs, incidents and outages.'],
    ['atl-confluence', 'write up the meeting notes', 'Write Confluence pages, meeting notes and team documentation.'],
    ['atl-confluence', 'draft a runbook', 'Write Confluence pages, runbooks and team documentation.'],
  ])("editing %s's description to hold the prompt's words raises its chance: %s", (skill, prompt, edited) => {
    const before = FAMILY.map((s) => (s.name === skill ? { ...s, description: s.description.replace(/meeting notes and /, '') } : s));
    const after = FAMILY.map((s) => (s.name === skill ? { ...s, description: edited } : s));
    const chance = (family: typeof FAMILY) => routerChances(prompt, family, DEFAULT_ROUTER).skills.find((s) => s.name === skill)!.p;
    expect(chance(after)).toBeGreaterThan(chance(before) + 0.05);
  });
});

const REQUEST: ProposalRequest = {
  skill: 'atl-jira',
  current: FAMILY[0]!.description,
  failures: [
    { kind: 'missed', prompt: 'Log an incident for the outage of checkout', rate: '0/3' },
    { kind: 'missed', prompt: 'Report the outage of the payment service', rate: '1/3' },
    { kind: 'missed', prompt: 'Raise a problem ticket about slow logins', rate: '0/3' },
    { kind: 'false-trigger', prompt: 'Update my resume and create a cover letter', rate: '2/3' },
  ],
  siblings: [FAMILY[1]!],
  attempts: [],
  maxChars: 1024,
};
const attempts = (n: number) => Array.from({ length: n }, (_, i) => ({ description: `try ${i}`, tuneScore: 0.5 }));

describe('the proposer stand-in', () => {
  const propose = (r: Partial<ProposalRequest>, words = 8, seed = 1) => proposeDescription({ ...REQUEST, ...r }, { seed, words });

  it('adds the missed prompts’ words the description lacks, the most widely missed first', () => {
    const out = propose({}, 3);
    expect(out).toMatch(/^.*Jira issues, tickets and bugs\. Also use it for requests about outage, \w+, \w+\.$/);
    expect(out).not.toMatch(/about.*ticket/); // already in the description
  });

  it('drops words only the false triggers share, keeping the missed prompts’ own', () => {
    const out = propose({});
    expect(out).not.toMatch(/\b(create|update)\b/i);
    expect(out).toMatch(/^Jira issues, tickets and bugs\./);
  });

  it.each([40, 60, 80, 100, 1024])('stays within maxChars %i, whole words only, no angle brackets', (maxChars) => {
    const out = propose({ maxChars, current: `${REQUEST.current} <b>bold</b>` });
    expect(out.length).toBeLessThanOrEqual(maxChars);
    expect(out).not.toMatch(/[<>]/);
    const known = new Set(
      [REQUEST.current, 'b bold Also use it for requests about', ...REQUEST.failures.map((f) => f.prompt)].flatMap((t) =>
        t.toLowerCase().match(/[a-z0-9]+/g),
      ),
    );
    for (const word of out.toLowerCase().match(/[a-z0-9]+/g) ?? []) expect(known).toContain(word);
  });

  it('is deterministic for a seed and request, and differs across attempts', () => {
    expect(propose({}, 2, 7)).toBe(propose({}, 2, 7));
    const tries = new Set([0, 1, 2, 3, 4, 5].map((n) => propose({ attempts: attempts(n) }, 2, 7)));
    expect(tries.size).toBeGreaterThan(1);
  });

  it('with nothing to add or drop, proposes the current description again', () => {
    expect(propose({ failures: [] })).toBe(REQUEST.current);
  });

  it('a later proposal extends the added sentence rather than adding a second one', () => {
    const first = propose({}, 2);
    const second = propose({ current: first, attempts: attempts(1) }, 2);
    expect(second.match(/Also use it/g)).toHaveLength(1);
    expect(second.startsWith(first.slice(0, -1))).toBe(true);
  });

  it("its proposal raises the router's chance on the missed prompts", () => {
    const proposed = propose({});
    const chance = (description: string, prompt: string) =>
      routerChances(prompt, [{ ...FAMILY[0]!, description }, FAMILY[1]!], DEFAULT_ROUTER).skills[0]!.p;
    for (const f of REQUEST.failures.filter((f) => f.kind === 'missed')) {
      expect(chance(proposed, f.prompt)).toBeGreaterThan(chance(REQUEST.current, f.prompt));
    }
  });
});

describe('the policy with a router', () => {
  const routed = parseProfile({ seed: 5, router: {} });

  it.each([
    ['a prompt matching one description well', 'file a bug ticket in jira and update the issue'],
    ['a prompt between both', 'write jira tickets about the meeting notes'],
    ['a prompt for none', 'what is the capital of France'],
  ])('picks each skill in proportion to routerChances (2000 seeded draws, ±4 points): %s', (_, prompt) => {
    const v = view(prompt);
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const name = calledSkill(decideReply(routed, v, { key: `trial-${i}` })) ?? 'none';
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const c = routerChances(prompt, FAMILY, DEFAULT_ROUTER);
    for (const { name, p } of [...c.skills, { name: 'none', p: c.none }]) {
      expect(Math.abs((counts.get(name) ?? 0) / 2000 - p)).toBeLessThan(0.04);
    }
  });

  it.each([
    ['a case rule', { case: 'c1', do: [{ skill: 'atl-confluence' }] }, 'file a bug ticket in jira and update the issue', 'atl-confluence'],
    ['a prompt rule', { prompt: 'bug', do: [{ answer: 'No.' }] }, 'file a bug ticket in jira and update the issue', undefined],
  ])('rules win over the router: %s', (_, rule, prompt, skill) => {
    const profile = parseProfile({ seed: 5, router: { temperature: 0.05 }, rules: [rule] });
    for (let i = 0; i < 50; i++) expect(calledSkill(decideReply(profile, view(prompt), { key: `t${i}`, caseId: 'c1' }))).toBe(skill);
  });

  it('without a router block, a prompt no rule matches gets the default as before', () => {
    const plain = parseProfile({ seed: 5 });
    for (let i = 0; i < 50; i++)
      expect(calledSkill(decideReply(plain, view('file a bug ticket in jira'), { key: `t${i}` }))).toBeUndefined();
  });

  it.each([
    ['no Skill tool', ['Read']],
    ['no tools at all', []],
  ])('the ablation view (%s) never calls a skill', (_, tools) => {
    const sure = parseProfile({ seed: 5, router: { temperature: 0.05, threshold: 0 } });
    const v = view('file a bug ticket in jira and update the issue', FAMILY, tools);
    expect(routerChances(v.prompt, FAMILY, sure.router!).skills[0]!.p).toBeGreaterThan(0.99);
    for (let i = 0; i < 200; i++) expect(calledSkill(decideReply(sure, v, { key: `t${i}` }))).toBeUndefined();
  });

  it('plans from the body once the routed skill loaded', () => {
    const sure = parseProfile({ seed: 5, router: { temperature: 0.05, threshold: 0 } });
    const req = claudeRequest('file a bug ticket in jira');
    const after = {
      ...req,
      messages: [
        ...req.messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'atl-jira' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: atl-jira' },
            { type: 'text', text: 'Base directory for this skill: /ws/.claude/skills/atl-jira\n\n```bash\natl jira create-issue\n```' },
          ],
        },
      ],
    };
    const reply = decideReply(sure, viewRequest('anthropic', after), { key: 'k' });
    expect(reply).toMatchObject({ type: 'message', blocks: [{ type: 'text', text: expect.stringContaining('atl jira create-issue') }] });
  });
});

describe('a tune request gets a <description> answer and no tool call, on every CLI', () => {
  const fixture = (name: string) => readFileSync(join(ROOT, 'test/fixtures/codex-gemini', name), 'utf8');
  const prompt = proposalPrompt(REQUEST);
  /** A real first request with its prompt swapped for the tune request. */
  const withPrompt = (json: string) => JSON.parse(json.replaceAll('What is the phrase?', JSON.stringify(prompt).slice(1, -1))) as unknown;
  const bodies: [string, Wire, unknown][] = [
    ['Claude Code', 'anthropic', claudeRequest(prompt)],
    ['Codex', 'openai-responses', withPrompt(JSON.stringify(JSON.parse(fixture('sim-codex-0.169-requests.json')).first))],
    ['Gemini', 'gemini', withPrompt(JSON.stringify(JSON.parse(fixture('sim-gemini-0.61-requests.json')).first))],
  ];
  const profiles = [
    ['with a router', parseProfile({ seed: 3, router: {}, proposer: { words: 3 } })],
    ['with a rule matching every prompt', parseProfile({ seed: 3, rules: [{ prompt: '.', do: [{ skill: 'mock-skill' }] }] })],
  ] as const;

  it.each(bodies.flatMap(([cli, wire, body]) => profiles.map(([label, profile]) => [cli, label, wire, body, profile] as const)))(
    '%s, %s',
    (_, __, wire, body, profile) => {
      const reply = decideReply(profile, viewRequest(wire, body), { key: 'k' });
      expect(reply.type).toBe('message');
      const blocks = reply.type === 'message' ? reply.blocks : [];
      expect(blocks.map((b) => b.type)).toEqual(['text']);
      const text = blocks[0]?.type === 'text' ? blocks[0].text : '';
      expect(readProposal(text)).toBe(proposeDescription(REQUEST, { seed: 3, words: profile.proposer?.words ?? 8 }));
    },
  );
});

describe('profile: router and proposer blocks', () => {
  it('an empty router block takes the defaults; a profile without the blocks has none (its behaviour and hash unchanged)', () => {
    expect(parseProfile({ router: {}, proposer: {} })).toMatchObject({ router: DEFAULT_ROUTER, proposer: { words: 8 } });
    const plain = parseProfile({});
    expect('router' in plain || 'proposer' in plain).toBe(false);
    expect(loadProfile(join(ROOT, 'sim/demo.profile.yaml')).router).toBeUndefined();
  });

  it.each([
    [{ router: { temperature: 0 } }, /router temperature must be above 0/],
    [{ router: { temperature: 11 } }, /router temperature must be at most 10/],
    [{ router: { threshold: -1 } }, /router threshold must be 0 or more/],
    [{ router: { k1: -0.5 } }, /router k1 must be 0 or more/],
    [{ router: { b: 1.5 } }, /router b must be between 0 and 1/],
    [{ router: { temp: 1 } }, /Unrecognized key/],
    [{ proposer: { words: 0 } }, /proposer words must be at least 1/],
    [{ proposer: { words: 2.5 } }, /integer/],
  ])('refuses %j', (data, message) => {
    expect(() => parseProfile(data)).toThrow(message);
  });

  const dir = mkdtempSync(join(tmpdir(), 'sp-router-'));
  afterAll(() => cleanup(dir));
  it('a profile file out of range is refused at its file:line:col', () => {
    const file = join(dir, 'sim.yaml');
    writeFileSync(file, 'seed: 1\nrouter:\n  temperature: 0.5\n  b: 2\n');
    expect(() => readProfile(file)).toThrow(/sim\.yaml:4:6: `router\.b`: router b must be between 0 and 1/);
  });
});
