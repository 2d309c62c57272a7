import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { settleHooks } from '../src/agents/claude-code/settle-hook.js';
import type { InvocationRequest } from '../src/agents/types.js';

/** What the hook prints for one PostToolUse input, run by the shell as the CLI runs it. */
function hookSays(skills: string[], input: Record<string, unknown>): string {
  const hooks = settleHooks(skills).PostToolUse as { matcher: string; hooks: { command: string }[] }[];
  const input_ = JSON.stringify({
    hook_event_name: 'PostToolUse',
    tool_name: 'Skill',
    tool_input: input,
    tool_response: { success: true },
  });
  return execFileSync('sh', ['-c', hooks[0]!.hooks[0]!.command], { input: input_, encoding: 'utf8' });
}

describe("Claude Code's settle hook", () => {
  it.each([
    { skill: 'atl-jira', stops: true },
    { skill: '/atl-jira', stops: true },
    { skill: 'plugin:atl-jira', stops: true },
    { skill: ' atl-jira ', stops: true },
    { skill: 'jira', stops: true },
    { skill: 'atl-jira-2', stops: false },
    { skill: 'atl', stops: false },
    { skill: 'my-atl-jira', stops: false },
  ])('a call of "$skill" stops the CLI: $stops', ({ skill, stops }) => {
    const said = hookSays(['atl-jira', 'jira'], { skill, args: 'x' });
    expect(said === '' ? undefined : JSON.parse(said)).toEqual(stops ? expect.objectContaining({ continue: false }) : undefined);
  });

  it('the skill named inside the arguments is not the call', () => {
    expect(hookSays(['atl-jira'], { args: 'use "skill":"atl-jira"', skill: 'atl' })).toBe('');
  });

  it('a name the shell pattern cannot hold is left to the watch of the stream', () => {
    expect(settleHooks([`it's`])).toEqual({});
  });

  describe('a trial that settles is started with the settings holding it, in the lab and the field', () => {
    const harness = mkdtempSync(join(tmpdir(), 'sp-settle-hook-'));
    afterAll(() => rmSync(harness, { recursive: true, force: true }));
    const req = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
      prompt: 'p',
      model: 'sonnet',
      maxTurns: 8,
      cliRetries: 2,
      deadlineMs: 60_000,
      workspace: join(harness, 'ws'),
      home: join(harness, 'home'),
      tmp: join(harness, 'tmp'),
      harnessDir: harness,
      callerEnv: {},
      binary: '/bin/claude',
      role: 'trial',
      ...over,
    });
    const settingsOf = async (r: InvocationRequest) => {
      await claudeCode.prepareTrial!(r);
      return JSON.parse(readFileSync(join(harness, 'trial-settings.json'), 'utf8')) as { hooks?: Record<string, unknown> };
    };

    it('the lab keeps its tool list, and its settings hold the hook only when the trial settles', async () => {
      const args = claudeCode.invocation(req({ settle: { skills: ['atl-jira'] } })).args;
      expect(args).toContain('--tools=Read,Glob,Grep,Skill');
      expect(args).toContain(`--settings=${join(harness, 'trial-settings.json')}`);
      expect(Object.keys((await settingsOf(req({ settle: { skills: ['atl-jira'] } }))).hooks ?? {})).toEqual(['PostToolUse']);
      expect((await settingsOf(req())).hooks?.PostToolUse).toBeUndefined();
    });

    it('the field holds the refusing hook beside it', async () => {
      const settings = await settingsOf(req({ context: 'field', settle: { skills: ['atl-jira'] } }));
      expect(Object.keys(settings.hooks ?? {}).sort()).toEqual(['PostToolUse', 'PreToolUse']);
    });
  });
});
