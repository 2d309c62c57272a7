import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineCommand } from '../src/cli/command.js';
import { main } from '../src/cli/main.js';
import { COMMANDS } from '../src/cli/registry.js';
import type { RejudgeReportInput } from '../src/report/rejudge.js';
import { EXIT } from '../src/run/exit-codes.js';
import type { RunStatus } from '../src/run/schema.js';
import { baseProject, Captured, cleanup, makeProject, removeFoldersOfFile, ROOT, runInProcess, testEnv, writeFiles } from './helpers.js';
import { MISSING_CLASS, tuneProject } from './tune-fixture.js';
import { judgedRunFolder } from './judged-run-fixture.js';

/**
 * 15 of 15 commands exit through `exitCodeFor`: each command is run in this process along a path that ends in its own
 * `run` (never a thrown error), and the code main returns must be the one `exitCodeFor` made last, for every command
 * the registry lists. A command that returned a number of its own would leave `exitCodeFor` uncalled.
 */

// This file replaces two modules that main imports. The unit pass shares its workers' modules between files, so main
// may already be loaded, bound to the real ones: it is loaded afresh here (before the imports above run), and after
// this file the next one loads it afresh again rather than bound to these replacements.
const made = vi.hoisted(() => {
  vi.resetModules();
  return [] as number[];
});
afterAll(() => {
  // The helpers loaded afresh too: their temp folders are this copy's, not the one the setup file clears.
  removeFoldersOfFile();
  vi.resetModules();
});
vi.mock('../src/cli/exit.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/cli/exit.js')>();
  return {
    ...actual,
    exitCodeFor: (...args: Parameters<typeof actual.exitCodeFor>) => {
      const code = actual.exitCodeFor(...args);
      made.push(code);
      return code;
    },
  };
});

// rejudge's exit codes are a mapping of how its judge step ended: the step itself is replaced by one that ends as asked.
const rejudgeEnds = vi.hoisted(() => ({ status: 'completed' as RunStatus }));
vi.mock('../src/commands/rejudge.js', () => ({
  rejudgeRun: async (): Promise<RejudgeReportInput> => {
    const rate = { successes: 0, n: 2, p: 0, lo: 0, hi: 0.66 };
    return {
      dir: 'judged/rejudge/r',
      requests: 2,
      samples: 1,
      status: rejudgeEnds.status,
      flip: { errorPairs: 0, changed: rate, flipRate: { e: 0, lo: 0, hi: 0.4 }, verdicts: rate, verdictErrors: 0 },
    };
  },
}));

const roots: string[] = [];
afterAll(() => cleanup(...roots));
const project = makeProject({ ...baseProject(), 'sim.yaml': 'name: exits\nseed: 1\nrules: []\n' });
const tuned = makeProject(tuneProject(MISSING_CLASS));
const elsewhere = makeProject({ 'skills/alpha/SKILL.md': baseProject()['skills/alpha/SKILL.md']! });
roots.push(project, tuned, elsewhere);

beforeAll(async () => {
  await judgedRunFolder(project);
  // A sharded run of one shard: what `merge` joins.
  const shard = await judgedRunFolder(join(project, 'shards'));
  const manifest = JSON.parse(readFileSync(join(shard.dir, 'run.json'), 'utf8'));
  writeFileSync(join(shard.dir, 'run.json'), JSON.stringify({ ...manifest, shard: { index: 1, total: 1, suiteCases: ['judged'] } }));
  mkdirSync(join(project, 'sub'));
  writeFiles(project, { 'evals.json': JSON.stringify([{ query: 'make an alpha record', should_trigger: true }]) });
});

/** Runs a command line through main with `cwd` as its io's working folder only; `sim` and `view` stop as soon as they serve. */
async function mainIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new Captured(), new Captured()];
  const code = await main(args, { stdout, stderr, env: testEnv(), cwd, untilStopped: async () => undefined });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs a command line in this process from `cwd`. */
async function exitOf(args: string[], cwd: string, env?: Record<string, string>): Promise<{ code: number; stderr: string }> {
  if (args[0] === 'sim' || args[0] === 'view') return mainIn(cwd, args);
  const r = await runInProcess(args, { cwd, env: testEnv(env) });
  return { code: r.exitCode, stderr: r.stderr };
}

interface Row {
  args: string[];
  code: number;
  /** The project it runs in (the small one by default). */
  cwd?: string;
  /** How rejudge's judge step ends. */
  rejudge?: RunStatus;
  /** The command's environment beyond the test's own. */
  env?: Record<string, string>;
}

const rejudgeEnding = (rejudge: RunStatus, code: number): Row => ({ args: ['rejudge', 'judged'], code, rejudge });

const COMMAND_EXITS: Row[] = [
  // Two cases over two shards: the second share holds none, and the run ends before anything is spawned.
  { args: ['run', '--sim', 'sim.yaml', '--grep', 'pos-alpha', '--shard', '2/2'], code: EXIT.pass },
  { args: ['grade', 'judged'], code: EXIT.inconclusive },
  rejudgeEnding('completed', EXIT.pass),
  rejudgeEnding('cost_capped', EXIT.costCapped),
  rejudgeEnding('interrupted', EXIT.interrupted),
  rejudgeEnding('isolation_stopped', EXIT.error),
  rejudgeEnding('failed', EXIT.internal),
  { args: ['report', 'judged'], code: EXIT.inconclusive },
  { args: ['compare', 'judged', 'judged'], code: EXIT.inconclusive },
  { args: ['merge', 'shards/judged', '--transcripts', 'merged'], code: EXIT.inconclusive },
  { args: ['history', '--transcripts', '.'], code: EXIT.pass },
  { args: ['view', '.'], code: EXIT.pass },
  { args: ['plan'], code: EXIT.pass },
  { args: ['tune', 'csv-report', '--plan', '--sim', 'sim.yaml'], code: EXIT.pass, cwd: tuned },
  { args: ['mutate', 'csv-report', '--plan', '--sim', 'sim.yaml', '--operator', 'skill-removed'], code: EXIT.pass, cwd: tuned },
  { args: ['init', '--dir', elsewhere], code: EXIT.pass },
  { args: ['import', 'evals.json', '--skill', 'alpha', '--out', 'imported/alpha.yaml'], code: EXIT.pass },
  { args: ['lint'], code: EXIT.pass },
  { args: ['sim', join(project, 'sim.yaml')], code: EXIT.pass },
  // The installed CLIs' versions come from their manifests: nothing is spawned; a PATH holding none of them.
  { args: ['doctor'], code: EXIT.pass, env: { PATH: '/nonexistent' } },
];

describe('every command exits through exitCodeFor', () => {
  it('the table holds a row for every registered command', () => {
    expect(new Set(COMMAND_EXITS.map((row) => row.args[0]))).toEqual(new Set(COMMANDS.map((c) => c.name)));
  });

  it.each(COMMAND_EXITS)('$args.0 exits $code by the rule ($args)', async ({ args, code, cwd, rejudge, env }) => {
    if (rejudge) rejudgeEnds.status = rejudge;
    made.length = 0;
    const r = await exitOf(args, cwd ?? project, env);
    expect(r.code, r.stderr).toBe(code);
    expect(made.at(-1), 'the exit code exitCodeFor made').toBe(r.code);
  });

  it('a command whose run returns a bare number does not compile', () => {
    const command = defineCommand({
      name: 'bare',
      description: 'returns a number of its own',
      flags: {},
      optionsFrom: (o) => o,
      // @ts-expect-error a bare number is no ExitCode: only exitCodeFor makes one (checked by `tsc -p tsconfig.test.json`)
      run: () => 0,
    });
    expect(command.name).toBe('bare');
  });
});

describe('commands take their working folder and environment from their io', () => {
  it('two commands in one process, given two working folders, each show the run folder relative to its own', async () => {
    // Absolute paths in, so only the io's working folder decides how the merged run folder is shown.
    const merge = (cwd: string) => mainIn(cwd, ['merge', join(project, 'shards/judged'), '--transcripts', join(project, 'from-io')]);
    const [top, sub] = [await merge(project), await merge(join(project, 'sub'))];
    const shown = (r: { stdout: string }) => /→ run folder (\S+)\n/.exec(r.stdout)?.[1];
    const made = readdirSync(join(project, 'from-io'));
    expect(made).toHaveLength(2);
    expect(made.map((run) => join('from-io', run))).toContain(shown(top));
    expect(made.map((run) => join('..', 'from-io', run))).toContain(shown(sub));
  });

  it('no file in src/commands reads process.cwd or process.env, or changes the working folder', () => {
    const dir = join(ROOT, 'src/commands');
    const found = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\bprocess\.(cwd|env|chdir)\b/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
  });
});
