import type { Arm } from '../run/config-schema.js';
import type { InitEvent, Transcript } from '../transcript/types.js';

/**
 * The isolation check for a CLI whose init event lists the skills it loaded and the tools it offers, failing
 * closed: the init event must show exactly the family (skill arm) or none of it (ablation arm), and none of the
 * tools that must stay locked.
 */
export function initListingProblem(t: Transcript, expected: { arm: Arm; family: readonly string[] }, deniedTools: readonly string[]): string | undefined {
  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  if (!init) return 'no init event: cannot verify what the agent loaded';
  const listed = new Set(init.skills);
  if (expected.arm === 'skill') {
    const missing = expected.family.filter((s) => !listed.has(s));
    if (missing.length) return `skill arm: ${missing.join(', ')} not loaded by the agent`;
  } else {
    const present = expected.family.filter((s) => listed.has(s));
    if (present.length) return `ablation arm: ${present.join(', ')} visible to the agent`;
  }
  const open = deniedTools.filter((tool) => init.tools.includes(tool));
  if (open.length) return `tools that must be locked are available: ${open.join(', ')}`;
  return undefined;
}
