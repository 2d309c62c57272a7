import { outcomeStands } from '../src/run/schema.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini } from '../src/agents/gemini/adapter.js';
import { parseGeminiStream } from '../src/agents/gemini/parse.js';
import { trialStatus } from '../src/grade/status.js';
import type { Arm } from '../src/run/config-schema.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import { baseProject, cleanup, makeProject, processesUnder, runCli, skillMd, testEnv, writeFiles } from './helpers.js';
import { runTrials as runGeminiTrials } from './trial-runner.js';
import { of, onlyRun, resultsOf, storedTrial } from './e2e-scenarios.js';

/**
 * What only Gemini has to prove, through its real pinned CLI against skillprobe's simulator on 127.0.0.1 (every
 * trial with a fresh HOME): its isolation and what the model receives. The scenarios every agent shares are in
 * agent-conformance.e2e.test.ts.
 */
const MODEL = 'gemini-2.5-flash';
// One CLI retry: a 429 then costs one backoff (about 5 s), not the default two.
const CONFIG = `agent: gemini\nmodel: ${MODEL}\nretries:\n  cli: 1\n`;
/** A deadline no normal trial comes near, even on a loaded machine (a Gemini trial takes 1–2 s here). */
const NORMAL_DEADLINE_S = 120;

const trial = (dir: string, caseId: string, arm = 'skill', n = 1, suffix = '') =>
  storedTrial(parseGeminiStream, dir, caseId, arm, n, suffix);
const results = resultsOf;
const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/at .*\.js:\d+/);

/** A caller's own Gemini setup, none of which may reach a trial: personal skills and instruction files. */
const LEAKY_HOME = {
  '.gemini/skills/home-leak/SKILL.md': skillMd('home-leak', 'A personal Gemini skill that must not leak.'),
  '.agents/skills/agents-leak/SKILL.md': skillMd('agents-leak', 'A personal shared skill that must not leak.'),
  '.gemini/GEMINI.md': 'HOME-MARKER-1: personal instructions\n',
  'GEMINI.md': 'HOME-MARKER-2: personal instructions\n',
};
const LEAKS = ['home-leak', 'agents-leak', 'HOME-MARKER', 'PROJECT-MARKER', 'skill-creator', 'antigravity-support'];

describe('end to end: Gemini isolation through the CLI', () => {
  let project: string;
  let home: string;
  let runDir: string;

  beforeAll(async () => {
    project = makeProject({
      ...baseProject(),
      'sim.yaml': 'seed: 1\n',
      'skillprobe.config.yaml': `${CONFIG}ablation: always\n`,
      'GEMINI.md': 'PROJECT-MARKER: answer in French\n',
    });
    home = mkdtempSync(join(tmpdir(), 'sp-userhome-'));
    writeFiles(home, LEAKY_HOME);
    // One case: the listing is probed once per arm, so every case of an arm shows the same.
    const r = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--grep', 'pos-alpha', '--transcripts', 'runs'], {
      cwd: project,
      env: testEnv({ HOME: home }),
    });
    expect(r.exitCode).not.toBe(2);
    noStackTrace(r.stderr);
    runDir = onlyRun(project);
  }, 120_000);

  afterAll(() => cleanup(project, home));

  it('the skill arm lists exactly the family and the ablation arm none of it, and no trial is an isolation error', () => {
    expect(trial(runDir, 'pos-alpha', 'skill').meta.evidence?.shown).toMatchObject({ skills: ['alpha', 'alpha-beta'] });
    expect(trial(runDir, 'pos-alpha', 'ablation').meta.evidence?.shown).toMatchObject({ skills: [] });
    expect(results(runDir).outcomes).toHaveLength(2);
    expect(results(runDir).outcomes.filter((o) => !outcomeStands(o.status))).toEqual([]);
  });
});

const runTrials = (project: string, modelUrl: string, callerEnv: NodeJS.ProcessEnv, plan: [caseId: string, arm: Arm][]) =>
  runGeminiTrials(gemini, project, modelUrl, callerEnv, plan, { model: MODEL, deadlineSeconds: NORMAL_DEADLINE_S });

const statusOf = (r: TrialRecord) =>
  trialStatus(r.transcript, r.meta, { arm: r.ref.arm, family: ['alpha', 'alpha-beta'], isolationProblem: gemini.grading.isolationProblem })
    .status;

describe('end to end: what the model receives from a Gemini trial', () => {
  let project: string;
  let home: string;
  let sim: RunningSimulator;
  let records: TrialRecord[];
  let workdir: string;

  beforeAll(async () => {
    project = makeProject({ ...baseProject(), 'GEMINI.md': 'PROJECT-MARKER: answer in French\n' });
    home = mkdtempSync(join(tmpdir(), 'sp-userhome-'));
    writeFiles(home, LEAKY_HOME);
    sim = await startSimulator(parseProfile({ seed: 1, rules: [{ case: 'pos-alpha', do: [{ skill: 'alpha' }] }] }), { record: true });
    // The caller's own credentials and proxy: a simulated trial must take none of them.
    const caller = {
      ...testEnv({ HOME: home }),
      GEMINI_API_KEY: 'caller-real-key',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9',
    };
    ({ records, workdir } = await runTrials(project, sim.url, caller, [
      ['pos-alpha', 'skill'],
      ['neg-weather', 'skill'],
      ['pos-alpha', 'ablation'],
    ]));
  }, 120_000);

  afterAll(async () => {
    await sim.stop();
    cleanup(project, home, workdir);
  });

  it('every trial ran clean: the skill fired in the skill arm and could not in the ablation arm', () => {
    expect(records.map(statusOf)).toEqual(['ok', 'ok', 'ok']);
    expect(of(records[0]!.transcript, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha', status: 'loaded' })]);
    expect(of(records[2]!.transcript, 'tool_call')).toEqual([]);
  });

  it('every request came to the simulator, on the Gemini API path, with the trial’s identity', () => {
    expect(sim.received.length).toBeGreaterThanOrEqual(4);
    for (const r of sim.received) {
      expect(r.wire).toBe('gemini');
      expect(r.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
      expect(['pos-alpha', 'neg-weather']).toContain(r.caseId);
      expect(r.trial).toMatch(/^(pos-alpha|neg-weather)\/(skill|ablation)\/1$/);
    }
  });

  it('the skill arm shows the model exactly the family, the ablation arm none of it', () => {
    const listed = (body: unknown) => {
      const system = ((body as { systemInstruction?: { parts?: { text?: string }[] } }).systemInstruction?.parts ?? [])
        .map((p) => p.text ?? '')
        .join('\n');
      return [...system.matchAll(/<skill>\s*<name>([^<]+)<\/name>/g)].map((m) => m[1]).sort();
    };
    for (const r of sim.received) expect(listed(r.body)).toEqual(r.trial!.includes('/ablation/') ? [] : ['alpha', 'alpha-beta']);
  });

  it('no personal skill, built-in skill or instruction file of the caller reaches the model', () => {
    for (const r of sim.received) {
      const body = JSON.stringify(r.body);
      for (const leak of LEAKS) expect(body).not.toContain(leak);
    }
  });

  it('the model is offered only the trial’s tools: no shell, no writes, no web, no sub-agents', () => {
    for (const r of sim.received) {
      const body = r.body as { tools?: { functionDeclarations?: { name: string }[] }[] };
      const offered = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
      expect(offered.every((name) => gemini.trialTools.includes(name))).toBe(true);
      expect(offered).toEqual(expect.arrayContaining(['read_file', 'glob']));
    }
  });
});

/**
 * A model server the simulator could not stand in for: it calls what the trial never offered (a skill not in the
 * list, the shell, a file write), which only a real model would; each first request gets one such call, the next a
 * plain answer. The called tools' answers are kept.
 */
async function scriptedModel(
  calls: Record<string, { name: string; args: Record<string, unknown> }[]>,
): Promise<{ url: string; answers: unknown[]; server: Server }> {
  const answers: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const contents = (JSON.parse(body) as { contents: { parts: { functionResponse?: unknown }[] }[] }).contents;
      const responses = contents.at(-1)!.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
      answers.push(...responses);
      const caseId = decodeURIComponent(/^\/t\/[^/]*\/([^/]*)\//.exec(req.url ?? '')?.[1] ?? '');
      const parts = responses.length ? [{ text: 'Done.' }] : (calls[caseId] ?? []).map((functionCall) => ({ functionCall }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } })}\n\n`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answers, server };
}

describe('end to end: a Gemini trial that calls what it was not offered', () => {
  let project: string;
  let scratch: string;
  let model: Awaited<ReturnType<typeof scriptedModel>>;
  let records: TrialRecord[];
  let workdir: string;

  beforeAll(async () => {
    project = makeProject(baseProject());
    scratch = mkdtempSync(join(tmpdir(), 'sp-scratch-'));
    model = await scriptedModel({
      'pos-alpha': [{ name: 'activate_skill', args: { name: 'alpha-gamma' } }],
      'neg-weather': [
        { name: 'run_shell_command', args: { command: `touch ${join(scratch, 'SHELL-RAN')}` } },
        { name: 'write_file', args: { file_path: join(scratch, 'WRITTEN'), content: 'x' } },
      ],
    });
    ({ records, workdir } = await runTrials(project, model.url, testEnv(), [
      ['pos-alpha', 'skill'],
      ['neg-weather', 'skill'],
    ]));
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => model.server.close(resolve));
    cleanup(project, scratch, workdir);
  });

  it('a skill outside the list is an unknown skill, the model’s own mistake', () => {
    const t = records[0]!.transcript;
    expect(of(t, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha-gamma', status: 'unknown' })]);
    expect(statusOf(records[0]!)).toBe('ok');
  });

  it('the shell and file writes are not there to call: nothing ran, nothing was written', () => {
    const results = of(records[1]!.transcript, 'tool_result');
    expect(results.map((r) => [r.isError, r.text.replace(/ Did you mean.*/, '')])).toEqual([
      [true, 'Tool "run_shell_command" not found.'],
      [true, 'Tool "write_file" not found.'],
    ]);
    expect(existsSync(join(scratch, 'SHELL-RAN'))).toBe(false);
    expect(existsSync(join(scratch, 'WRITTEN'))).toBe(false);
    expect(statusOf(records[1]!)).toBe('ok');
    expect(model.answers).toHaveLength(3);
  });

  it('leaves no process behind', () => {
    expect(processesUnder(workdir)).toEqual([]);
  });
});
