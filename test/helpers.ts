import { execa } from 'execa';
import { afterAll, expect } from 'vitest';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = join(import.meta.dirname, '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

/**
 * Temp folders a shared test module made (testEnv's HOMEs, a fixture's run folders), removed after the test file that
 * was running then: `test/setup/temp-folders.ts` calls `removeFoldersOfFile` after each file. An `afterAll` here would
 * be bound to the first file only, since the unit pass loads this module once for every file of a worker.
 */
const foldersOfFile: string[] = [];

/** `dir`, to be removed once the test file now running has ended. */
export function removedAfterFile(dir: string): string {
  foldersOfFile.push(dir);
  return dir;
}

export function removeFoldersOfFile(): void {
  for (const d of foldersOfFile.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** The environment every spawned CLI gets in tests: offline variables set, nothing pointing off loopback. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = removedAfterFile(mkdtempSync(join(tmpdir(), 'sp-home-')));
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    ...extra,
  };
}

/**
 * The Node that runs the built CLI: `SKILLPROBE_TEST_NODE` (an absolute path, e.g. a build under scripts/node-builds/)
 * or the `node` on PATH. The Gemini CLI runs under that Node too, so the real-CLI suites check both on another release.
 */
export const testNode = (): string => process.env.SKILLPROBE_TEST_NODE || 'node';

export async function runCli(args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it)`);
  return execa(testNode(), [CLI, ...args], {
    cwd: opts.cwd,
    env: opts.env ?? testEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 120_000,
  });
}

export type Files = Record<string, string>;

export function writeFiles(root: string, files: Files): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

export const skillMd = (name: string, description: string, body = 'Run:\n\n```bash\n' + name + ' $ARGUMENTS\n```\n') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\n${body}`;

/** A small valid project: two sibling skills and a handful of cases. */
export function baseProject(): Files {
  return {
    'skills/alpha/SKILL.md': skillMd('alpha', 'Handle alpha requests, create and list alpha records.'),
    'skills/alpha-beta/SKILL.md': skillMd('alpha-beta', 'Handle beta records inside alpha projects.'),
    'cases/main.yaml': [
      '- id: pos-alpha',
      '  prompt: "please create an alpha record"',
      '  expect: { skill: alpha }',
      '  tags: [happy]',
      '- id: neg-weather',
      '  prompt: "what is the weather like"',
      '  expect: { skill: none }',
      '',
    ].join('\n'),
  };
}

/** A project folder in a fresh temp dir; the caller removes it. */
export function makeProject(files: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-proj-'));
  writeFiles(dir, files);
  return dir;
}

/** The demo project of this repository in a temp folder: its skills, cases, config and simulator profiles. */
export function demoProject(): string {
  const dir = makeProject({});
  for (const entry of ['skills', 'cases', 'sim', 'skillprobe.config.yaml'])
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  cpSync(join(ROOT, 'test/fixtures/sim/demo-halved.profile.yaml'), join(dir, 'sim/demo-halved.profile.yaml'));
  return dir;
}

/** A stand-in agent binary that only leaves a mark when spawned: proves that no trial started. */
export function spyBinary(dir: string): { path: string; marker: string } {
  const marker = join(dir, 'SPAWNED');
  const path = join(dir, 'spy-agent.sh');
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path, 0o755);
  return { path, marker };
}

/** PIDs of live processes whose working directory is under `prefix` (read from /proc). */
export function processesUnder(prefix: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(prefix)) out.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

/** Live processes working in `dir` or naming it: an agent, a watchdog, skillprobe itself. */
export function processesIn(dir: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      return cwd.startsWith(dir) || readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** Waits, polling, until `ok` holds; throws after `ms`. */
export async function until(ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms`);
    await sleep(50);
  }
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** Makes projects of `files` (the base project by default) for a describe block, removed after it. */
export function projectsRemovedAfterAll(files: () => Files = baseProject): () => string {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  return () => {
    const dir = makeProject(files());
    dirs.push(dir);
    return dir;
  };
}

/** The suite as `run` loads it (each case with its fixtures), from the project's folder as the working folder. */
export async function loadedSuite(dir: string) {
  const { loadSuite } = await import('../src/runner/load-suite.js');
  return loadSuite({ cwd: dir, overrides: {} }, { run: false });
}

/** A stream that keeps what is written to it, as a command's stdout or stderr in-process. */
export class Captured extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * Runs a skillprobe command line in this process, as the installed CLI would run it from `cwd`, and returns what a
 * spawned one would: its exit code and what it printed. For behaviour that needs no process of its own.
 */
export async function runInProcess(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const { main } = await import('../src/cli/main.js');
  const [stdout, stderr] = [new Captured(), new Captured()];
  // The command's working folder is `cwd`, handed in: this process's own stays where it is, so commands may run at once.
  const exitCode = await main(args, { stdout, stderr, env: opts.env ?? testEnv(), cwd: opts.cwd });
  // As a spawned CLI's output reaches a test (execa strips the final newline).
  const strip = (text: string) => text.replace(/\r?\n$/, '');
  return { exitCode, stdout: strip(stdout.text), stderr: strip(stderr.text) };
}

/**
 * `run` in the project `dir`, its agent a spy: refused with exit 2 in one line containing `message`, nothing spawned,
 * nothing written.
 */
export async function expectRunRefused(dir: string, message: string): Promise<void> {
  const spy = spyBinary(dir);
  const before = readdirSync(dir, { recursive: true }).sort();
  const r = await runInProcess(['run', '--agent-binary', spy.path, '--transcripts', 'runs'], {
    cwd: dir,
    env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
  });
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n'), 'one line').toHaveLength(1);
  expect(r.stderr).toContain(message);
  expect(existsSync(spy.marker), 'spawned').toBe(false);
  expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
}
