import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { baseProject, cleanup, makeProject, runInProcess, testEnv } from './helpers.js';
import { onlyRun, resultsOf } from './e2e-scenarios.js';
import { fakeLoginHome } from './login-fixtures.js';

/**
 * `--login` through each CLI with a login the simulator can play, against the simulator: a trial's HOME holds the
 * caller's credential file and nothing else of theirs, the CLI runs on it (no API key is set), and what it sends to
 * its vendor's own hosts is refused by the simulator as a proxy. skillprobe runs in this process (the caller's HOME is
 * the environment handed to it); the CLIs are real.
 */

/**
 * A wrapper around the real CLI that lists the HOME a trial starts it with (files and their modes), then runs it.
 * Only trials' HOMEs (`<workspace root>/home`) are listed, not the caller's (a version probe) nor Codex's sandbox probe's.
 */
function listingWrapper(dir: string, real: string): { path: string; listings: () => string[][] } {
  const out = join(dir, 'listings');
  const path = join(dir, 'listing-cli.sh');
  writeFileSync(
    path,
    `#!/bin/sh\ncase "$1 $HOME" in sandbox*) ;; */home) mkdir -p '${out}'; (cd "$HOME" && find . -type f -printf '%m %P\\n' | sort) > '${out}'/$$.txt;; esac\nexec '${real}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  const listings = () => {
    const files = (() => {
      try {
        return readdirSync(out);
      } catch {
        return [];
      }
    })();
    return files.map((f) => readFileSync(join(out, f), 'utf8').split('\n').filter(Boolean));
  };
  return { path, listings };
}

const CASES: Array<{ adapter: AgentAdapter; config: string; credential: string; harnessFiles: string[] }> = [
  { adapter: claudeCode, config: 'agent: claude-code\nmodel: sim-model\n', credential: '.claude/.credentials.json', harnessFiles: [] },
  // The harness writes the trial's own config.toml beside the copied login.
  { adapter: codex, config: 'agent: codex\nmodel: sim-model\n', credential: '.codex/auth.json', harnessFiles: ['.codex/config.toml'] },
  // The harness writes the trial's own settings beside the copied login (the caller's account list is not there to copy).
  {
    adapter: gemini,
    config: 'agent: gemini\nmodel: sim-model\n',
    credential: '.gemini/oauth_creds.json',
    harnessFiles: ['.gemini/settings.json'],
  },
];

describe('end to end: --login against the simulator', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('an expired login: exit 2 naming the file, when it expired and how to renew it, nothing spawned', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': CASES[0]!.config });
    const home = mkdtempSync(join(tmpdir(), 'sp-loginhome-'));
    dirs.push(project, home);
    const credentials = { claudeAiOauth: { accessToken: 'a', refreshToken: 'r', expiresAt: Date.UTC(2020, 0, 1) } };
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude/.credentials.json'), JSON.stringify(credentials));
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--login', '--transcripts', 'runs'], {
      cwd: project,
      env: testEnv({ HOME: home }),
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /--login: the Claude subscription login stored for Claude Code in .*\.credentials\.json expired at 2020-01-01T00:00:00\.000Z, and a trial never renews it/,
    );
    expect(r.stderr).toMatch(/start `claude` once/);
    expect(existsSync(join(project, 'runs'))).toBe(false);
  }, 60_000);

  it('a login missing from the caller: exit 2 naming the file and how to log in, nothing spawned', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': CASES[0]!.config });
    dirs.push(project);
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--login', '--transcripts', 'runs'], { cwd: project, env: testEnv() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--login: no Claude subscription login stored for Claude Code: .*\.claude\/\.credentials\.json not found/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 60_000);
});

describe("end to end: a --login run on the caller's credential alone, paused by a usage limit, never scored from it", () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  /** The simulator refuses every request after the first as the CLI's usage limit, until `resetSeconds` pass. */
  const limitedProfile = (resetSeconds: number) =>
    `seed: 1\nprovider:\n  usageLimit: { afterRequests: 1, resetSeconds: ${resetSeconds} }\n`;
  const args = ['run', '--sim', 'sim.yaml', '--login', '--trials', '2', '-j', '1', '--grep', 'pos-alpha', '--transcripts', 'runs'];

  /**
   * A first run through the CLI of `login` that meets the limit at its second trial: stopped interrupted (130), naming
   * the reset and --resume. Its trials' HOMEs held the caller's credential file alone (mode 600), and the CLI ran on
   * it (its first trial, before the limit; no API key is set).
   */
  async function stoppedAtLimit({ adapter, config, credential, harnessFiles }: (typeof CASES)[number], said: RegExp) {
    const project = makeProject({ ...baseProject(), 'sim.yaml': limitedProfile(3600), 'skillprobe.config.yaml': config });
    const home = mkdtempSync(join(tmpdir(), 'sp-loginhome-'));
    dirs.push(project, home);
    const caller = fakeLoginHome(home);
    const env = testEnv({ HOME: home });
    const cli = listingWrapper(project, adapter.resolveBinary());
    const flags = [...args, '--agent-binary', cli.path];
    const first = await runInProcess(flags, { cwd: project, env });
    expect(first.stderr).not.toMatch(/at .*\.js:\d+/);
    const listings = cli.listings();
    expect(listings.length).toBeGreaterThan(0);
    for (const listing of listings)
      expect(listing).toEqual([`600 ${credential}`, ...harnessFiles.map((f) => expect.stringMatching(` ${f}$`))].sort());
    // The copy is the caller's file, byte for byte; nothing else of theirs (settings, skills, history) is named.
    expect(readFileSync(join(home, credential), 'utf8')).toBe(caller.files[credential]);
    expect(first.stdout).toContain('subscription login');
    expect(first.exitCode).toBe(130);
    expect(first.stderr).toMatch(said);
    expect(first.stdout + first.stderr).toMatch(/interrupted: `.*--resume /);
    const dir = onlyRun(project);
    const stopped = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { status: string; stoppedBecause?: string };
    expect(stopped).toMatchObject({ status: 'interrupted', stoppedBecause: expect.stringContaining('usage limit') });
    const limited = JSON.parse(readFileSync(join(dir, 'trials/pos-alpha/skill/2.meta.json'), 'utf8')) as { usageLimit?: object };
    expect(limited.usageLimit).toMatchObject({ resetAt: expect.any(String) });
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))).toMatchObject({ config: { auth: 'login' } });
    return { project, env, dir, flags };
  }

  /** The resume of a run stopped at the limit: a fresh simulator has the quota back, as the real one has after the reset. */
  async function resumedToTheEnd({ project, env, dir, flags }: Awaited<ReturnType<typeof stoppedAtLimit>>) {
    const resumed = await runInProcess([...flags, '--resume', dir], { cwd: project, env });
    expect(resumed.exitCode).not.toBe(130);
    expect(resultsOf(dir).outcomes.map((o) => [o.n, o.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
    ]);
  }

  it('Claude Code: the trial HOME holds the credential file alone (mode 600) and the CLI runs on it; at the limit the run stops interrupted (130) naming the reset and --resume; the resume completes it, no trial scored from the limit', async () => {
    await resumedToTheEnd(
      await stoppedAtLimit(
        CASES[0]!,
        /stopped at the subscription's usage limit \(Claude usage limit reached \(five_hour\); resets \d{4}-\d\d-\d\dT/,
      ),
    );
  }, 180_000);

  it('Codex: the trial HOME holds the credential file alone (mode 600) and the CLI runs on it; its usage-limit error stops the run the same way; the resume completes it', async () => {
    await resumedToTheEnd(
      await stoppedAtLimit(
        CASES[1]!,
        /stopped at the subscription's usage limit \(You.ve hit your usage limit\..*; resets \d{4}-\d\d-\d\dT/,
      ),
    );
  }, 180_000);

  it('Gemini: the trial HOME holds the credential file alone (mode 600) and the CLI runs on it; Code Assist refusing at the quota (the CLI would sleep until the reset) stops the run at once; the resume completes it', async () => {
    await resumedToTheEnd(
      await stoppedAtLimit(
        CASES[2]!,
        /stopped at the subscription's usage limit \(You have exhausted your capacity on this model\. Your quota will reset after (?:1h0m\d+s|59m\d+s)\.; resets \d{4}-\d\d-\d\dT/,
      ),
    );
  }, 180_000);

  it('Claude Code with --wait-for-reset: the limited trial sleeps until the reset and runs again; the run completes in one go', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': limitedProfile(2), 'skillprobe.config.yaml': CASES[0]!.config });
    const home = mkdtempSync(join(tmpdir(), 'sp-loginhome-'));
    dirs.push(project, home);
    fakeLoginHome(home);
    const r = await runInProcess([...args, '--wait-for-reset'], { cwd: project, env: testEnv({ HOME: home }) });
    expect(r.exitCode).not.toBe(130);
    const dir = onlyRun(project);
    expect(resultsOf(dir).outcomes.map((o) => [o.n, o.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
    ]);
    // The refused attempt is kept beside the trial, never scored.
    const attempt = JSON.parse(readFileSync(join(dir, 'trials/pos-alpha/skill/2.a1.meta.json'), 'utf8')) as {
      usageLimit?: { message: string };
    };
    expect(attempt.usageLimit?.message).toBe('Claude usage limit reached (five_hour)');
  }, 180_000);
});
