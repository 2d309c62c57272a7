import type { IsolationExpectation } from './types.js';

/**
 * What a field trial's permission layer answers an acting call with, in every CLI, the same words so agents compare
 * fairly: worded as a session's own permission setting would be (the model is told nothing about a test), so the
 * model goes on without it. Each CLI wraps it in words of its own; the evidence checks look for it there.
 */
export const FIELD_REFUSAL = 'Not permitted in this session; the call was not run';

/** Why a field trial's workspace does not show that nothing ran, or undefined: it must be recorded, and unchanged. */
export function fieldWorkspaceProblem(expected: Pick<IsolationExpectation, 'workspaceChanged'>): string | undefined {
  if (expected.workspaceChanged === undefined) return 'field: no record of the workspace after the trial';
  if (expected.workspaceChanged.length) return `field: the workspace changed (${expected.workspaceChanged.slice(0, 5).join(', ')})`;
  return undefined;
}
