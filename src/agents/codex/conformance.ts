import type { ConformanceRecord } from '../conformance.js';

/** The Codex CLI versions skillprobe's conformance suite ran against, oldest first. */
export const CONFORMANCE: ConformanceRecord[] = [
  { version: '0.169.0', passed: true, date: '2026-12-04', differs: [] },
  { version: '0.171.0', passed: true, date: '2026-12-04', differs: [] },
];
