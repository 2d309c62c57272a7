import type { RunStatus } from './schema.js';

/**
 * Exit codes. 0 all PASS, 1 any FAIL, 2 usage or input error, 3 INCONCLUSIVE (no FAIL, no ERROR), 4 ERROR (no FAIL),
 * 5 stopped at --max-cost (a partial run), 70 the harness itself failed, 130 interrupted. Damaged trial files in a run
 * folder are missing data: at least 4 unless a case FAILs. results.json and agents.json store them.
 */
export const EXIT = { pass: 0, fail: 1, usage: 2, inconclusive: 3, error: 4, costCapped: 5, internal: 70, interrupted: 130 } as const;

/** A run that stopped short exits as such, never with verdicts that look final. */
export const STOPPED_EXIT: Partial<Record<RunStatus, number>> = {
  interrupted: EXIT.interrupted,
  cost_capped: EXIT.costCapped,
  // Its trials were all errors, and no later one could have been scored: as a run of ERROR cases ends.
  isolation_stopped: EXIT.error,
  failed: EXIT.internal,
};
