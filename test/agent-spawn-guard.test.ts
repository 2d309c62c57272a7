import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { agentCommand } from './setup/agent-spawn-guard.mjs';
import { takeRefusedAgentSpawns } from './setup/unit-pass.js';
import config from '../vitest.config.js';

describe('the unit pass refuses to start an agent CLI', () => {
  const binaries = [claudeCode, codex, gemini].map((a) => a.resolveBinary());

  it.each([
    ['the Claude Code binary', binaries[0]!, [], binaries[0]],
    ['the Codex binary', binaries[1]!, ['exec'], binaries[1]],
    ['node running the Gemini CLI script', process.execPath, [binaries[2]!, '--version'], binaries[2]],
    ['node running skillprobe', process.execPath, ['dist/cli.js', 'run'], undefined],
    ['node evaluating a script that names an agent CLI', 'node', ['-e', `spawn(${JSON.stringify(binaries[0])})`], undefined],
    ['a stand-in agent script', '/tmp/spy-agent.sh', ['-p', 'hi'], undefined],
  ])('knows %s for what it is', (_, file, args, agent) => {
    expect(agentCommand(file, args)).toBe(agent);
  });

  it('a spawn in the test process is refused before the CLI starts, and written down for the test to fail', async () => {
    const r = await execa(binaries[0]!, ['--version'], { reject: false });
    expect(r.failed).toBe(true);
    expect(r.message).toContain('the unit pass may not start an agent CLI');
    expect(takeRefusedAgentSpawns()).toEqual([binaries[0]]);
  });

  it('so is one in a Node process the test started, with an environment of its own (as a spawned skillprobe runs)', async () => {
    const script = `try { require('node:child_process').spawnSync(${JSON.stringify(binaries[1])}, ['--version']) } catch (e) { console.log(e.message) }`;
    const r = await execa(process.execPath, ['-e', script], { env: { PATH: '/usr/bin:/bin' }, extendEnv: false });
    expect(r.stdout).toContain('the unit pass may not start an agent CLI');
    expect(takeRefusedAgentSpawns()).toEqual([binaries[1]]);
  });

  it('spawns of anything else go through', async () => {
    expect((await execa(process.execPath, ['-e', 'console.log(1 + 1)'])).stdout).toBe('2');
    expect(takeRefusedAgentSpawns()).toEqual([]);
  });

  it('is set up for every file of the unit pass, and the e2e files are the only ones outside it', () => {
    const projects = (config.test?.projects ?? []) as {
      test: { name: string; include: string[]; exclude?: string[]; setupFiles?: string[] };
    }[];
    const byName = Object.fromEntries(projects.map((p) => [p.test.name, p.test]));
    expect(byName.unit).toMatchObject({
      include: ['test/**/*.test.ts'],
      exclude: ['test/**/*.e2e.test.ts'],
      setupFiles: ['./test/setup/unit-pass.ts'],
    });
    expect(byName.e2e).toMatchObject({ include: ['test/**/*.e2e.test.ts'] });
  });
});
