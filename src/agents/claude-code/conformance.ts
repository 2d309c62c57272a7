import type { ConformanceRecord } from '../conformance.js';

/** The Claude Code versions skillprobe's conformance suite ran against, oldest first. */
export const CONFORMANCE: ConformanceRecord[] = [
  { version: '2.1.197', passed: true, date: '2026-12-04', differs: [] },
  {
    version: '2.1.332',
    passed: true,
    date: '2026-12-04',
    differs: [
      'its result line puts `type` late: a turn ends at a line whose parsed type is result',
      'three built-in plugins on by default (one lists a plugin-authoring skill): trials outside the field turn them off',
      'lists other bundled skills in the field (dataviz, workflow-authoring, plugin-authoring; no longer deep-research, verify)',
      'defers some tools (WebFetch among them) behind ToolSearch: the field lets the lookup run and refuses the tool it loads',
      'declares Node >= 22, and runs on Node 20',
    ],
  },
];
