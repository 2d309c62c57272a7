import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../src/runner/load-suite.js';
import { baseProject, projectsRemovedAfterAll, runInProcess } from './helpers.js';
import { copyImportFixtures, FORMATS } from './import-fixtures.js';

const project = projectsRemovedAfterAll(() => ({
  ...baseProject(),
  'skillprobe.config.yaml': 'cases: [cases/*.yaml]\njudge:\n  allowSelf: true\n',
}));
const withFixtures = () => {
  const dir = project();
  copyImportFixtures(dir);
  return dir;
};

/** The suite as `run` loads it from `cases`, each case as the run sees it (its fixtures by landing path and bytes' hash). */
async function loaded(dir: string, cases: string) {
  // The caller's PATH holds node, the command a real-shaped MCP grant starts.
  const suite = loadSuite({ cwd: dir, overrides: { cases }, callerEnv: { PATH: dirname(process.execPath) } }, { run: false });
  return {
    cases: suite.suite.cases.map((c) => ({
      id: c.id,
      prompt: c.prompt,
      expect: c.expect,
      tags: c.tags,
      ...(c.fixtures ? { files: c.fixtures.files.map((f) => [f.path, f.sha256.slice(0, 8)]) } : {}),
      ...(c.history ? { history: c.history } : {}),
      // A real server by its name, the executable found (its folder is the machine's) and its arguments.
      ...(c.mcpServers ? { mcp: c.mcpServers.map((m) => (m.kind === 'command' ? [m.name, basename(m.command), m.args] : [m.name])) } : {}),
    })),
    uncarried: suite.suite.uncarried?.map((n) => n.what) ?? [],
  };
}

describe('every imported format loads as cases in place, and `skillprobe import` writes the same cases as YAML', () => {
  it.each(FORMATS)('$format ($file)', async ({ file, cases, uncarried = [] }) => {
    const dir = withFixtures();
    const source = `skills/alpha/evals/${file}`;
    const inPlace = await loaded(dir, source);
    expect(inPlace.cases.map(({ id, expect, tags, files, history, mcp }) => ({ id, expect, tags, files, history, mcp }))).toEqual(
      cases.map((c) => ({
        id: c.id,
        expect: c.expect,
        tags: c.tags ?? [],
        files: c.files?.map((f) => [f, expect.any(String)]),
        history: c.history,
        mcp: c.mcp,
      })),
    );
    expect(inPlace.uncarried).toHaveLength(uncarried.length);
    uncarried.forEach((what, i) => expect(inPlace.uncarried[i]).toMatch(what));

    const r = await runInProcess(['import', source, '--out', 'cases/imported.yaml'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^wrote cases/imported\\.yaml: ${cases.length} cases? for `));
    // What is not carried is said on stderr, each at its line, and noted in the written file.
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(uncarried.length);
    const written = readFileSync(join(dir, 'cases/imported.yaml'), 'utf8');
    expect(written.match(/^# Not carried: /gm) ?? []).toHaveLength(uncarried.length);
    expect(await loaded(dir, 'cases/imported.yaml')).toEqual({ ...inPlace, uncarried: [] });
  });

  it("a thread's first test is its request alone, as promptfoo renders `_conversation` with no earlier turn", async () => {
    const { cases } = await loaded(withFixtures(), 'skills/alpha/evals/promptfoo-threads.yaml');
    expect(cases.map((c) => c.prompt)).toEqual([
      'Open an alpha record for the failed deploy',
      'Which letter comes after alpha in the greek alphabet?',
    ]);
  });

  it("an evals.json object's `files` land in the workspace under their own names, the bytes the skill's folder holds", async () => {
    const dir = withFixtures();
    const suite = loadSuite({ cwd: dir, overrides: { cases: 'skills/alpha/evals/evals.json' } }, { run: false });
    const [file] = suite.suite.cases[0]!.fixtures!.files;
    expect(file).toMatchObject({ path: 'board.csv', from: { file: join(dir, 'skills/alpha/evals/files/board.csv') } });
    expect(suite.suite.cases[0]!.source).toMatchObject({ file: 'skills/alpha/evals/evals.json', line: 4 });
  });
});

describe('what an eval file loaded in place does not carry is said by lint, never silently dropped', () => {
  it("names each evals.json eval's expected_output at its line", async () => {
    const dir = withFixtures();
    const r = await runInProcess(['lint', '--cases', 'skills/alpha/evals/evals.json'], { cwd: dir });
    const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.includes('"expected_output"'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/skills\/alpha\/evals\/evals\.json:7:26: .*eval 1: "expected_output" .*: not carried into the cases/);
  });
});

describe('the suite hash covers the files an eval file reads besides itself', () => {
  it.each([
    ['waza task file', 'skills/alpha/evals/waza/eval.yaml', 'skills/alpha/evals/waza/tasks/list-records.yaml'],
    [
      'plugin eval grader file',
      'skills/alpha/evals/plugin-eval/greek-alpha/prompt.md',
      'skills/alpha/evals/plugin-eval/greek-alpha/graders/explains.md',
    ],
  ])('an edit to a %s changes it', (_, cases, other) => {
    const dir = withFixtures();
    const hash = () => loadSuite({ cwd: dir, overrides: { cases } }, { run: false }).suite.hash;
    const before = hash();
    writeFileSync(join(dir, other), readFileSync(join(dir, other), 'utf8') + '\n# edited\n');
    expect(hash()).not.toBe(before);
  });
});
