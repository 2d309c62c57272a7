import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { Transcript } from '../src/transcript/types.js';
import { cleanup } from './helpers.js';
import { describeStalledTrial, leftBehind, of, scenarioRun } from './e2e-scenarios.js';
import type { TrialMeta } from '../src/run/schema.js';

/**
 * The real pinned `claude` binary against skillprobe's simulator, one case per scenario, all in one run.
 * Every assertion reads the stored transcript and meta, as a regrade would.
 */
/** A deadline no normal trial comes near, even on a loaded machine (a trial takes 0.5–11 s there). */
const NORMAL_DEADLINE_S = 120;
/** The stall scenario's own deadline: long enough for the CLI to start and reach the stall on a busy machine. */
const STALL_DEADLINE_S = 20;

let project: string;
let workdir: string;
let runDir: string;
let exitCode: number | undefined;
let stdout: string;

function trial(caseId: string, n = 1, suffix = '', dir = runDir): { t: Transcript; meta: TrialMeta; raw: string } {
  const base = join(dir, 'trials', caseId, 'skill', `${n}${suffix}`);
  const raw = readFileSync(`${base}.jsonl`, 'utf8');
  return { raw, t: parseClaudeStream(raw), meta: JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as TrialMeta };
}


describe('end to end: real Claude Code CLI against the simulator', () => {
  beforeAll(async () => {
    ({ project, workdir, runDir, exitCode, stdout } = await scenarioRun('e2e', undefined, NORMAL_DEADLINE_S));
    expect(readdirSync(join(project, 'runs'))).toHaveLength(1);
  }, 240_000);

  afterAll(() => cleanup(project, workdir));

  it('completes and says where the run is', () => {
    expect(exitCode).not.toBe(2);
    expect(stdout).toMatch(/run folder: runs\/\d{8}-\d{6}-[0-9a-f]{6}/);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({
      status: 'completed',
      agent: { id: 'claude-code', cliVersion: '2.1.197' },
      simulator: { name: 'e2e', seed: 7 },
      trials: { planned: 6, finished: 6 },
    });
    expect(manifest.skills.map((s: { dir: string }) => s.dir)).toEqual(['alpha', 'alpha-beta']);
    expect(manifest.skillsHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a skill fires: Skill call, loaded, plan text from the model', () => {
    const { t, meta } = trial('fires');
    expect(meta.exitCode).toBe(0);
    const calls = of(t, 'tool_call').filter((c) => c.intent === 'skill');
    expect(calls.map((c) => [c.skill, c.args])).toEqual([['alpha', 'create --name demo']]);
    expect(of(t, 'skill_load')[0]).toMatchObject({ name: 'alpha', status: 'loaded' });
    expect(of(t, 'skill_load')[0]!.path).toMatch(/\/ws\/\.claude\/skills\/alpha$/);
    const plan = of(t, 'text').filter((e) => e.source === 'assistant').at(-1)!.text;
    expect(plan).toContain('alpha create --name demo');
    expect(of(t, 'result')[0]!.status).toBe('success');
  });

  it('nothing fires: a plain answer and no skill call', () => {
    const { t, meta } = trial('quiet');
    expect(meta.exitCode).toBe(0);
    expect(of(t, 'tool_call')).toEqual([]);
    expect(of(t, 'text').map((e) => e.text)).toEqual(['Just an answer.']);
  });

  it('a wrong sibling fires', () => {
    const { t } = trial('sibling');
    expect(of(t, 'tool_call').map((c) => c.skill)).toEqual(['alpha-beta']);
    expect(of(t, 'skill_load')[0]).toMatchObject({ name: 'alpha-beta', status: 'loaded' });
  });

  it('a Read of SKILL.md is a read, not a Skill call', () => {
    const { t } = trial('reads');
    const calls = of(t, 'tool_call');
    expect(calls.map((c) => [c.intent, c.path])).toEqual([['read', '.claude/skills/alpha/SKILL.md']]);
    expect(of(t, 'skill_load')).toEqual([]);
    expect(of(t, 'text').filter((e) => e.source === 'assistant').at(-1)!.text).toContain('alpha list');
  });

  it('HTTP 429 until the CLI gives up: retried by the CLI, then once by the harness, both attempts kept', () => {
    const first = trial('limited', 1, '.a1');
    const last = trial('limited');
    for (const { t, meta } of [first, last]) {
      expect(meta.exitCode).toBe(1);
      expect(of(t, 'error').filter((e) => e.retrying)).toHaveLength(2); // CLAUDE_CODE_MAX_RETRIES=2
      expect(of(t, 'error').filter((e) => !e.retrying)[0]).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429 });
      expect(of(t, 'result')[0]).toMatchObject({ status: 'api_error', httpStatus: 429 });
    }
    expect(first.meta.attempt).toBe(1);
    expect(last.meta.attempt).toBe(2);
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });

  it('stops at max turns', () => {
    const { t, meta } = trial('loops');
    expect(meta.exitCode).toBe(1);
    expect(of(t, 'tool_call').filter((c) => c.name === 'Glob')).toHaveLength(3);
    expect(of(t, 'result')[0]).toMatchObject({ status: 'max_turns', message: 'Reached maximum number of turns (3)' });
  });

  it('writes every transcript atomically (no temporary files left)', () => {
    const leftovers = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? leftovers(join(dir, e.name)) : e.name.endsWith('.tmp') ? [e.name] : []));
    expect(leftovers(runDir)).toEqual([]);
    expect(existsSync(join(runDir, 'trials', 'fires', 'skill', '1.meta.json'))).toBe(true);
  });
});

describeStalledTrial('Claude Code', '', STALL_DEADLINE_S, 'deadline', parseClaudeStream, () => {});
