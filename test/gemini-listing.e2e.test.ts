import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini } from '../src/agents/gemini/adapter.js';
import { cleanup, testEnv } from './helpers.js';
import { request, SIMULATOR } from './gemini-request.js';

describe('Gemini adapter: the skill listing through the real CLI on a prepared workspace', () => {
  let root: string;
  const ws = () => join(root, 'ws');
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sp-gemini-probe-'));
    for (const d of ['ws/.agents/skills/alpha', 'home/.agents/skills/leaked', 'tmp', 'harness'])
      mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(ws(), '.agents/skills/alpha/SKILL.md'), '---\nname: alpha\ndescription: Handle alpha records.\n---\nRun alpha.\n');
    writeFileSync(join(root, 'home/.agents/skills/leaked/SKILL.md'), '---\nname: leaked\ndescription: A user-level skill.\n---\nx\n');
  });
  afterAll(() => cleanup(root));

  // The real CLI gets a caller environment with nothing but loopback in it (the shared request's caller names
  // off-machine gateways and proxies, which only the in-process adapter tests may see).
  it('lists the workspace’s skills and any other the CLI would show, never the built-ins', async () => {
    const req = request({
      workspace: ws(),
      home: join(root, 'home'),
      tmp: join(root, 'tmp'),
      harnessDir: join(root, 'harness'),
      callerEnv: testEnv(),
      simulator: SIMULATOR,
      binary: gemini.resolveBinary(),
    });
    await gemini.prepareTrial!(req);
    const shown = await gemini.probeListing!(req);
    expect(shown).toEqual({ source: 'gemini skills list (once per arm)', skills: ['alpha', 'leaked'], contextFiles: [] });
  }, 60_000);

  it('a workspace skill named like a built-in (skill-creator) is listed as the family’s, enabled', async () => {
    const shadow = join(root, 'shadow');
    mkdirSync(join(shadow, 'ws/.agents/skills/skill-creator'), { recursive: true });
    for (const d of ['home', 'tmp', 'harness']) mkdirSync(join(shadow, d));
    writeFileSync(
      join(shadow, 'ws/.agents/skills/skill-creator/SKILL.md'),
      '---\nname: skill-creator\ndescription: The user’s own.\n---\nx\n',
    );
    const req = request({
      workspace: join(shadow, 'ws'),
      home: join(shadow, 'home'),
      tmp: join(shadow, 'tmp'),
      harnessDir: join(shadow, 'harness'),
      callerEnv: testEnv(),
      simulator: SIMULATOR,
      binary: gemini.resolveBinary(),
    });
    await gemini.prepareTrial!(req);
    expect((await gemini.probeListing!(req)).skills).toEqual(['skill-creator']);
  }, 60_000);

  it('a binary that cannot list skills stops the run before any trial', async () => {
    const fake = join(root, 'fake-gemini');
    writeFileSync(fake, '#!/bin/sh\necho "no such command" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    const req = request({
      workspace: ws(),
      home: join(root, 'home'),
      tmp: join(root, 'tmp'),
      harnessDir: join(root, 'harness'),
      callerEnv: testEnv(),
      binary: fake,
    });
    await expect(gemini.probeListing!(req)).rejects.toThrow(/gemini skills list` failed \(no such command\)/);
  });
});
