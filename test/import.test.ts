import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCases } from '../src/load/cases.js';
import { InputError } from '../src/util/input-error.js';
import { loadSkills } from '../src/load/skills.js';
import { configSchema } from '../src/run/config-schema.js';
import { baseProject, projectsRemovedAfterAll, ROOT, runInProcess } from './helpers.js';

/** A skill-creator trigger eval set, with prompts that need quoting in YAML. */
const EVALS = [
  { query: 'please create an alpha record for the Q3 launch', should_trigger: true },
  { query: 'what is the weather like', should_trigger: false },
  { query: 'alpha: list every record, then "close" the old ones', should_trigger: true },
  { query: 'yes', should_trigger: false },
  { query: '- close alpha record 12\nand tell me when done', should_trigger: true, note: 'extra keys are ignored' },
  { query: 'Gère les fiches «alpha» 😀 # not a comment', should_trigger: false },
];
const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';
/** An eval set saved as Windows-1252: é is the one byte 0xE9, at offset 15. */
const CP1252 = Buffer.from('[{"query": "café", "should_trigger": true}]\n', 'latin1');

const project = projectsRemovedAfterAll(() => ({ ...baseProject(), 'evals/alpha.json': json(EVALS) }));
const decision = configSchema.parse({}).decision;
const shape = (dir: string, glob: string) =>
  loadCases(join(dir, glob), loadSkills(join(dir, 'skills')), decision).cases.map((c) => ({
    id: c.id,
    prompt: c.prompt,
    expect: c.expect,
    tags: c.tags,
  }));

describe('skillprobe import: a skill-creator trigger eval set as a case file', () => {
  it('writes cases/<skill>.yaml that loads back to the cases the eval set loads as', async () => {
    const dir = project();
    const r = await runInProcess(['import', 'evals/alpha.json', '--skill', 'alpha'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote cases\/alpha\.yaml: 6 cases for alpha from evals\/alpha\.json \(3 should trigger, 3 near misses\)/);
    expect(r.stdout).toMatch(/\n {2}skillprobe lint\n {2}skillprobe tune alpha$/);
    const written = shape(dir, 'cases/alpha.yaml');
    expect(written).toEqual(shape(dir, 'evals/alpha.json'));
    expect(written.map((c) => c.id)).toEqual([
      'alpha-trigger-1',
      'alpha-quiet-1',
      'alpha-trigger-2',
      'alpha-quiet-2',
      'alpha-trigger-3',
      'alpha-quiet-3',
    ]);
    expect(written.map((c) => c.prompt)).toEqual(EVALS.map((e) => e.query));
    // should_trigger false: alpha must not fire, a sibling may take the request.
    expect(written[1]).toEqual({
      id: 'alpha-quiet-1',
      prompt: 'what is the weather like',
      expect: { skill: 'none', not: 'alpha' },
      tags: ['near-miss'],
    });
    expect(written[0]).toMatchObject({ expect: { skill: 'alpha' }, tags: [] });
    // The editor's schema header, resolved from the file's own folder, is the published case schema.
    const text = readFileSync(join(dir, 'cases/alpha.yaml'), 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
    expect(schema && resolve(dir, 'cases', schema)).toBe(join(ROOT, 'schemas', 'cases.schema.json'));
    expect(text).toContain(
      '- id: alpha-trigger-1\n  prompt: please create an alpha record for the Q3 launch\n  expect: { skill: alpha }\n',
    );
    expect(text).toContain('  prompt: "yes"\n  expect: { not: alpha }\n  tags: [near-miss]\n');
  });

  it('finds the skill from the folder holding the file, or the file name before its first dot; --out names the file', async () => {
    const dir = project();
    writeFileSync(join(dir, 'skills/alpha-beta/evals.json'), json(EVALS.slice(0, 2)));
    const inFolder = await runInProcess(['import', 'skills/alpha-beta/evals.json', '--out', 'suite/beta.yaml'], { cwd: dir });
    expect(inFolder.exitCode, inFolder.stderr).toBe(0);
    expect(shape(dir, 'suite/beta.yaml').map((c) => [c.id, c.expect])).toEqual([
      ['alpha-beta-trigger-1', { skill: 'alpha-beta' }],
      ['alpha-beta-quiet-1', { skill: 'none', not: 'alpha-beta' }],
    ]);
    // suite/ did not exist, its parent did: made, and said.
    expect(inFolder.stdout).toMatch(/\nnote: made the folder suite\n/);
    // The config's `cases` (cases/*.yaml by default) does not take suite/beta.yaml: said.
    expect(inFolder.stdout).toMatch(/note: the config's `cases` \(cases\/\*\.yaml\) does not take suite\/beta\.yaml/);
    writeFileSync(join(dir, 'evals/alpha-beta.evals.json'), json(EVALS.slice(1, 2)));
    const named = await runInProcess(['import', 'evals/alpha-beta.evals.json'], { cwd: dir });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(shape(dir, 'cases/alpha-beta.yaml').map((c) => c.id)).toEqual(['alpha-beta-quiet-1']);
  });

  it('never overwrites a case file without --force', async () => {
    const dir = project();
    const first = await runInProcess(['import', 'evals/alpha.json', '--out', 'cases/main.yaml', '--skill', 'alpha'], { cwd: dir });
    expect(first.exitCode).toBe(2);
    expect(first.stderr).toBe('skillprobe: cases/main.yaml: already exists — pass --force to overwrite it, or --out another path');
    expect(readFileSync(join(dir, 'cases/main.yaml'), 'utf8')).toBe(baseProject()['cases/main.yaml']);
    const forced = await runInProcess(['import', 'evals/alpha.json', '--out', 'cases/main.yaml', '--skill', 'alpha', '--force'], {
      cwd: dir,
    });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(shape(dir, 'cases/main.yaml')).toHaveLength(EVALS.length);
  });

  const BAD: { name: string; files?: Record<string, string | Buffer>; args: string[]; message: RegExp }[] = [
    {
      name: 'a missing file',
      args: ['evals/nothing.json'],
      message: /^skillprobe: evals\/nothing\.json: eval file not found — check the path/,
    },
    {
      name: 'not JSON',
      files: { 'evals/alpha.json': '[\n  {"query": "a", "should_trigger": true},\n  {query: "b"}\n]\n' },
      args: ['evals/alpha.json'],
      message: /^skillprobe: evals\/alpha\.json:3:4: not valid JSON: .* — fix the JSON there/,
    },
    {
      name: 'no format skillprobe imports',
      files: { 'evals/alpha.json': json({ queries: EVALS }) },
      args: ['evals/alpha.json'],
      message:
        /^skillprobe: evals\/alpha\.json:1:1: the file is an object \(keys queries\), which is no format skillprobe imports — write it as skill-creator's trigger eval list, a JSON array of \{"query"/,
    },
    {
      name: 'an empty array',
      files: { 'evals/alpha.json': '[]' },
      args: ['evals/alpha.json'],
      message: /:1:1: the eval set holds no entries/,
    },
    {
      name: 'an unknown skill',
      args: ['evals/alpha.json', '--skill', 'gamma'],
      message: /^skillprobe: --skill: no skill "gamma" in skills — the skills are alpha, alpha-beta$/,
    },
    {
      name: 'a misspelt skill',
      args: ['evals/alpha.json', '--skill', 'alpah'],
      message: /^skillprobe: --skill: no skill "alpah" in skills — did you mean alpha\? the skills are alpha, alpha-beta$/,
    },
    {
      name: 'a file that names no skill, outside every skill folder',
      files: { 'evals/trigger_evals.json': json(EVALS) },
      args: ['evals/trigger_evals.json'],
      message: /^skillprobe: evals\/trigger_evals\.json: cannot tell which skill .* — pass --skill with one of alpha, alpha-beta$/,
    },
    {
      name: 'an entry without a query',
      files: { 'evals/alpha.json': json([EVALS[0], { prompt: 'x', should_trigger: true }]) },
      args: ['evals/alpha.json'],
      message: /^skillprobe: evals\/alpha\.json:6:3: entry 2 has no "query" — add "query"/,
    },
    {
      name: 'should_trigger as a string',
      files: { 'evals/alpha.json': json([{ query: 'x', should_trigger: 'yes' }]) },
      args: ['evals/alpha.json'],
      message: /^skillprobe: evals\/alpha\.json:4:23: entry 1: "should_trigger" is "yes", not true or false — write true or false/,
    },
    {
      name: 'an empty query',
      files: { 'evals/alpha.json': json([EVALS[0], { query: '', should_trigger: false }]) },
      args: ['evals/alpha.json'],
      message:
        /^skillprobe: evals\/alpha\.json:7:14: entry 2: "query" is empty — write the request as a user would type it, or remove the entry$/,
    },
    {
      name: 'a query asked twice with opposite answers',
      files: { 'evals/alpha.json': json([EVALS[0], { query: EVALS[0]!.query, should_trigger: false }]) },
      args: ['evals/alpha.json'],
      message:
        /^skillprobe: evals\/alpha\.json:8:23: entry 2 asks entry 1's query again \(line 2\) with should_trigger false, where entry 1 says true — keep the entry that is right and remove the other$/,
    },
    {
      name: 'a byte that is not UTF-8',
      files: { 'evals/alpha.json': CP1252 },
      args: ['evals/alpha.json'],
      message: /^skillprobe: evals\/alpha\.json:1:16: byte 0xE9 at offset 15 is not UTF-8 \(.*\) — save the file as UTF-8$/,
    },
    {
      name: 'a query the case file would refuse (a slash command)',
      files: { 'evals/alpha.json': json([{ query: '/alpha go', should_trigger: true }]) },
      args: ['evals/alpha.json'],
      message: /^skillprobe: evals\/alpha\.json:3:14: case "alpha-trigger-1" starts with "\/alpha"/,
    },
    {
      name: 'an --out whose folder and its parent do not exist',
      args: ['evals/alpha.json', '--out', 'no/such/alpha.yaml'],
      message:
        /^skillprobe: no\/such\/alpha\.yaml: neither its folder no\/such nor that folder's parent no exists — create the folder first, or pass --out a path in a folder that exists$/,
    },
    {
      name: 'a query that is a number, and an entry that is a string',
      files: { 'evals/alpha.json': '[{"query": 5, "should_trigger": true},\n "text"]' },
      args: ['evals/alpha.json'],
      message:
        /^skillprobe: 2 input problems:\nevals\/alpha\.json:1:12: entry 1: "query" is a number, not text .*\nevals\/alpha\.json:2:2: entry 2 is a string, not an object/,
    },
  ];

  it.each(BAD)('refuses $name: exit 2, file:line, nothing written', async ({ files, args, message }) => {
    const dir = project();
    for (const [rel, text] of Object.entries(files ?? {})) writeFileSync(join(dir, rel), text);
    const before = [readdirSync(dir), readdirSync(join(dir, 'cases'))];
    const r = await runInProcess(['import', ...args], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect([readdirSync(dir), readdirSync(join(dir, 'cases'))]).toEqual(before);
  });

  it('drops a repeated query with a warning naming both entries: the request is measured once', async () => {
    const dir = project();
    writeFileSync(join(dir, 'evals/alpha.json'), json([...EVALS, { ...EVALS[1], query: `${EVALS[1]!.query}  ` }]));
    const r = await runInProcess(['import', 'evals/alpha.json'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'warning: evals/alpha.json:27:3: entry 7 repeats the query of entry 2 (line 6): dropped, so the request counts once',
    );
    expect(r.stdout).toMatch(
      /^wrote cases\/alpha\.yaml: 6 cases for alpha from evals\/alpha\.json \(3 should trigger, 3 near misses; 1 repeated entry dropped\)/,
    );
    expect(shape(dir, 'cases/alpha.yaml').map((c) => c.prompt)).toEqual(EVALS.map((e) => e.query));
  });
});

describe('loadCases reads trigger eval sets among the case files', () => {
  it('skills/<name>/…json and cases/<name>.json load as cases of that skill, beside YAML cases', () => {
    const dir = project();
    writeFileSync(join(dir, 'skills/alpha-beta/evals.json'), json([{ query: 'beta in alpha', should_trigger: true }]));
    writeFileSync(join(dir, 'cases/alpha.evals.json'), json(EVALS.slice(0, 2)));
    const skills = loadSkills(join(dir, 'skills'));
    const suite = loadCases([join(dir, 'cases/*'), join(dir, 'skills/*/*.json')], skills, decision);
    expect(
      suite.cases.map((c) => [c.id, c.expect.not ?? c.expect.skill, c.tags, relative(dir, resolve(c.source.file)), c.source.line]),
    ).toEqual([
      ['alpha-trigger-1', 'alpha', [], 'cases/alpha.evals.json', 2],
      ['alpha-quiet-1', 'alpha', ['near-miss'], 'cases/alpha.evals.json', 6],
      ['pos-alpha', 'alpha', ['happy'], 'cases/main.yaml', 1],
      ['neg-weather', 'none', [], 'cases/main.yaml', 5],
      ['alpha-beta-trigger-1', 'alpha-beta', [], 'skills/alpha-beta/evals.json', 2],
    ]);
    expect(suite.cases[0]!.source.at.prompt).toEqual({ line: 3, col: 14 });
  });

  it.each<[string, string, unknown, RegExp]>([
    ['names no skill', 'evals/other.json', EVALS, /evals\/other\.json: cannot tell which skill .* — name it after its skill/],
    [
      'a slash command as a query',
      'evals/alpha.json',
      [{ query: '/alpha do it', should_trigger: true }],
      /alpha\.json:3:14: case "alpha-trigger-1" starts with "\/alpha"/,
    ],
    ['an empty query', 'evals/alpha.json', [{ query: ' ', should_trigger: false }], /alpha\.json:3:14: entry 1: "query" is empty/],
    [
      'repeats a query',
      'evals/alpha.json',
      [EVALS[0], EVALS[1], { ...EVALS[0], query: ` ${EVALS[0]!.query} ` }],
      /alpha\.json:10:3: entry 3 repeats the query of entry 1 \(line 2\) — remove it/,
    ],
    ['holds a byte that is not UTF-8', 'evals/alpha.json', CP1252, /alpha\.json:1:16: byte 0xE9 at offset 15 is not UTF-8/],
    [
      '(a YAML case file) holds a byte that is not UTF-8',
      'cases/cp1252.yaml',
      Buffer.from('- id: cafe\n  prompt: "un café"\n  expect: { skill: alpha }\n', 'latin1'),
      /cp1252\.yaml:2:18: byte 0xE9 at offset 28 is not UTF-8 \(the case file is in another encoding, such as Windows-1252\) — save the file as UTF-8/,
    ],
  ])('a set that %s is refused with file:line', (_, rel, content, message) => {
    const dir = project();
    writeFileSync(join(dir, rel), Buffer.isBuffer(content) ? content : json(content));
    let error: unknown;
    try {
      loadCases(join(dir, rel), loadSkills(join(dir, 'skills')), decision);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(message);
  });
});
