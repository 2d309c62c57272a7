import { outcomeStands } from '../src/run/schema.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { baseProject, cleanup, makeProject, processesUnder, runCli, skillMd, spyBinary, testEnv, writeFiles } from './helpers.js';
import { runTrials } from './trial-runner.js';
import { of, onlyRun, resultsOf, storedTrial } from './e2e-scenarios.js';

/**
 * What only Codex has to prove, through its real pinned CLI against skillprobe's simulator: its isolation and its
 * sandbox. The scenarios every agent shares are in agent-conformance.e2e.test.ts.
 */
const CONFIG = 'agent: codex\nmodel: sim-model\nretries:\n  cli: 1\n';
/** A deadline no normal trial comes near, even on a loaded machine (a Codex trial takes about 0.5 s here). */
const NORMAL_DEADLINE_S = 120;

const trial = (dir: string, caseId: string, arm = 'skill', n = 1, suffix = '') =>
  storedTrial(parseCodexStream, dir, caseId, arm, n, suffix);
const results = resultsOf;

describe('end to end: Codex isolation', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('a user-level skill, a user and a project AGENTS.md and bundled skills never reach the model; the ablation arm sees none of the family', async () => {
    const project = makeProject({
      ...baseProject(),
      'sim.yaml': 'seed: 1\n',
      'skillprobe.config.yaml': CONFIG,
      'AGENTS.md': 'PROJECT-MARKER: answer in French\n',
    });
    const home = mkdtempSync(join(tmpdir(), 'sp-userhome-'));
    dirs.push(project, home);
    writeFiles(home, {
      '.codex/skills/home-leak/SKILL.md': skillMd('home-leak', 'A personal Codex skill that must not leak.'),
      '.agents/skills/agents-leak/SKILL.md': skillMd('agents-leak', 'A personal shared skill that must not leak.'),
      '.codex/AGENTS.md': 'HOME-MARKER: personal instructions\n',
    });
    const r = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--ablation', 'always', '--transcripts', 'runs'], {
      cwd: project,
      env: testEnv({ HOME: home, CODEX_HOME: join(home, '.codex') }),
    });
    expect(r.exitCode).not.toBe(2);
    const runDir = onlyRun(project);
    for (const caseId of ['pos-alpha', 'neg-weather']) {
      const skillArm = trial(runDir, caseId, 'skill').meta.evidence?.shown;
      expect(skillArm).toMatchObject({ skills: ['alpha', 'alpha-beta'], contextFiles: [] });
      const ablation = trial(runDir, caseId, 'ablation').meta.evidence?.shown;
      expect(ablation).toMatchObject({ skills: [], contextFiles: [] });
    }
    expect(results(runDir).outcomes.every((o) => outcomeStands(o.status))).toBe(true);
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
        ? {
            type: 'message',
            id: 'm1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
          }
        : {
            type: 'function_call',
            id: 'fc1',
            call_id: 'call1',
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: commands[caseId] }),
            status: 'completed',
          };
      const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse('response.created', { response: { id: 'r1', status: 'in_progress', output: [] } }) +
          sse('response.output_item.done', { output_index: 0, item }) +
          sse('response.completed', {
            response: { id: 'r1', status: 'completed', output: [item], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
          }),
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
    ({ records, workdir } = await runTrials(
      codex,
      project,
      model.url,
      testEnv(),
      [
        ['pos-alpha', 'skill'],
        ['neg-weather', 'skill'],
      ],
      { model: 'sim-model', deadlineSeconds: NORMAL_DEADLINE_S },
    ));
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
