import type { ConformanceRecord } from '../conformance.js';

/** The Gemini CLI versions skillprobe's conformance suite ran against, oldest first. */
export const CONFORMANCE: ConformanceRecord[] = [{ version: '0.61.0', passed: true, date: '2026-12-04', differs: [] }];
