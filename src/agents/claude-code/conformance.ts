import type { ConformanceRecord } from '../conformance.js';

/** The Claude Code versions skillprobe's conformance suite ran against, oldest first. */
export const CONFORMANCE: ConformanceRecord[] = [
  {
    version: '2.1.197',
    passed: true,
    date: '2026-12-04',
    differs: [
      'its result line starts with `type`',
      'no built-in plugins',
      'lists other bundled skills in the field (deep-research, verify, review; not dataviz, workflow-authoring, plugin-authoring)',
      'defers no tool: the field never sees ToolSearch',
    ],
  },
  { version: '2.1.332', passed: true, date: '2026-12-04', differs: [] },
];
