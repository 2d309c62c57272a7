import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { baseProject, cleanup, makeProject, processesUnder, runCli, skillMd, spyBinary, testEnv, writeFiles } from './helpers.js';
import { runTrials } from './trial-runner.js';
import { describeStalledTrial, leftBehind, of, onlyRun, resultsOf, scenarioRun, storedTrial } from './e2e-scenarios.js';

/**
 * The real pinned Codex CLI against skillprobe's simulator, one case per scenario, all in one run. Every assertion
 * reads the stored transcript and meta, as a regrade would.
 */
const AGENT = 'agent: codex\nmodel: sim-model\n';
const CONFIG = `${AGENT}retries:\n  cli: 1\n`;
/** A deadline no normal trial comes near, even on a loaded machine (a Codex trial takes about 0.5 s here). */
const NORMAL_DEADLINE_S = 120;
/** The stall scenario's own deadline: long enough for the CLI to start and reach the stall on a busy machine. */
const STALL_DEADLINE_S = 15;

const trial = (dir: string, caseId: string, arm = 'skill', n = 1, suffix = '') => storedTrial(parseCodexStream, dir, caseId, arm, n, suffix);
const results = resultsOf;

describe('end to end: real Codex CLI against the simulator', () => {
  let project: string;
  let workdir: string;
  let runDir: string;
  let exitCode: number | undefined;

  beforeAll(async () => {
    let stderr: string;
    ({ project, workdir, runDir, exitCode, stderr } = await scenarioRun('e2e-codex', CONFIG, NORMAL_DEADLINE_S));
    expect(stderr).not.toMatch(/at .*\.js:\d+/);
  }, 240_000);

  afterAll(() => cleanup(project, workdir));

  it('completes, naming the agent and the CLI version', () => {
    expect(exitCode).not.toBe(2);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({ status: 'completed', agent: { id: 'codex', cliVersion: '0.169.0' }, model: 'sim-model', trials: { planned: 6, finished: 6 } });
  });

  it('a skill fires: the shell read shows the planted secret, the plan comes from the model', () => {
    const { t, meta } = trial(runDir, 'fires');
    expect(meta.exitCode).toBe(0);
    expect(Object.keys(meta.evidence?.skillNonces ?? {}).sort()).toEqual(['alpha', 'alpha-beta']);
    expect(of(t, 'tool_call').filter((c) => c.intent === 'skill').map((c) => c.skill)).toEqual(['alpha']);
    expect(of(t, 'skill_load')[0]).toMatchObject({ name: 'alpha', status: 'loaded' });
    expect(of(t, 'skill_load')[0]!.path).toMatch(/\/ws\/\.agents\/skills\/alpha$/);
    expect(of(t, 'text').at(-1)!.text).toContain('alpha create --name demo');
    expect(of(t, 'result')[0]!.status).toBe('success');
    expect(results(runDir).outcomes.find((o) => o.caseId === 'fires')).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
  });

  it('nothing fires: a plain answer and no command', () => {
    const { t } = trial(runDir, 'quiet');
    expect(of(t, 'tool_call')).toEqual([]);
    expect(of(t, 'text').map((e) => e.text)).toEqual(['Just an answer.']);
    expect(results(runDir).outcomes.find((o) => o.caseId === 'quiet')).toMatchObject({ status: 'ok', fired: 'none', passed: false });
  });

  it('a wrong sibling fires: the confusion column is the sibling', () => {
    const { t } = trial(runDir, 'sibling');
    expect(of(t, 'skill_load').map((l) => l.name)).toEqual(['alpha-beta']);
    expect(results(runDir).outcomes.find((o) => o.caseId === 'sibling')).toMatchObject({ fired: 'sibling', firedColumn: 'alpha-beta', passed: false });
  });

  it('a plain file read of SKILL.md is the trigger for Codex too', () => {
    const { t } = trial(runDir, 'reads');
    expect(of(t, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha', status: 'loaded' })]);
    expect(of(t, 'text').at(-1)!.text).toContain('alpha list');
  });

  it('HTTP 429 until the CLI gives up: missing data, retried once by the harness, both attempts kept', () => {
    for (const { t, meta } of [trial(runDir, 'limited', 'skill', 1, '.a1'), trial(runDir, 'limited')]) {
      expect(meta.exitCode).toBe(1);
      expect(of(t, 'error').filter((e) => !e.retrying).at(-1)).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429 });
      expect(of(t, 'result')[0]).toMatchObject({ status: 'api_error' });
    }
    expect(results(runDir).outcomes.find((o) => o.caseId === 'limited')).toMatchObject({ status: 'infra_error', passed: null });
  });

  it('stops at the turn limit: the harness counts the commands Codex has no limit for', () => {
    const { t, meta } = trial(runDir, 'loops');
    expect(meta.turnLimitHit).toBe(true);
    expect(of(t, 'tool_call').length).toBeGreaterThan(3);
    expect(results(runDir).outcomes.find((o) => o.caseId === 'loops')).toMatchObject({ status: 'max_turns' });
  });

  it('every trial shows, from Codex’s own session record, exactly the family in a read-only sandbox', () => {
    for (const caseId of ['fires', 'quiet', 'sibling']) {
      const shown = trial(runDir, caseId).meta.evidence?.shown;
      expect(shown).toMatchObject({ skills: ['alpha', 'alpha-beta'], contextFiles: [], sandbox: 'read-only' });
    }
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});

// Codex's stream-idle timeout is set so that it and its retries end inside the deadline: its own error, nothing the
// model wrote.
describeStalledTrial('Codex', AGENT, STALL_DEADLINE_S, 'cli', parseCodexStream, (t) => {
  expect([...of(t, 'text'), ...of(t, 'tool_call')]).toEqual([]);
  expect(of(t, 'error').filter((e) => !e.retrying)).toEqual([expect.objectContaining({ errorKind: 'timeout' })]);
});

describe('end to end: Codex isolation', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('a user-level skill, a user and a project AGENTS.md and bundled skills never reach the model; the ablation arm sees none of the family', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': CONFIG, 'AGENTS.md': 'PROJECT-MARKER: answer in French\n' });
    const home = mkdtempSync(join(tmpdir(), 'sp-userhome-'));
    dirs.push(project, home);
    writeFiles(home, {
      '.codex/skills/home-leak/SKILL.md': skillMd('home-leak', 'A personal Codex skill that must not leak.'),
      '.agents/skills/agents-leak/SKILL.md': skillMd('agents-leak', 'A personal shared skill that must not leak.'),
      '.codex/AGENTS.md': 'HOME-MARKER: personal instructions\n',
    });
    const r = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--ablation', 'always', '--transcripts', 'runs'], { cwd: project, env: testEnv({ HOME: home, CODEX_HOME: join(home, '.codex') }) });
    expect(r.exitCode).not.toBe(2);
    const runDir = onlyRun(project);
    for (const caseId of ['pos-alpha', 'neg-weather']) {
      const skillArm = trial(runDir, caseId, 'skill').meta.evidence?.shown;
      expect(skillArm).toMatchObject({ skills: ['alpha', 'alpha-beta'], contextFiles: [] });
      const ablation = trial(runDir, caseId, 'ablation').meta.evidence?.shown;
      expect(ablation).toMatchObject({ skills: [], contextFiles: [] });
    }
    expect(results(runDir).outcomes.every((o) => o.status === 'ok')).toBe(true);
  }, 120_000);

  it('a sandbox that lets a write through makes the run refuse to start: exit 2, no trial', async () => {
    const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n', 'skillprobe.config.yaml': CONFIG });
    dirs.push(project);
    // A stand-in CLI whose `sandbox` runs the command unconfined, as a container without the kernel features would.
    const spy = spyBinary(project);
    const unlocked = join(project, 'unlocked-codex.sh');
    writeFileSync(unlocked, `#!/bin/sh\nif [ "$1" = sandbox ]; then shift 2; exec "$@"; fi\nexec '${spy.path}'\n`);
    chmodSync(unlocked, 0o755);
    const r = await runCli(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', '--agent-binary', unlocked], { cwd: project });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('did not stop a write');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(project, 'runs'))).toBe(false);
  }, 60_000);

  it('the real sandbox passes the write probe on this machine', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sp-probe-'));
    dirs.push(scratch);
    expect(await codex.lockdownProblem!(codex.resolveBinary(), scratch, testEnv())).toBeUndefined();
    expect(readdirSync(scratch)).toEqual([]);
  }, 60_000);
});

/**
 * A model server of the test's own, for what the simulator never plays: a model reading a skill that is not there,
 * and one trying to write. Each case's first request gets one shell command, the next a plain answer.
 */
async function scriptedModel(commands: Record<string, string>): Promise<{ url: string; outputs: string[]; server: Server }> {
  const outputs: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: { type: string; output?: unknown }[] }).input;
      const answered = input.filter((i) => i.type === 'function_call_output');
      outputs.push(...answered.map((i) => String(i.output)));
      const caseId = decodeURIComponent(/^\/t\/[^/]*\/([^/]*)\//.exec(req.url ?? '')?.[1] ?? '');
      const item = answered.length
        ? { type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }
        : { type: 'function_call', id: 'fc1', call_id: 'call1', name: 'exec_command', arguments: JSON.stringify({ cmd: commands[caseId] }), status: 'completed' };
      const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse('response.created', { response: { id: 'r1', status: 'in_progress', output: [] } }) +
          sse('response.output_item.done', { output_index: 0, item }) +
          sse('response.completed', { response: { id: 'r1', status: 'completed', output: [item], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, outputs, server };
}

describe('end to end: a Codex trial that reads what is not there, or writes', () => {
  let project: string;
  let model: Awaited<ReturnType<typeof scriptedModel>>;
  let records: TrialRecord[];
  let workdir: string;

  beforeAll(async () => {
    project = makeProject(baseProject());
    model = await scriptedModel({
      'pos-alpha': 'cat .agents/skills/alpha-gamma/SKILL.md',
      'neg-weather': 'echo pwned > WRITTEN.txt && cat WRITTEN.txt',
    });
    ({ records, workdir } = await runTrials(codex, project, model.url, testEnv(), [
      ['pos-alpha', 'skill'],
      ['neg-weather', 'skill'],
    ], { model: 'sim-model', deadlineSeconds: NORMAL_DEADLINE_S }));
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => model.server.close(resolve));
    cleanup(project, workdir);
  });

  it('a SKILL.md outside the family that is not there is an unknown skill, the model’s own mistake', () => {
    const t = records[0]!.transcript;
    expect(of(t, 'tool_call')).toEqual([expect.objectContaining({ intent: 'skill', skill: 'alpha-gamma' })]);
    expect(of(t, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha-gamma', status: 'unknown' })]);
  });

  it('the read-only sandbox stops a write: the model is told so, and nothing is written', () => {
    expect(model.outputs.at(-1)).toMatch(/Read-only file system/);
    expect(model.outputs.at(-1)).not.toMatch(/^pwned$/m);
    // Codex mostly prints no item for a command its sandbox refused, but on a loaded machine it sometimes does (measured
    // both): either way the stream shows at most that one refused command, and the model was told why.
    const calls = of(records[1]!.transcript, 'tool_call');
    expect(calls.length).toBeLessThanOrEqual(1);
    expect(calls.every((c) => JSON.stringify(c.input).includes('> WRITTEN.txt'))).toBe(true);
    expect(records[1]!.meta.exitCode).toBe(0);
  });

  it('leaves no process behind', () => {
    expect(processesUnder(workdir)).toEqual([]);
  });
});
