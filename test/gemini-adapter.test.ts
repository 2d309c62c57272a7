import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enabledSkills, gemini, systemPolicyProblem } from '../src/agents/gemini/adapter.js';
import { builtinSkills, builtinsToHide } from '../src/agents/gemini/settings.js';
import { InputError } from '../src/util/input-error.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';
import { baseProject, cleanup, ROOT, runInProcess, skillMd, writeFiles } from './helpers.js';
import { request, SIMULATOR } from './gemini-request.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/codex-gemini');
const PINNED_SCRIPT = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js');
describe('Gemini adapter: the invocation', () => {
  it('runs the pinned JavaScript entry point under this Node, with the locked flags', () => {
    const inv = gemini.invocation(request({ binary: gemini.resolveBinary() }));
    expect(inv.file).toBe(process.execPath);
    expect(inv.args).toEqual([
      PINNED_SCRIPT,
      '--skip-trust',
      '--admin-policy',
      '/trial/harness/policy.toml',
      '--output-format',
      'stream-json',
      '--model',
      'gemini-2.5-flash',
      '--prompt=please handle an alpha record',
    ]);
  });

  it('keeps a prompt that starts with a dash the prompt', () => {
    expect(gemini.invocation(request({ prompt: '--help me' })).args.at(-1)).toBe('--prompt=--help me');
  });

  it('runs an override binary itself, and a JavaScript override under this Node', () => {
    expect(gemini.invocation(request({ binary: '/opt/gemini' })).file).toBe('/opt/gemini');
    expect(gemini.invocation(request({ binary: '/opt/gemini' })).args[0]).toBe('--skip-trust');
    expect(gemini.invocation(request({ binary: '/opt/cli/index.mjs' })).args[0]).toBe('/opt/cli/index.mjs');
  });

  it('against the simulator: only its own variables, a placeholder key, the identity base URL, no proxy', () => {
    const env = gemini.invocation(request({ simulator: SIMULATOR })).env;
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      HOME: '/trial/home',
      GEMINI_CLI_HOME: '/trial/home',
      TMPDIR: '/trial/tmp',
      TERM: 'dumb',
      NO_COLOR: '1',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/trial/harness/system-settings.json',
      GEMINI_API_KEY: 'skillprobe-simulator',
      GOOGLE_GEMINI_BASE_URL: SIMULATOR.identityUrl,
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
    });
  });

  it('for the real model: the caller’s key, endpoint, proxies and CA, and nothing else of theirs', () => {
    const env = gemini.invocation(request()).env;
    expect(env).toMatchObject({
      GEMINI_API_KEY: 'real-key',
      GOOGLE_GEMINI_BASE_URL: 'https://gateway.example',
      HTTPS_PROXY: 'http://proxy:3128',
      HTTP_PROXY: 'http://proxy:3128',
      NO_PROXY: 'corp.invalid',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      HOME: '/trial/home',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/trial/harness/system-settings.json',
    });
    for (const name of [
      'GOOGLE_API_KEY',
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GOOGLE_CLOUD_PROJECT',
      'GEMINI_MODEL',
      'GEMINI_CLI_TRUST_WORKSPACE',
      'ALL_PROXY',
      'NODE_OPTIONS',
      'OPENAI_API_KEY',
      'no_proxy',
    ]) {
      expect(env).not.toHaveProperty(name);
    }
  });

  it('names what to export when no key is set', () => {
    expect(gemini.credentialProblem({ GEMINI_API_KEY: 'k' })).toBeUndefined();
    expect(gemini.credentialProblem({ GEMINI_API_KEY: '', GOOGLE_API_KEY: 'k' })).toMatch(/export GEMINI_API_KEY .*--sim PROFILE/);
  });

  it('resolves the pinned script, and refuses an override that is not executable', () => {
    expect(gemini.resolveBinary()).toBe(PINNED_SCRIPT);
    expect(() => gemini.resolveBinary(join(FIXTURES, 'gemini-locked2.json'))).toThrow(InputError);
  });

  it('reads the pinned version', async () => {
    expect(await gemini.cliVersion(gemini.resolveBinary())).toBe('0.61.0');
  });
});

describe('Gemini adapter: the trial’s settings and policy', () => {
  let root: string;
  let prepared: unknown;
  // One trial's files, which each test reads (in any order).
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sp-gemini-'));
    prepared = await gemini.prepareTrial!(
      request({ home: join(root, 'home'), harnessDir: root, model: 'gemini-x', maxTurns: 7, cliRetries: 2 }),
    );
  });
  afterAll(() => cleanup(root));

  it('writes the verified locked settings, with the trial’s model, turn limit and retries', () => {
    expect(prepared).toEqual({});
    const written = JSON.parse(readFileSync(join(root, 'home/.gemini/settings.json'), 'utf8'));
    const verified = JSON.parse(readFileSync(join(FIXTURES, 'gemini-locked2.json'), 'utf8'));
    // Folder trust is only consulted without --skip-trust; the trial sets a model, turns and attempts of its own.
    delete verified.security.folderTrust;
    verified.model = { name: 'gemini-x', maxSessionTurns: 7 };
    verified.general.maxAttempts = 3;
    verified.advanced = { ignoreLocalEnv: true };
    verified.tools.core = gemini.trialTools;
    verified.skills.disabled.sort();
    expect(written).toEqual(verified);
  });

  it('writes the verified admin policy', () => {
    const policy = parseToml(readFileSync(join(root, 'policy.toml'), 'utf8'));
    expect(policy).toEqual(parseToml(readFileSync(join(FIXTURES, 'gemini-locked-policy.toml'), 'utf8')));
  });

  it('caps the CLI’s attempts where the CLI does', async () => {
    const capped = join(root, 'capped');
    await gemini.prepareTrial!(request({ home: join(capped, 'home'), harnessDir: capped, cliRetries: 10 }));
    expect(JSON.parse(readFileSync(join(capped, 'home/.gemini/settings.json'), 'utf8')).general.maxAttempts).toBe(10);
  });

  it('hides the built-in skills the pinned bundle ships, by the names they declare', () => {
    expect(builtinSkills(join(ROOT, 'node_modules/@google/gemini-cli/bundle'))).toEqual(['antigravity-support', 'skill-creator']);
    const bundle = join(root, 'bundle');
    mkdirSync(join(bundle, 'builtin/folder'), { recursive: true });
    writeFileSync(join(bundle, 'builtin/folder/SKILL.md'), '---\nname: declared\ndescription: d\n---\nbody\n');
    mkdirSync(join(bundle, 'builtin/bare'));
    expect(builtinSkills(bundle)).toEqual(['bare', 'declared']);
    expect(builtinSkills(join(root, 'nowhere'))).toEqual(['antigravity-support', 'skill-creator']);
  });
});

describe('Gemini adapter: hiding the built-ins without hiding a skill of the family', () => {
  const BUILTINS = ['antigravity-support', 'skill-creator'];
  it.each([
    ['no workspace skill', [], { hide: BUILTINS, clash: [] }],
    [
      'a family skill named like a built-in replaces it: hiding that name would hide the family skill',
      ['alpha', 'skill-creator'],
      { hide: ['antigravity-support'], clash: [] },
    ],
    [
      'a name equal but for case is not replaced, and cannot be hidden alone',
      ['Skill-Creator'],
      { hide: BUILTINS, clash: ['skill-creator'] },
    ],
  ])('%s', (_what, workspace, expected) => {
    expect(builtinsToHide(BUILTINS, workspace)).toEqual(expected);
  });

  it('a trial whose workspace holds a skill named skill-creator hides only the other built-in', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sp-gemini-shadow-'));
    try {
      mkdirSync(join(root, 'ws/.agents/skills/skill-creator'), { recursive: true });
      writeFileSync(join(root, 'ws/.agents/skills/skill-creator/SKILL.md'), '---\nname: skill-creator\ndescription: d\n---\nx\n');
      await gemini.prepareTrial!(
        request({ workspace: join(root, 'ws'), home: join(root, 'home'), harnessDir: root, binary: PINNED_SCRIPT }),
      );
      expect(JSON.parse(readFileSync(join(root, 'home/.gemini/settings.json'), 'utf8')).skills.disabled).toEqual(['antigravity-support']);
    } finally {
      cleanup(root);
    }
  });
});

describe('Gemini adapter: a built-in it cannot hide without hiding a family skill refuses the run before anything starts', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sp-gemini-clash-'));
    // Another Gemini binary whose bundle ships a built-in named like a family skill but for case; it marks any spawn.
    mkdirSync(join(root, 'bundle/builtin/Skill-Creator'), { recursive: true });
    writeFileSync(join(root, 'bundle/builtin/Skill-Creator/SKILL.md'), '---\nname: Skill-Creator\ndescription: d\n---\nx\n');
    writeFileSync(join(root, 'bundle/gemini.js'), `require('fs').writeFileSync(${JSON.stringify(join(root, 'SPAWNED'))}, '')\n`);
    chmodSync(join(root, 'bundle/gemini.js'), 0o755);
    writeFiles(join(root, 'project'), {
      ...baseProject(),
      'skills/skill-creator/SKILL.md': skillMd('skill-creator', 'Create and improve skills.'),
      'sim.yaml': 'seed: 1\n',
    });
  });
  afterAll(() => cleanup(root));

  it('names the built-in and the way out; the pinned CLI has no such clash', () => {
    expect(gemini.familyProblem!(join(root, 'bundle/gemini.js'), ['alpha', 'skill-creator'])?.what).toMatch(
      /ships a built-in skill Skill-Creator, which its settings can hide only by a name that also hides the family's skill/,
    );
    expect(gemini.familyProblem!(join(root, 'bundle/gemini.js'), ['alpha'])).toBeUndefined();
    expect(gemini.familyProblem!(PINNED_SCRIPT, ['alpha', 'skill-creator'])).toBeUndefined();
  });

  it('run: exit 2, one line, nothing spawned and no run folder', async () => {
    const args = ['run', '--sim', 'sim.yaml', '--agent', 'gemini', '--agent-binary', join(root, 'bundle/gemini.js'), '--trials', '1'];
    const r = await runInProcess([...args, '--transcripts', 'runs'], { cwd: join(root, 'project') });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^skillprobe: .*gemini\.js: this Gemini CLI ships a built-in skill Skill-Creator.* — rename that skill of the family/m,
    );
    expect(existsSync(join(root, 'SPAWNED'))).toBe(false);
    expect(existsSync(join(root, 'project/runs'))).toBe(false);
  });
});

describe('Gemini adapter: machine-wide policies', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sp-gemini-policies-'));
  });
  afterAll(() => cleanup(dir));

  it('none, or none of policy files: nothing to report', () => {
    expect(systemPolicyProblem(join(dir, 'missing'))).toBeUndefined();
    writeFileSync(join(dir, 'README'), 'x');
    expect(systemPolicyProblem(dir)).toBeUndefined();
  });

  it('a policy file there: the tool lock would be ignored', () => {
    writeFileSync(join(dir, 'site.toml'), '');
    expect(systemPolicyProblem(dir)?.what).toMatch(/ignores the trial's tool lock .* holds site\.toml/);
  });
});

describe('Gemini adapter: the skill listing', () => {
  // `gemini skills list --all`, as the pinned CLI prints it.
  const LISTING = [
    'Discovered Agent Skills:',
    '',
    'alpha [Enabled]',
    '  Description: Handle alpha records.',
    '  Location:    /t/ws/.agents/skills/alpha/SKILL.md',
    '',
    'leaked [Enabled]',
    '  Description: A user-level skill.',
    '  Location:    /t/home/.agents/skills/leaked/SKILL.md',
    '',
    'antigravity-support [Disabled] [Built-in]',
    '  Description: Use when the user asks questions',
    '  Location:    /x/bundle/builtin/antigravity-support/SKILL.md',
    '',
    'skill-creator [Enabled] [Built-in]',
    '  Description: Guide for creating effective skills.',
    '  Location:    /x/bundle/builtin/skill-creator/SKILL.md',
    '',
  ].join('\n');

  it('reads the enabled skills, built-in or not, and never a disabled one', () => {
    expect(enabledSkills(LISTING)).toEqual(['alpha', 'leaked', 'skill-creator']);
    expect(enabledSkills('\x1b[1malpha\x1b[22m \x1b[32m[Enabled]\x1b[39m\n  Description: x\n')).toEqual(['alpha']);
    expect(enabledSkills('No skills discovered.\n')).toEqual([]);
  });
});

describe('Gemini adapter: the isolation check fails closed', () => {
  const family = ['alpha', 'alpha-beta'];
  const init = (skills: string[], listed = true): TranscriptEvent => ({
    kind: 'init',
    source: 'system',
    model: 'm',
    cliVersion: '',
    cwd: '',
    tools: [],
    skills,
    ...(listed ? { skillsFrom: 'gemini skills list (once per arm)', contextFiles: [] } : {}),
  });
  const notOffered: TranscriptEvent = {
    kind: 'skill_load',
    source: 'harness',
    callId: 'c',
    name: 'alpha',
    status: 'denied',
    detail: 'tool_not_registered: Tool "activate_skill" not found.',
  };
  const refused: TranscriptEvent = {
    kind: 'skill_load',
    source: 'harness',
    callId: 'c',
    name: 'alpha',
    status: 'denied',
    detail: 'policy_violation: denied',
  };
  const t = (...events: TranscriptEvent[]): Transcript => ({ agent: 'gemini', events, warnings: [] });

  it.each<[string, Transcript, 'skill' | 'ablation', string | undefined]>([
    ['no init event', t(), 'skill', 'no init event: cannot verify what the agent was shown'],
    [
      'no listing for the arm',
      t(init(family, false)),
      'skill',
      'no skill listing for this arm: cannot verify which skills the model was shown',
    ],
    ['skill arm missing a member', t(init(['alpha'])), 'skill', 'skill arm: alpha-beta not loaded by the agent'],
    ['ablation arm showing one', t(init(['alpha-beta'])), 'ablation', 'ablation arm: alpha-beta visible to the agent'],
    [
      'a skill from outside the family',
      t(init([...family, 'skill-creator'])),
      'skill',
      'skills from outside the family reached the model: skill-creator',
    ],
    ['the skill tool not offered', t(init(family), notOffered), 'skill', 'activate_skill was not offered: the tool lock is wrong'],
    ['a policy refusal is the model’s call, not a leak', t(init(family), refused), 'skill', undefined],
    ['a clean skill arm', t(init(family)), 'skill', undefined],
    ['a clean ablation arm', t(init([])), 'ablation', undefined],
  ])('%s', (_, transcript, arm, problem) => {
    expect(gemini.grading.isolationProblem(transcript, { arm, family })).toBe(problem);
  });
  // A field trial lists the CLI's built-ins beside the family (the lab hides them: the row above), and nothing else.
  it.each<[string, string[], string | undefined]>([
    ['its built-ins', [...family, 'antigravity-support', 'skill-creator'], undefined],
    [
      'another skill',
      [...family, 'skill-creator', 'stranger'],
      "skills outside the family and the CLI's bundled skills reached the model: stranger",
    ],
  ])('in the field, %s', (_, skills, problem) => {
    expect(gemini.grading.isolationProblem(t(init(skills)), { arm: 'skill', family, context: 'field', workspaceChanged: [] })).toBe(
      problem,
    );
  });
});
