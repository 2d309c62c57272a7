/** The variable naming the file where every blocked agent spawn, in any process of a test, is written down. */
export const SPAWN_LOG_VARIABLE: string;
/** The agent CLI that `file args` would start (its path), or undefined. */
export function agentCommand(file: string, args?: readonly string[]): string | undefined;
