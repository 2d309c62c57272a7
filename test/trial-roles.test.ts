import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codexConfig } from '../src/agents/codex/config.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { geminiPolicy } from '../src/agents/gemini/settings.js';
import type { InvocationRequest, TrialRole } from '../src/agents/types.js';
import type { Context } from '../src/run/config-schema.js';
import { requestContext } from '../src/runner/trial.js';

/**
 * Each adapter maps a trial's role to what its CLI offers: a trial under test its tool menu and the skill tool; a
 * judge's request and a tune proposer's request no tool at all (the judge answers from the text it is shown, the
 * proposer writes a description from what its request shows it). Checked on the argv and files each writes.
 */

const request = (role: TrialRole): InvocationRequest => ({
  prompt: 'p',
  role,
  model: 'm',
  maxTurns: 3,
  cliRetries: 0,
  deadlineMs: 60_000,
  workspace: '/trial/ws',
  home: '/trial/home',
  tmp: '/trial/tmp',
  harnessDir: '/trial/harness',
  callerEnv: {},
  binary: '/bin/true',
});

const ROLES: [TrialRole, 'menu' | 'none'][] = [
  ['trial', 'menu'],
  ['judge', 'none'],
  ['proposer', 'none'],
];

describe('trial roles: what each CLI offers each role', () => {
  it.each(ROLES)('Claude Code, %s: %s', (role, offered) => {
    const tools = claudeCode.invocation(request(role)).args.filter((a) => a.startsWith('--tools=') || a.startsWith('--allowedTools='));
    expect(tools).toEqual(offered === 'menu' ? [`--tools=${claudeCode.trialTools.join(',')}`, '--allowedTools=Skill'] : ['--tools=']);
  });

  it.each(ROLES)('Codex, %s: %s', (role, offered) => {
    const features = (parseToml(codexConfig(request(role))) as { features: Record<string, boolean> }).features;
    const switchedOff = ['shell_tool', 'unified_exec', 'view_image'].filter((f) => features[f] === false);
    expect(switchedOff).toEqual(offered === 'menu' ? [] : ['shell_tool', 'unified_exec', 'view_image']);
  });

  it.each(ROLES)('Gemini CLI, %s: %s', (role, offered) => {
    const rules = (
      parseToml(geminiPolicy('activate_skill', role, gemini.trialTools)) as { rule: { toolName: string | string[]; decision: string }[] }
    ).rule;
    const allowed = rules.filter((r) => r.decision === 'allow').flatMap((r) => r.toolName);
    const denied = rules.filter((r) => r.decision === 'deny').flatMap((r) => r.toolName);
    expect(allowed).toEqual(offered === 'menu' ? ['activate_skill'] : []);
    // With no tool offered, every tool a trial could use is denied, the skill tool among them.
    expect(gemini.trialTools.every((t) => denied.includes(t))).toBe(offered === 'none');
  });
});

describe('where each role runs', () => {
  // A judge's or a proposer's request has no tools to refuse: a field suite's nested requests run in the lab, and the
  // listing a CLI is probed for (per arm and context) is the one those requests then look up.
  it.each<[TrialRole, Context | undefined, Context | undefined, Context]>([
    ['trial', undefined, undefined, 'lab'],
    ['trial', 'field', undefined, 'field'],
    ['trial', undefined, 'field', 'field'],
    ['trial', 'lab', 'field', 'field'],
    ['trial', 'field', 'lab', 'lab'],
    ['judge', 'field', 'field', 'lab'],
    ['judge', undefined, 'field', 'lab'],
    ['proposer', 'field', undefined, 'lab'],
  ])('%s, config %s, case %s: %s', (role, configContext, caseContext, expected) => {
    expect(requestContext({ context: caseContext }, { context: configContext }, role)).toBe(expected);
  });
});
