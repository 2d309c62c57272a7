import type { Arm } from '../run/config-schema.js';
import type { InitEvent, Transcript } from '../transcript/types.js';

/**
 * What is wrong with the skills a CLI listed to the model: the family missing (skill arm) or visible (ablation
 * arm); with `onlyFamily`, for a listing that holds exactly the skills the model was shown, also any skill from
 * outside the family (a user-level or built-in skill that leaked in). Undefined when it checks out.
 */
export function listingProblem(
  listed: readonly string[],
  expected: { arm: Arm; family: readonly string[] },
  onlyFamily = false,
): string | undefined {
  const shown = new Set(listed);
  if (onlyFamily) {
    const family = new Set(expected.family);
    const outside = [...shown].filter((s) => !family.has(s));
    if (outside.length) return `skills from outside the family reached the model: ${outside.join(', ')}`;
  }
  if (expected.arm === 'skill') {
    const missing = expected.family.filter((s) => !shown.has(s));
    return missing.length ? `skill arm: ${missing.join(', ')} not loaded by the agent` : undefined;
  }
  const present = expected.family.filter((s) => shown.has(s));
  return present.length ? `ablation arm: ${present.join(', ')} visible to the agent` : undefined;
}

/**
 * The isolation check for a CLI whose init event lists the skills it loaded and the tools it offers, failing
 * closed: the init event must show the whole family (skill arm; it also lists slash commands and the like) or none
 * of it (ablation arm), and none of the tools that must stay locked.
 */
export function initListingProblem(
  t: Transcript,
  expected: { arm: Arm; family: readonly string[] },
  deniedTools: readonly string[],
): string | undefined {
  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  if (!init) return 'no init event: cannot verify what the agent loaded';
  const wrong = listingProblem(init.skills, expected);
  if (wrong) return wrong;
  const open = deniedTools.filter((tool) => init.tools.includes(tool));
  if (open.length) return `tools that must be locked are available: ${open.join(', ')}`;
  return undefined;
}
