import { adapterFor } from '../src/agents/registry.js';

/**
 * The test knob that points the real-CLI suites at another installed version of an agent's CLI:
 * `SKILLPROBE_TEST_BINARY_<AGENT>` (the agent id upper-cased, `-` as `_`: `SKILLPROBE_TEST_BINARY_CLAUDE_CODE`) holds
 * the binary's absolute path. Unset, the pinned CLI runs.
 */
export const testBinaryVariable = (agent: string) => `SKILLPROBE_TEST_BINARY_${agent.toUpperCase().replaceAll('-', '_')}`;

/** The binary the knob names for `agent`, or undefined for the pinned one. */
export const testBinary = (agent: string): string | undefined => process.env[testBinaryVariable(agent)] || undefined;

/** The `run` flags that start `agent`'s trials with the knob's binary (none for the pinned one). */
export const testBinaryArgs = (agent: string): string[] => {
  const binary = testBinary(agent);
  return binary ? ['--agent-binary', binary] : [];
};

/** The CLI version a run of `agent` records: the knob's binary's own, or `pinned`. */
export async function testedVersion(agent: string, pinned: string): Promise<string> {
  const binary = testBinary(agent);
  if (!binary) return pinned;
  const adapter = adapterFor(agent);
  return (await adapter.cliVersion(adapter.resolveBinary(binary))) ?? 'unknown';
}
