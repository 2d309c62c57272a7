import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { fixtureSeal } from '../src/agents/registry.js';
import type { Case } from '../src/load/cases.js';
import { configSchema, type Arm } from '../src/run/config-schema.js';
import { loadSkills } from '../src/load/skills.js';
import { gradableCase } from '../src/trials/stored-case.js';
import { newManifest } from '../src/runner/execute.js';
import { resumeChanges } from '../src/runner/resume.js';
import type { Transcript } from '../src/transcript/types.js';
import { furnishWorkspace, snapshotFixtures } from '../src/workspace/fixtures.js';
import { checkWorkspaceRoot, createSealedWorkspace } from '../src/workspace/sealed.js';
import { baseProject, cleanup, loadedSuite, makeProject, runInProcess, spyBinary, testEnv } from './helpers.js';
import { RunStore } from '../src/run/store.js';

/** Every byte value once: a file no text decoding would keep whole. */
const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

/** A project with a suite folder of fixtures (binary, a script, a nested file, a link inside), inline ones and instruction files. */
function fixtureProject(): string {
  const dir = makeProject({
    ...baseProject(),
    'skillprobe.config.yaml': 'workspace: fixtures\ninstructions: { text: "Answer briefly." }\n',
    'cases/main.yaml': [
      '- id: plain',
      '  prompt: "summarise report.pdf"',
      '  expect: { skill: alpha }',
      '- id: own',
      '  prompt: "chart data.csv"',
      '  expect: { skill: alpha }',
      '  files: { data.csv: "x,y\\n1,2\\n", extra/notes.txt: "see the chart" }',
      '  instructions: ../TEAM.md',
      '',
    ].join('\n'),
    'TEAM.md': '# Team\n\nUse the house style.\n',
    'fixtures/report.pdf': '',
    'fixtures/data.csv': 'a,b\n',
    'fixtures/nested/deep/readme.md': '# deep\n',
    'fixtures/run.sh': '#!/bin/sh\necho hi\n',
  });
  writeFileSync(join(dir, 'fixtures/report.pdf'), BINARY);
  chmodSync(join(dir, 'fixtures/run.sh'), 0o755);
  symlinkSync('data.csv', join(dir, 'fixtures/copy.csv'));
  dirs.push(dir);
  return dir;
}

/** A project of `files`, removed after the file's tests. */
function removedAfter(files: Record<string, string>): string {
  const dir = makeProject(files);
  dirs.push(dir);
  return dir;
}

const byId = (cases: Case[], id: string) => cases.find((c) => c.id === id)!;

describe('fixtures load: the suite workspace, then the case files over it, and the instruction file', () => {
  let cases: Case[];
  beforeAll(async () => {
    cases = (await loadedSuite(fixtureProject())).suite.cases;
  });

  it('a case without files of its own gets the suite folder, links copied as the files they name, and the suite instruction file', () => {
    const f = byId(cases, 'plain').fixtures!;
    expect(f.files.map((x) => [x.path, x.executable, x.bytes]).sort()).toEqual([
      ['copy.csv', false, 4],
      ['data.csv', false, 4],
      ['nested/deep/readme.md', false, 7],
      ['report.pdf', false, 256],
      ['run.sh', true, 18],
    ]);
    expect(f.instructions).toMatchObject({ from: { text: 'Answer briefly.' }, bytes: 15 });
  });

  it("a case's own file replaces the suite's of its path, adds its others, and its instruction file replaces the suite's", () => {
    const f = byId(cases, 'own').fixtures!;
    expect(f.files.find((x) => x.path === 'data.csv')).toMatchObject({
      from: { text: 'x,y\n1,2\n' },
      declared: { file: 'cases/main.yaml' },
    });
    expect(f.files.map((x) => x.path).sort()).toEqual([
      'copy.csv',
      'data.csv',
      'extra/notes.txt',
      'nested/deep/readme.md',
      'report.pdf',
      'run.sh',
    ]);
    expect(f.instructions?.from).toEqual({ file: expect.stringMatching(/\/TEAM\.md$/) });
  });

  it('each case hashes its own fixtures into what run.json stores; a suite without fixtures stores none', async () => {
    const [plain, own] = ['plain', 'own'].map((id) => byId(cases, id).fixtures!.hash);
    expect(plain).toMatch(/^[0-9a-f]{64}$/);
    expect(own).not.toBe(plain);
    expect(gradableCase(byId(cases, 'own'), configSchema.parse({})).fixtures).toEqual({ hash: own, instructions: true });
    const none = (await loadedSuite(removedAfter(baseProject()))).suite.cases;
    expect(none.map((c) => c.fixtures)).toEqual([undefined, undefined]);
  });

  it('the hash changes with any byte, a file mode or a path; not with a reload of the same files', async () => {
    const dir = fixtureProject();
    const first = byId((await loadedSuite(dir)).suite.cases, 'plain').fixtures!.hash;
    expect(byId((await loadedSuite(dir)).suite.cases, 'plain').fixtures!.hash).toBe(first);
    const edits: [string, () => void][] = [
      ['a byte', () => writeFileSync(join(dir, 'fixtures/report.pdf'), Buffer.from([...BINARY].reverse()))],
      ['a mode', () => chmodSync(join(dir, 'fixtures/data.csv'), 0o755)],
      ['a path', () => writeFileSync(join(dir, 'fixtures/nested/other.md'), '# deep\n')],
    ];
    const seen = new Set([first]);
    for (const [what, edit] of edits) {
      edit();
      const hash = byId((await loadedSuite(dir)).suite.cases, 'plain').fixtures!.hash;
      expect(seen.has(hash), what).toBe(false);
      seen.add(hash);
    }
  });
});

/** Every path under `dir`, folders with a trailing slash, links not followed. */
const tree = (dir: string, rel = ''): string[] =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? [`${join(rel, d.name)}/`, ...tree(dir, join(rel, d.name))] : [join(rel, d.name)],
  );

describe("the workspace copy: a sealed workspace made by the real code holds the case's fixtures byte for byte, in both arms", () => {
  const project = fixtureProject();
  let cases: Case[];
  beforeAll(async () => {
    cases = (await loadedSuite(project)).suite.cases;
  });
  const skills = loadSkills(join(project, 'skills'));

  it.each<[string, Arm, string]>([
    ['Claude Code', 'skill', claudeCode.instructionFiles[0]!],
    ['Codex', 'ablation', codex.instructionFiles[0]!],
    ['the Gemini CLI', 'skill', gemini.instructionFiles[0]!],
  ])('%s, %s arm: files, modes and the instruction file as %s', async (_cli, arm, instructionFile) => {
    const snapshot = join(removedAfter({}), 'fixtures');
    const copies = await snapshotFixtures(cases, snapshot);
    const ws = await createSealedWorkspace({ skills: arm === 'skill' ? skills : [], skillsFolder: '.claude/skills' });
    try {
      const own = byId(copies, 'own');
      await furnishWorkspace(ws.dir, own.fixtures, instructionFile);
      expect(readFileSync(join(ws.dir, 'report.pdf'))).toEqual(BINARY);
      expect(readFileSync(join(ws.dir, 'data.csv'), 'utf8')).toBe('x,y\n1,2\n');
      expect(readFileSync(join(ws.dir, 'copy.csv'), 'utf8')).toBe('a,b\n');
      expect(lstatSync(join(ws.dir, 'copy.csv')).isSymbolicLink()).toBe(false);
      expect(readFileSync(join(ws.dir, 'nested/deep/readme.md'), 'utf8')).toBe('# deep\n');
      expect(readFileSync(join(ws.dir, 'extra/notes.txt'), 'utf8')).toBe('see the chart');
      expect(statSync(join(ws.dir, 'run.sh')).mode & 0o777).toBe(0o755);
      expect(statSync(join(ws.dir, 'data.csv')).mode & 0o777).toBe(0o644);
      expect(readFileSync(join(ws.dir, instructionFile), 'utf8')).toBe('# Team\n\nUse the house style.\n');
      const held = tree(ws.dir).filter((p) => !/^\.(git|claude)\/./.test(p));
      expect(held.sort()).toEqual(
        [
          '.git/',
          'copy.csv',
          'data.csv',
          'extra/',
          'extra/notes.txt',
          instructionFile,
          'nested/',
          'nested/deep/',
          'nested/deep/readme.md',
          'report.pdf',
          'run.sh',
          ...(arm === 'skill' ? ['.claude/'] : []),
        ].sort(),
      );
      // Nothing landed beside the workspace: its root holds only what a sealed workspace always holds.
      expect(readdirSync(ws.root).sort()).toEqual(['harness', 'home', 'owner.json', 'tmp', 'ws']);
      expect(tree(ws.home)).toEqual([]);
      expect(tree(ws.harnessDir)).toEqual([]);
    } finally {
      await ws.cleanup();
    }
  });

  it('the run copies from its own snapshot: an edit of a fixture after the start never reaches a trial', async () => {
    const snapshot = join(removedAfter({}), 'fixtures');
    const copies = await snapshotFixtures(cases, snapshot);
    writeFileSync(join(project, 'fixtures/data.csv'), 'edited\n');
    const ws = await createSealedWorkspace({ skills: [], skillsFolder: '.claude/skills' });
    try {
      await furnishWorkspace(ws.dir, byId(copies, 'plain').fixtures, 'CLAUDE.md');
      expect(readFileSync(join(ws.dir, 'data.csv'), 'utf8')).toBe('a,b\n');
    } finally {
      await ws.cleanup();
      writeFileSync(join(project, 'fixtures/data.csv'), 'a,b\n');
    }
  });

  it('a fixture edited between loading and the start is refused (the run would record one hash and copy other bytes)', async () => {
    const dir = fixtureProject();
    const loaded = (await loadedSuite(dir)).suite.cases;
    writeFileSync(join(dir, 'fixtures/report.pdf'), 'changed');
    await expect(snapshotFixtures(loaded, join(removedAfter({}), 'fixtures'))).rejects.toThrow(
      /^skillprobe\.config\.yaml:1:12: .*fixtures\/report\.pdf changed while the run was starting — run again once the files are saved$/,
    );
  });

  it('a suite without fixtures leaves no snapshot folder in the run', async () => {
    const run = removedAfter({});
    await snapshotFixtures([{ fixtures: undefined }], join(run, 'fixtures'));
    expect(readdirSync(run)).toEqual([]);
  });

  it('a path that would leave the workspace is never written, whatever reached the copy', async () => {
    const ws = await createSealedWorkspace({ skills: [], skillsFolder: '.claude/skills' });
    try {
      const bad = {
        files: [{ path: '../escape.txt', from: { text: 'x' }, executable: false, bytes: 1, sha256: '', declared: { file: 'f' } }],
      };
      await expect(furnishWorkspace(ws.dir, bad, 'CLAUDE.md')).rejects.toThrow(/would land outside the trial's workspace/);
      expect(readdirSync(ws.root)).not.toContain('escape.txt');
    } finally {
      await ws.cleanup();
    }
  });
});

describe("a fixture edited since a run started is drift: run.json's hashes name it on resume", () => {
  it('the manifests of one suite loaded before and after an edit differ in the fixtures of exactly the cases that hold it', async () => {
    const dir = fixtureProject();
    const before = newManifest(await loadedSuite(dir), {});
    expect(before.fixturesHash).toMatch(/^[0-9a-f]{64}$/);
    expect(before.cases.defs.map((d) => d.fixtures?.instructions)).toEqual([true, true]);
    expect(resumeChanges(before, newManifest(await loadedSuite(dir), {}), undefined)).toEqual([]);
    // report.pdf is the suite's, in both cases; notes.txt only the second case's.
    writeFileSync(join(dir, 'fixtures/report.pdf'), 'edited');
    const edited = newManifest(await loadedSuite(dir), {});
    expect(resumeChanges(before, edited, undefined)).toEqual([
      `fixtures (the user's files of plain, own: ${before.fixturesHash!.slice(0, 8)} → ${edited.fixturesHash!.slice(0, 8)})`,
    ]);
    writeFileSync(join(dir, 'TEAM.md'), 'another house style\n');
    expect(resumeChanges(edited, newManifest(await loadedSuite(dir), {}), undefined)).toEqual([
      expect.stringMatching(/^fixtures \(the user's files of own: /),
    ]);
  });
});

describe('run --resume of a run whose fixtures were edited since it started', () => {
  it('is refused before any trial, naming the cases whose fixtures changed', async () => {
    const dir = fixtureProject();
    const spy = spyBinary(dir);
    // The run as it started: its manifest from the suite as it was, interrupted before any trial.
    const started = newManifest(await loadedSuite(dir), {});
    const store = await RunStore.create(join(dir, 'runs'), started.runId);
    await store.writeManifest({
      ...started,
      status: 'interrupted',
      owner: undefined,
      agent: { ...started.agent, binary: spy.path },
      config: { ...started.config, agentBinary: spy.path },
    });
    writeFileSync(join(dir, 'fixtures/nested/deep/readme.md'), '# edited\n');
    const args = ['run', '--resume', store.dir, '--agent-binary', spy.path];
    const r = await runInProcess(args, { cwd: dir, env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }) });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /changed since this run started: fixtures \(the user's files of plain, own: [0-9a-f]{8} → [0-9a-f]{8}\) — .*--force/,
    );
    // No trial started: the run folder holds what it held (asking the binary its version is all a resume spawned).
    expect(readdirSync(store.dir).sort()).toEqual(['run.json', 'trials']);
    expect(readdirSync(join(store.dir, 'trials'))).toEqual([]);
  });
});

describe('each adapter writes the instruction file under its own name, and nothing may be named like one', () => {
  it('Claude Code CLAUDE.md, Codex AGENTS.md, the Gemini CLI GEMINI.md', () => {
    expect([claudeCode, codex, gemini].map((a) => a.instructionFiles[0])).toEqual(['CLAUDE.md', 'AGENTS.md', 'GEMINI.md']);
  });

  it.each([claudeCode, codex, gemini].flatMap((a) => a.instructionFiles.map((name) => [a.id, name, a] as const)))(
    '%s: an undeclared %s above the workspace root still refuses the run',
    async (_id, name, adapter) => {
      const above = removedAfter({ [name]: 'undeclared\n', 'work/.keep': '' });
      await expect(checkWorkspaceRoot(join(above, 'work'), adapter.ancestorLeaks)).rejects.toThrow(
        new RegExp(`has ${join(above, name).replace(/\./g, '\\.')} above it`),
      );
    },
  );

  it("the seal holds every CLI's instruction files and skill and settings folders, and the workspace's .git", () => {
    const seal = fixtureSeal();
    expect([...seal.instructionFiles].sort()).toEqual(['AGENTS.md', 'AGENTS.override.md', 'CLAUDE.local.md', 'CLAUDE.md', 'GEMINI.md']);
    expect([...seal.folders].sort()).toEqual(['.agents', '.claude', '.codex', '.gemini', '.git']);
  });
});

describe("Codex's isolation check: a declared AGENTS.md at the workspace root is a fixture, anything else a leak", () => {
  const transcript = (contextFiles: string[]): Transcript => ({
    agent: 'codex',
    warnings: [],
    events: [
      {
        kind: 'init',
        source: 'system',
        model: 'm',
        cliVersion: '1',
        cwd: '/tmp/ws',
        tools: [],
        skills: ['alpha'],
        skillsFrom: 'Codex session record',
        contextFiles,
        sandbox: 'read-only',
      },
    ],
  });
  const check = (files: string[], instructions: boolean | undefined) =>
    codex.grading.isolationProblem(transcript(files), { arm: 'skill', family: ['alpha'], instructions });

  it.each<[string, string[], boolean | undefined, string | undefined]>([
    ['declared, at the workspace root', ['AGENTS.md (/tmp/ws)'], true, undefined],
    ['nothing declared, nothing shown', [], undefined, undefined],
    ['declared but not shown (nothing leaked)', [], true, undefined],
    ['not declared', ['AGENTS.md (/tmp/ws)'], undefined, 'instruction files reached the model: AGENTS.md (/tmp/ws)'],
    [
      'declared, but one from above the workspace too',
      ['AGENTS.md (/tmp)', 'AGENTS.md (/tmp/ws)'],
      true,
      'instruction files reached the model: AGENTS.md (/tmp)',
    ],
    [
      'declared, but an override beside it',
      ['AGENTS.override.md (/tmp/ws)'],
      true,
      'instruction files reached the model: AGENTS.override.md (/tmp/ws)',
    ],
  ])('%s', (_name, files, instructions, problem) => {
    expect(check(files, instructions)).toBe(problem);
  });
});
