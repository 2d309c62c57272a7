import type { InitEvent, Transcript } from '../transcript/types.js';
import type { ListingExpectation } from './types.js';

/**
 * What is wrong with the skills a CLI listed to the model: the family missing (skill arm) or visible (ablation
 * arm), a declared neighbour missing (either arm); with `onlyInstalled`, for a listing that holds exactly the skills
 * the model was shown, also any skill neither in the family nor a declared neighbour nor one the CLI `brings` (its
 * bundled skills in the field): a user-level or built-in skill that leaked in. Undefined when it checks out.
 */
export function listingProblem(
  listed: readonly string[],
  expected: ListingExpectation,
  onlyInstalled = false,
  brings: readonly string[] = [],
): string | undefined {
  const shown = new Set(listed);
  const neighbours = expected.neighbours ?? [];
  if (onlyInstalled) {
    const installed = new Set([...expected.family, ...neighbours, ...brings]);
    const outside = [...shown].filter((s) => !installed.has(s));
    const and = [neighbours.length ? 'its declared neighbours' : '', brings.length ? "the CLI's bundled skills" : ''].filter(Boolean);
    const from = and.length ? `outside the family and ${and.join(' and ')}` : 'from outside the family';
    if (outside.length) return `skills ${from} reached the model: ${outside.join(', ')}`;
  }
  const absent = neighbours.filter((s) => !shown.has(s));
  if (absent.length) return `${expected.arm} arm: neighbours ${absent.join(', ')} not loaded by the agent`;
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
 * of it (ablation arm), every declared neighbour, and none of the tools that must stay locked.
 */
export function initListingProblem(t: Transcript, expected: ListingExpectation, deniedTools: readonly string[]): string | undefined {
  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  if (!init) return 'no init event: cannot verify what the agent loaded';
  const wrong = listingProblem(init.skills, expected);
  if (wrong) return wrong;
  const open = deniedTools.filter((tool) => init.tools.includes(tool));
  if (open.length) return `tools that must be locked are available: ${open.join(', ')}`;
  return undefined;
}
