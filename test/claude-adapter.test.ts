import { describe, expect, it } from 'vitest';
import { apiTimeoutMs, claudeCode } from '../src/agents/claude-code/adapter.js';
import { configSchema } from '../src/run/config-schema.js';

describe('Claude Code adapter: the CLI times out a hung request before the harness deadline', () => {
  it.each([
    [2_000, 2],
    [5_000, 0],
    [300_000, 2],
    [120_000, 2],
    [60_000, 0],
    [30_000, 10],
    [3_600_000, 2],
  ])('deadline %i ms, %i CLI retries: every attempt of a hung request fits inside the deadline', (deadline, retries) => {
    const t = apiTimeoutMs(deadline, retries);
    expect(t).toBeGreaterThan(0);
    expect(t).toBeLessThanOrEqual(120_000);
    expect((1 + retries) * t).toBeLessThan(deadline);
  });

  it('the default config gives the CLI its own error first, and the invocation passes that timeout', () => {
    const config = configSchema.parse({});
    const deadlineMs = config.timeouts.trialSeconds * 1000;
    const inv = claudeCode.invocation({
      prompt: 'p',
      role: 'trial',
      model: 'm',
      maxTurns: 2,
      cliRetries: config.retries.cli,
      deadlineMs,
      workspace: '/tmp',
      home: '/tmp',
      tmp: '/tmp',
      harnessDir: '/tmp',
      callerEnv: { PATH: '/usr/bin' },
      binary: process.execPath,
    });
    const api = Number(inv.env.API_TIMEOUT_MS);
    expect(api).toBeGreaterThan(0);
    expect(api * (1 + config.retries.cli)).toBeLessThan(deadlineMs);
  });
});
