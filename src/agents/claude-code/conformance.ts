import type { ConformanceRecord } from '../conformance.js';

/** The Claude Code versions skillprobe's conformance suite ran against, oldest first. */
export const CONFORMANCE: ConformanceRecord[] = [{ version: '2.1.197', passed: true, date: '2026-12-04', differs: [] }];
