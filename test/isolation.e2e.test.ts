import type { InvocationRequest } from '../src/agents/types.js';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { claudeInitOf } from './claude-stream.js';
import { spawnAgent } from '../src/agents/spawn.js';
import { loadSkills } from '../src/load/skills.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import type { Results } from '../src/run/schema.js';
import { checkWorkspaceRoot, createSealedWorkspace } from '../src/workspace/sealed.js';
import { baseProject, cleanup, makeProject, runCli, skillMd, testEnv, writeFiles } from './helpers.js';

describe('isolation: only the family under test is visible', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('a skill in the caller’s ~/.claude/skills never appears; the ablation arm sees none of the family; Bedrock settings and a proxy in the caller environment do not take the run elsewhere', async () => {
    const project = makeProject({
      ...baseProject(),
      'sim.yaml':
        'seed: 1\nrules:\n  - { case: pos-alpha, do: [{ skill: alpha, args: "create" }] }\n  - { case: neg-weather, do: [{ answer: "sunny" }] }\n',
    });
    const home = mkdtempSync(join(tmpdir(), 'sp-userhome-'));
    dirs.push(project, home);
    writeFiles(home, {
      '.claude/skills/home-leak/SKILL.md': skillMd('home-leak', 'A personal skill that must not leak into trials.'),
      '.claude/CLAUDE.md': 'personal memory that must not leak\n',
    });
    const r = await runCli(['run', '--sim', 'sim.yaml', '--trials', '1', '--ablation', 'always', '--transcripts', 'runs'], {
      cwd: project,
      env: testEnv({
        HOME: home,
        // Were any of these followed, the trials would fail (the proxy is a dead loopback port), and nothing leaves the machine.
        CLAUDE_CODE_USE_BEDROCK: '1',
        AWS_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKEFAKE',
        AWS_SECRET_ACCESS_KEY: 'fake-secret',
        AWS_REGION: 'us-east-1',
        HTTPS_PROXY: 'http://127.0.0.1:9',
      }),
    });
    expect(r.exitCode).not.toBe(2);
    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    // Every trial reached the simulator and graded normally.
    const outcomes = (JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results).outcomes;
    expect(outcomes).toHaveLength(4);
    // The skill arm's firing trial stops once its skill loaded (settled); the others run to their end.
    for (const o of outcomes)
      expect(o, `${o.caseId}/${o.arm}`).toMatchObject({ status: o.caseId === 'pos-alpha' && o.arm === 'skill' ? 'settled' : 'ok' });
    expect(outcomes.find((o) => o.caseId === 'pos-alpha' && o.arm === 'skill')).toMatchObject({ passed: true, fired: 'expected' });
    for (const caseId of ['pos-alpha', 'neg-weather']) {
      const skillArm = claudeInitOf(readFileSync(join(runDir, 'trials', caseId, 'skill', '1.jsonl'), 'utf8'));
      expect(skillArm.skills).toEqual(expect.arrayContaining(['alpha', 'alpha-beta']));
      expect(skillArm.skills).not.toContain('home-leak');
      const ablation = claudeInitOf(readFileSync(join(runDir, 'trials', caseId, 'ablation', '1.jsonl'), 'utf8'));
      expect(ablation.skills.filter((s) => ['alpha', 'alpha-beta', 'home-leak'].includes(s))).toEqual([]);
      expect(ablation.tools).toEqual(['Glob', 'Grep', 'Read', 'Skill']);
    }
  }, 120_000);

  describe('an ancestor .claude/skills', () => {
    let ancestor: string;
    let sim: RunningSimulator;
    beforeAll(async () => {
      ancestor = mkdtempSync(join(tmpdir(), 'sp-ancestor-'));
      dirs.push(ancestor);
      writeFiles(ancestor, { '.claude/skills/ancestor-leak/SKILL.md': skillMd('ancestor-leak', 'A skill above the workspace.') });
      mkdirSync(join(ancestor, 'sub'));
      sim = await startSimulator(parseProfile({ seed: 1 }));
    });
    afterAll(() => sim.stop());

    it('makes the run refuse to start (fail closed), exit 2', async () => {
      await expect(checkWorkspaceRoot(join(ancestor, 'sub'), claudeCode.ancestorLeaks)).rejects.toThrow(/\.claude.*--workdir/);
      const project = makeProject({ ...baseProject(), 'sim.yaml': 'seed: 1\n' });
      dirs.push(project);
      const r = await runCli(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', '--workdir', join(ancestor, 'sub')], { cwd: project });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(join(ancestor, '.claude'));
    });

    it('never reaches the agent even when a workspace is made below it: the git root stops the walk', async () => {
      const project = makeProject(baseProject());
      dirs.push(project);
      const skills = loadSkills(join(project, 'skills'));
      const ws = await createSealedWorkspace({ root: join(ancestor, 'sub'), skills, skillsFolder: claudeCode.skillsFolder });
      try {
        const req: InvocationRequest = {
          prompt: 'hello',
          role: 'trial',
          model: 'claude-sonnet-4-5',
          maxTurns: 2,
          cliRetries: 0,
          deadlineMs: 60_000,
          workspace: ws.dir,
          home: ws.home,
          tmp: ws.tmp,
          harnessDir: ws.harnessDir,
          callerEnv: testEnv(),
          simulator: { url: sim.url, headers: {}, identityUrl: sim.url },
        };
        // The trial's settings file (its hooks, the plugins off) is written before the CLI starts, as the runner does.
        await claudeCode.prepareTrial!(req);
        const inv = claudeCode.invocation(req);
        const stdoutFile = join(ws.root, 'stdout.jsonl');
        await spawnAgent(inv, { cwd: ws.dir, deadlineMs: 60_000, attempt: 1, stdoutFile, maxOutputBytes: 1 << 24 });
        const init = claudeInitOf(readFileSync(stdoutFile, 'utf8'));
        expect(init.skills).toEqual(expect.arrayContaining(['alpha', 'alpha-beta']));
        expect(init.skills).not.toContain('ancestor-leak');
      } finally {
        await ws.cleanup();
      }
    }, 120_000);
  });
});
